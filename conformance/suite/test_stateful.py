"""State machines over installing and exiting modes, checked against the model after every step.

The model's own context managers are entered and exited in lockstep with the
implementation's, in any order (out-of-order exits included); after every step
the current mode (the whole stack, in the stack generation) must agree, and a
call's handlers must be the ones the model predicts.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from conformance.adapter import Adapter
from conformance.compare import differences
from conformance.runner import Run
from conformance.sandbox import sandboxed
from spec.model.engine import Engine, ModelRaise
from spec.model.functions import tensor_data
from spec.model.messages import EMPTY_STACK
from spec.model.scenario import (
    Behaviour,
    ClassDecl,
    Forward,
    ModeDecl,
    NotImpl,
    Redispatch,
    Return,
    Scenario,
)
from spec.model.stack import StackEngine, Version
from spec.model.trace import Message, Raised, Returned, Trace
from spec.model.values import ModeRef, SymTensor, to_value

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


class _Lockstep(RuleBasedStateMachine):
    """What both machines share: entering in lockstep, and checking a call."""

    adapter: Adapter

    def __init__(self, model: Engine, scenario: Scenario) -> None:
        super().__init__()
        self.model = model
        self.impl = Run(scenario, self.adapter)
        for name in MODES:
            self.model.construct_upfront(name)
            self.impl.instances[name] = self.adapter.make_mode(self.impl.mode_classes[name])
        self.open: list[tuple[Any, Any]] = []

    def _enter(self, model_cm: Any, impl_cm: Any) -> None:
        predicted: ModelRaise | None = None
        try:
            model_cm.__enter__()
        except ModelRaise as exc:
            predicted = exc
        try:
            impl_cm.__enter__()
        except Exception as exc:
            assert predicted is not None, f"the model enters, the implementation raised {exc!r}"
            self._same_error(predicted, exc)
            return
        assert predicted is None, f"the model raises {predicted.exc_type}, the implementation entered"
        self.open.append((model_cm, impl_cm))

    def _same_error(self, predicted: ModelRaise, exc: BaseException) -> None:
        expected = Trace((), Raised(predicted.exc_type, predicted.message), None)
        observed = Trace((), Raised(type(exc).__name__, Message((str(exc),))), None)
        diff = differences(expected, observed, self.impl.naming())
        assert not diff, diff

    def _call(self, func: str) -> None:
        if func == "ones":
            model_args: list[Any] = [2]
            impl_args: list[Any] = [2]
        else:
            model_args = [SymTensor("Tensor", tensor_data(k), f"x{k}") for k in range(2)]
            impl_args = [self.adapter.tensor(tensor_data(k)) for k in range(2)]
        before_model, before_impl = len(self.model.events), len(self.impl.events)
        try:
            expected: Returned | Raised = Returned(to_value(self.model.call(func, model_args, {})))
        except ModelRaise as exc:
            expected = Raised(exc.exc_type, exc.message)
        try:
            observed: Returned | Raised = Returned(self.impl.observe(self.impl.call(func, impl_args, {})))
        except Exception as exc:
            observed = Raised(type(exc).__name__, Message((str(exc),)))
        diff = differences(Trace(tuple(self.model.events[before_model:]), expected, None),
                           Trace(tuple(self.impl.events[before_impl:]), observed, None),
                           self.impl.naming())
        assert not diff, diff

    def _exit(self, index: int) -> None:
        model_cm, impl_cm = self.open.pop(index)
        model_cm.__exit__(None, None, None)
        impl_cm.__exit__(None, None, None)


def _machine(adapter: Adapter) -> type[RuleBasedStateMachine]:
    class ModeSlotMachine(_Lockstep):
        def __init__(self) -> None:
            self.adapter = adapter
            super().__init__(Engine(SCENARIO), SCENARIO)

        def _obj(self, name: str | None) -> Any:
            return None if name is None else self.impl._instance(name)

        @rule(mode=st.sampled_from(MODES))
        def push(self, mode: str) -> None:
            self._enter(self.model.push(mode), self.impl.push(mode))

        @rule(obj=st.sampled_from(TARGETS), replace=st.sampled_from(TARGETS), ignore=st.booleans())
        def enable(self, obj: str | None, replace: str | None, ignore: bool) -> None:
            model_cm = self.model.enable(self.model.resolve(obj), self.model.resolve(replace), ignore)
            impl_cm = adapter.enable(self._obj(obj), self._obj(replace), ignore)
            self._enter(model_cm, impl_cm)

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def exit_any(self, data: st.DataObject) -> None:
            self._exit(data.draw(st.integers(0, len(self.open) - 1), label="exit"))

        @rule(func=st.sampled_from(("add", "sub", "ones")))
        def call(self, func: str) -> None:
            self._call(func)

        @invariant()
        def same_current_mode(self) -> None:
            predicted = None if self.model.current is None else self.model.current.label
            assert self.impl.label(adapter.current_mode()) == predicted

        def teardown(self) -> None:
            for model_cm, impl_cm in reversed(self.open):
                model_cm.__exit__(None, None, None)
                with contextlib.suppress(Exception):
                    impl_cm.__exit__(None, None, None)
            # Out-of-order exits can leave a mode current by design: each exit restores
            # what was current at its own entry. The implementation must agree with that.
            self.same_current_mode()
            adapter.reset()

    return ModeSlotMachine


def _stack_machine(adapter: Adapter) -> type[RuleBasedStateMachine]:
    version: Version = "1.13" if adapter.stack_version == "1.13" else "2.x"
    scenario = replace_generation(SCENARIO)

    class ModeStackMachine(_Lockstep):
        def __init__(self) -> None:
            self.adapter = adapter
            super().__init__(StackEngine(scenario, version), scenario)
            self.model_stack: Any = self.model

        @rule(mode=st.sampled_from(MODES))
        def enter(self, mode: str) -> None:
            self._enter(self.model_stack.entered(ModeRef("inst", mode, 0)), self.impl.instances[mode])

        @rule(mode=st.sampled_from(("M", "N")))
        def push_new(self, mode: str) -> None:
            self._enter(self.model_stack.push(mode), self.impl.push(mode))

        @precondition(lambda self: bool(self.open))
        @rule(data=st.data())
        def exit_any(self, data: st.DataObject) -> None:
            self._exit(data.draw(st.integers(0, len(self.open) - 1), label="exit"))

        @precondition(lambda self: not self.open)
        @rule(mode=st.sampled_from(MODES))
        def exit_unentered(self, mode: str) -> None:
            with pytest.raises(RuntimeError, match=EMPTY_STACK):
                self.impl.instances[mode].__exit__(None, None, None)

        @rule(func=st.sampled_from(("add", "sub", "ones")))
        def call(self, func: str) -> None:
            self._call(func)

        @invariant()
        def same_stack(self) -> None:
            predicted = [m.label for m in self.model_stack.stack]
            assert [self.impl.label(m) for m in adapter.mode_stack()] == predicted

        def teardown(self) -> None:
            for model_cm, impl_cm in reversed(self.open):
                with contextlib.suppress(Exception):
                    model_cm.__exit__(None, None, None)
                with contextlib.suppress(Exception):
                    impl_cm.__exit__(None, None, None)
            self.same_stack()
            adapter.reset()

    return ModeStackMachine


def _bounded() -> settings:
    """The active profile, with at most 200 machine runs: each run is up to 50 steps long."""
    current = settings()
    return settings(current, max_examples=min(current.max_examples, 200))


def replace_generation(scenario: Scenario) -> Scenario:
    return Scenario("stack", scenario.classes, scenario.modes)


@pytest.mark.generation("2022")
@pytest.mark.rule("TFM_PUSH_001", "TFM_PUSH_003", "TFM_PUSH_004", "TFM_ENABLE_001", "TFM_ENABLE_002",
                  "TFM_ENABLE_003", "TFM_ENABLE_004", "TFM_ENABLE_005", "TFM_ENABLE_006", "TFM_ENABLE_007",
                  "TFM_SUBMODE_001", "TFM_REENTRY_002", "TFM_REENTRY_004", "TFM_REENTRY_006")
@sandboxed
def test_install_exit_and_call(adapter: Adapter) -> None:
    run_state_machine_as_test(_machine(adapter), settings=_bounded())  # type: ignore[no-untyped-call,unused-ignore]


@pytest.mark.generation("stack")
@pytest.mark.rule("TFM_STACK_001", "TFM_STACK_002", "TFM_STACK_003", "TFM_STACK_004", "TFM_STACK_005",
                  "TFM_STACK_006", "TFM_STACK_007", "TFM_REENTRY_002")
@sandboxed
def test_enter_exit_out_of_order_and_call(adapter: Adapter) -> None:
    run_state_machine_as_test(_stack_machine(adapter), settings=_bounded())  # type: ignore[no-untyped-call,unused-ignore]
