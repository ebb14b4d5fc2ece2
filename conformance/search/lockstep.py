"""Steps the model and an implementation in lockstep; each divergence names the rules it breaks.

A divergence carries the steps of the run up to it (:class:`~conformance.generate.steps.Op`), from
which :mod:`conformance.search.replay` (where :class:`Divergence` is defined) makes the scenario or
the script that reproduces it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.stateful import RuleBasedStateMachine, run_state_machine_as_test

from spec.model.engine import Engine
from spec.model.functions import tensor_data
from spec.model.raising import ModelRaise
from spec.model.scenario import Scenario, Step
from spec.model.trace import Message, Raised, Returned, Trace
from spec.model.values import ModeRef, SymTensor

from ..base.safe import name_of, text_of
from ..generate.steps import Op
from ..judge.attribution import RESTORE_RULES
from ..judge.comparison import compare_traces
from ..judge.divergence import block, describe, show_trace
from ..target.adapter import Adapter
from ..target.arguments import described_events
from ..target.runner import Run
from .replay import Divergence, report

if sys.version_info < (3, 11):  # Python 3.10
    from exceptiongroup import BaseExceptionGroup

#: At most this many machine runs under any profile.
MAX_RUNS = 200
#: At most this many steps a run (hypothesis' default is 50). The machines have three modes, so
#: every nesting of them, exits in any order and a call after each fits in 20 steps; the 30
#: steps past that were about half a run's time (the stateful test was about 40% of a triage
#: run of reference_impl). Every mutant of tests/mutants is still caught.
MAX_STEPS = 20


class Lockstep(RuleBasedStateMachine):
    """Enters, exits and calls on both sides, comparing each step's result."""

    adapter: Adapter

    def __init__(self, model: Engine, scenario: Scenario, modes: tuple[str, ...]) -> None:
        super().__init__()
        self.model = model
        self.impl = Run(scenario, self.adapter)
        #: Which of the implementation's objects each of the model's modes is.
        self.objects: dict[ModeRef, object] = {}
        for name in modes:
            self.model.construct_upfront(name)
            self.impl.instances[name] = self.adapter.make_mode(self.impl.mode_classes[name])
            self.objects[ModeRef("inst", name, 0)] = self.impl.instances[name]
        self.modes = modes
        #: Open blocks: the model's, the implementation's, the rules their exit restores by,
        #: and the step that entered them.
        self.open: list[tuple[Any, Any, tuple[str, ...], str]] = []
        #: The last step, and the rules that decide what is current after it.
        self.step = "the start"
        self.current_rules = RESTORE_RULES[scenario.generation]
        #: Every step so far; whether a divergence was raised (teardown then checks nothing).
        self.history: list[Op] = []
        self.diverged = False

    def record(self, op: Op) -> None:
        """Note the step about to be taken."""
        self.history.append(op)
        self.step = op.label

    def diverge(self, rules: tuple[str, ...], blocks: list[str], after: bool = False) -> Divergence:
        """The divergence at the last step (``after``: in the state it left)."""
        self.diverged = True
        if not self.history:
            where = "at the start, before any step"
        else:
            where = f"{'after' if after else 'at'} step {len(self.history)} ({self.step})"
        return Divergence(rules, where, blocks, tuple(self.history), self.impl.sc, self.modes)

    def tags(self, rules: tuple[str, ...]) -> tuple[str, ...]:
        """The model's rule tags ``rules`` as the rules of the model's generation."""
        return self.model.translate(Trace((), Raised("", Message(()), rules), None)).outcome.rules

    def enter(self, step: Step, label: str, model_cm: Any, make_impl: Callable[[], Any],
              restores: tuple[str, ...]) -> None:
        """Enter both blocks of set-up ``step`` (``make_impl`` makes the implementation's: an
        implementation may check its arguments there already); ``restores``: the rules that
        decide what their exit restores."""
        self.record(Op("enter", label, step))
        predicted: ModelRaise | None = None
        entered: object = None
        try:
            entered = model_cm.__enter__()
        except ModelRaise as exc:
            predicted = exc
        if predicted is not None:
            self.current_rules = self.tags(predicted.rules)
        elif isinstance(entered, tuple):
            self.current_rules = self.tags(entered)
        else:  # a push: the mode it made current
            installed = self.model.installed_by.get(entered) if isinstance(entered, ModeRef) else None
            self.current_rules = self.tags(installed or ("TFM_PUSH_001",))
        try:
            impl_cm = make_impl()
            impl_entered = impl_cm.__enter__()
        except Exception as exc:
            if predicted is None:
                raise self.diverge(self.current_rules, block(
                    "whether entering raises", self.current_rules, "the block is entered",
                    f"{name_of(type(exc))}({text_of(exc)!r})")) from None
            self.same_error(predicted, exc)
            return
        if predicted is not None:
            text = predicted.message.render(self.impl.naming())
            raise self.diverge(self.current_rules, block(
                "whether entering raises", self.current_rules, f"{predicted.exc_type}({text!r})",
                "the block is entered"))
        if isinstance(entered, ModeRef) and impl_entered is not None:
            self.objects[entered] = impl_entered  # the mode a push made
        self.open.append((model_cm, impl_cm, self.tags(restores), label))
        self.history[-1] = self.history[-1].entered()

    def same_error(self, predicted: ModelRaise, exc: BaseException) -> None:
        self.compare(Trace((), Raised(predicted.exc_type, predicted.message, predicted.rules), None),
                     Trace((), Raised(name_of(type(exc)), Message((text_of(exc),))), None))

    def compare(self, expected: Trace, observed: Trace) -> None:
        """Raise a :class:`Divergence` carrying the rules of the first field that differs."""
        expected = self.model.translate(expected)
        naming = self.impl.naming()
        comparison = compare_traces(self.impl.sc, expected, observed, naming)
        if comparison:
            rules = comparison.rules
            blocks = describe(comparison)
            if expected.events or observed.events:  # the whole step, for context
                blocks += [f"the whole step, expected: {show_trace(expected, naming)}",
                           f"the whole step, observed: {show_trace(observed, naming)}"]
            raise self.diverge(rules, blocks)

    def call(self, func: str) -> None:
        self.record(Op("call", f"call {func}", func=func))
        if func == "ones":
            model_args: list[Any] = [2]
            impl_args: list[Any] = [2]
        else:
            model_args = [SymTensor("Tensor", tensor_data(k), f"x{k}") for k in range(2)]
            impl_args = [self.adapter.tensor(tensor_data(k)) for k in range(2)]
        # The call's tensors are x0 and x1 on both sides, as in a scenario (TFM_ARGS_002).
        self.impl.idents = {id(t): f"x{k}" for k, t in enumerate(impl_args) if not isinstance(t, int)}
        self.impl.received.clear()
        before_model, before_impl = len(self.model.events), len(self.impl.events)
        self.model.value_rules.clear()
        self.model.guard_raises.clear()
        expected: Returned | Raised
        try:
            expected = self.model.returned(self.model.call(func, model_args, {}))
        except ModelRaise as exc:
            expected = Raised(exc.exc_type, exc.message, exc.rules, exc.if_returned)
        raised = isinstance(expected, Raised)
        self.current_rules = self.tags(("TFM_REENTRY_003",) if raised else ("TFM_REENTRY_002",))
        try:
            observed: Returned | Raised = Returned(self.impl.observe(self.impl.call(func, impl_args, {})))
        except Exception as exc:
            observed = Raised(name_of(type(exc)), Message((text_of(exc),)))
        seen = described_events(self.impl.events, self.impl.received, self.impl.idents)
        self.compare(Trace(tuple(self.model.events[before_model:]), expected, None),
                     Trace(seen[before_impl:], observed, None))

    def exit(self, index: int) -> None:
        model_cm, impl_cm, restores, label = self.open.pop(index)
        self.record(Op("exit", f"exit of open block {index}, {label}", index=index))
        self.current_rules = restores
        model_cm.__exit__(None, None, None)
        try:
            impl_cm.__exit__(None, None, None)
        except Exception as exc:
            raise self.diverge(restores, block("whether exiting raises", restores, "the block exits",
                                               f"{name_of(type(exc))}({text_of(exc)!r})")) from None

    def _is(self, ref: ModeRef, obj: object) -> bool:
        known = self.objects.get(ref)
        return obj is known if known is not None else self.impl.label(obj) == ref.label

    def _show(self, obj: object) -> str:
        refs = [ref for ref, known in self.objects.items() if known is obj]
        return self._name(refs[0]) if refs else f"{self.impl.label(obj)} (an object of no step)"

    @staticmethod
    def _name(ref: ModeRef) -> str:
        return f"{ref.label} (up-front)" if ref.serial == 0 else f"{ref.label} #{ref.serial}"

    def ask(self, what: str, question: Callable[[], Any]) -> Any:
        """The implementation's answer to ``question`` (its ``what``); raising is a divergence."""
        try:
            return question()
        except Exception as exc:
            raise self.diverge(self.current_rules, block(
                f"the {what}, asked for", self.current_rules, "an answer",
                f"{name_of(type(exc))}({text_of(exc)!r})"), after=True) from None

    def same_modes(self, what: str, expected: list[ModeRef], observed: list[object]) -> None:
        """The implementation's modes are the very objects the model's are (not only alike)."""
        if len(expected) != len(observed) or not all(map(self._is, expected, observed)):
            raise self.diverge(self.current_rules, block(
                f"the {what}", self.current_rules, str([self._name(r) for r in expected]),
                str([self._show(o) for o in observed])), after=True)

    def close(self, check: Callable[[], None]) -> None:
        """Exit every open block (innermost first), check the state, and reset the implementation.

        After a divergence nothing is checked: the run is failing already, and what the rest
        of it would show are consequences (which must not replace the divergence itself)."""
        try:
            if not self.diverged:
                while self.open:
                    self.exit(len(self.open) - 1)
                    check()
                check()
        finally:
            self.adapter.reset()


def _leaves(group: BaseExceptionGroup[Divergence]) -> Iterator[Divergence]:
    for exc in group.exceptions:
        if isinstance(exc, BaseExceptionGroup):
            yield from _leaves(exc)
        else:
            yield exc


def run_lockstep(machine: type[RuleBasedStateMachine], adapter: Adapter, impl_spec: str,
                 record_property: Callable[[str, object], None]) -> None:
    """Run ``machine`` as a test; a divergence fails the rules it carries, and no others, and is
    recorded with the scenario or the script that reproduces it (:mod:`conformance.search.replay`)."""
    current = settings()
    try:
        run_state_machine_as_test(  # type: ignore[no-untyped-call,unused-ignore]
            machine, settings=settings(current, max_examples=min(current.max_examples, MAX_RUNS),
                                       stateful_step_count=min(current.stateful_step_count,
                                                               MAX_STEPS)))
    except Divergence as exc:
        found = [exc]
    except BaseExceptionGroup as group:
        divergences, rest = group.split(Divergence)
        if divergences is None or rest is not None:
            raise
        found = list(_leaves(divergences))
    else:
        return

    pytest.fail(report(found, adapter, impl_spec, record_property), pytrace=False)
