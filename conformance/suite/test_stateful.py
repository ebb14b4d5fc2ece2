"""State machines over installing and exiting modes, checked against the model after every step.

The model's own context managers are entered and exited in lockstep with the
implementation's, in any order (out-of-order exits included); after every step
the current mode (the whole stack, in the stack generation) must agree, and a
call's handlers must be the ones the model predicts. A divergence fails the rules
that decide what differs: an error's rules, a call's first differing field, or
what decides the current mode after the last step. The failure comes with the
scenario of its (shrunk) steps where one reproduces it, or with a script that
replays them (conformance.search.replay).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from conformance.adapter import Adapter, release_of
from conformance.generate.steps import Op
from conformance.judge.divergence import block
from conformance.search.lockstep import Lockstep, run_lockstep
from conformance.session.bodies import APPLICABLE, sandboxed
from spec.model.engine import Engine
from spec.model.raising import ModelRaise
from spec.model.scenario import (
    Behaviour,
    ClassDecl,
    Enable,
    Enter,
    Forward,
    ModeDecl,
    NotImpl,
    Push,
    Redispatch,
    Return,
    Scenario,
)
from spec.model.stack import StackEngine, Version
from spec.model.values import ModeRef

MODES = ("M", "N", "P")
SCENARIO = Scenario(
    "2022",
    classes=(ClassDecl("S", behaviour=Behaviour(Return(7))),),
    modes=(
        ModeDecl("M", Behaviour(Forward())),
        ModeDecl("N", Behaviour(Forward(), (("sub", Redispatch("add", reenter=True)),))),
        ModeDecl("P", Behaviour(NotImpl())),
    ),
)
#: Objects an enable step may name: the up-front mode instances, the subclass, or None.
TARGETS = (*MODES, "S", None)


def _machine(adapter: Adapter) -> type[RuleBasedStateMachine]:
    class ModeSlotMachine(Lockstep):
        def __init__(self) -> None:
            self.adapter = adapter
            super().__init__(Engine(SCENARIO, release_of(adapter)), SCENARIO, MODES)

        def _obj(self, name: str | None) -> object:
            return None if name is None else self.impl._instance(name)

        @rule(mode=st.sampled_from(MODES))
        def push(self, mode: str) -> None:
            self.enter(Push(mode), f"push {mode}", self.model.push(mode),
                       lambda: self.impl.push(mode), ("TFM_PUSH_003",))

        @rule(obj=st.sampled_from(TARGETS), replace=st.sampled_from(TARGETS), ignore=st.booleans())
        def enable(self, obj: str | None, replace: str | None, ignore: bool) -> None:
            model_cm = self.model.enable(self.model.resolve(obj), self.model.resolve(replace), ignore)
            for name in (obj, replace):
                ref = self.model.resolve(name)
                if ref is not None and name is not None:
                    self.objects[ref] = self._obj(name)
            self.enter(Enable(obj, replace, ignore),
                       f"enable {obj} (replace={replace}, ignore_preexisting={ignore})", model_cm,
                       lambda: adapter.enable(self._obj(obj), self._obj(replace), ignore),
                       ("TFM_ENABLE_001",))

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def exit_any(self, data: st.DataObject) -> None:
            self.exit(data.draw(st.integers(0, len(self.open) - 1), label="exit"))

        @rule(func=st.sampled_from(("add", "sub", "ones")))
        def call_one(self, func: str) -> None:
            self.call(func)

        @invariant()
        def same_current_mode(self) -> None:
            predicted = [] if self.model.current is None else [self.model.current]
            current = self.ask("current mode", adapter.current_mode)
            self.same_modes("current mode", predicted, [] if current is None else [current])

        def teardown(self) -> None:
            # Out-of-order exits can leave a mode current by design: each exit restores
            # what was current at its own entry. The implementation must agree with that.
            self.close(self.same_current_mode)

    return ModeSlotMachine


def _stack_machine(adapter: Adapter) -> type[RuleBasedStateMachine]:
    version: Version = "1.13" if adapter.stack_version == "1.13" else "2.x"
    scenario = replace_generation(SCENARIO)

    class ModeStackMachine(Lockstep):
        def __init__(self) -> None:
            self.adapter = adapter
            self.model_stack = StackEngine(scenario, version, release_of(adapter))
            super().__init__(self.model_stack, scenario, MODES)

        @rule(mode=st.sampled_from(MODES))
        def enter_mode(self, mode: str) -> None:
            self.enter(Enter(mode), f"with {mode}",
                       self.model_stack.entered(ModeRef("inst", mode, 0)),
                       lambda: self.impl.instances[mode], ("TFM_STACK_002",))

        @rule(mode=st.sampled_from(("M", "N")))
        def push_new(self, mode: str) -> None:
            self.enter(Push(mode), f"with {mode}()", self.model_stack.push(mode),
                       lambda: self.impl.push(mode), ("TFM_STACK_002",))

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def exit_any(self, data: st.DataObject) -> None:
            self.exit(data.draw(st.integers(0, len(self.open) - 1), label="exit"))

        @precondition(lambda self: not self.open)
        @rule(mode=st.sampled_from(MODES))
        def exit_unentered(self, mode: str) -> None:
            self.record(Op("exit_unentered", f"exit of {mode}, never entered", mode=mode))
            text = self.model_stack.texts.message("empty-stack")
            predicted = ModelRaise("RuntimeError", text, ("TFM_STACK_003",))
            self.current_rules = self.tags(predicted.rules)
            try:
                self.impl.instances[mode].__exit__(None, None, None)
            except Exception as exc:
                self.same_error(predicted, exc)
                return
            raise self.diverge(self.current_rules, block(
                "whether exiting raises", self.current_rules, f"RuntimeError({text.render()!r})",
                "the mode exits"))

        @rule(func=st.sampled_from(("add", "sub", "ones")))
        def call_one(self, func: str) -> None:
            self.call(func)

        @invariant()
        def same_stack(self) -> None:
            self.same_modes("mode stack", self.model_stack.stack,
                            self.ask("mode stack", adapter.mode_stack))

        def teardown(self) -> None:
            self.close(self.same_stack)

    return ModeStackMachine


def replace_generation(scenario: Scenario) -> Scenario:
    return Scenario("stack", scenario.classes, scenario.modes)


@pytest.mark.generation("2022")
@pytest.mark.rule("TFM_PUSH_001", "TFM_PUSH_003", "TFM_PUSH_004", "TFM_ENABLE_001", "TFM_ENABLE_002",
                  "TFM_ENABLE_003", "TFM_ENABLE_004", "TFM_ENABLE_005", "TFM_ENABLE_006", "TFM_ENABLE_007",
                  "TFM_SUBMODE_001", "TFM_REENTRY_002", "TFM_REENTRY_004", "TFM_REENTRY_006")
@sandboxed(names=APPLICABLE)
def test_install_exit_and_call(adapter: Adapter, impl_spec: str,
                               record_property: Callable[[str, object], None]) -> None:
    run_lockstep(_machine(adapter), adapter, impl_spec, record_property)


@pytest.mark.generation("stack")
@pytest.mark.rule("TFM_STACK_001", "TFM_STACK_002", "TFM_STACK_003", "TFM_STACK_004", "TFM_STACK_005",
                  "TFM_STACK_006", "TFM_STACK_007", "TFM_REENTRY_002")
@sandboxed(names=APPLICABLE)
def test_enter_exit_out_of_order_and_call(adapter: Adapter, impl_spec: str,
                                          record_property: Callable[[str, object], None]) -> None:
    run_lockstep(_stack_machine(adapter), adapter, impl_spec, record_property)
