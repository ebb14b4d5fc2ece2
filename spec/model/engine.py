"""The model: predicts the trace of a scenario under the 2022 design (PR #75154).

Each step names the rules that decide it. State is explicit: the current
mode, the ``inner`` link of every mode object, and whether subclass handling
is disabled. The stack generation is a second profile that overrides the
few steps where the designs differ (:mod:`spec.model.stack`).

The engine is built in layers, each a class over the one below it:
:mod:`.state` (what a prediction knows), :mod:`.steps` (set-up steps),
:mod:`.handlers` (running a handler), :mod:`.dispatch` (one call) and this
module (a whole scenario); :mod:`.prediction` picks the engine of a scenario's generation.
"""

from __future__ import annotations

import itertools

from .dispatch import Dispatch
from .functions import FORMS, tensor_data
from .raising import ModelRaise
from .scenario import (
    Const,
    Disable,
    Enable,
    Enter,
    ListArg,
    Push,
    SetRaw,
    TensorArg,
)
from .trace import (
    Constructed,
    HandlerRun,
    Installed,
    Note,
    Outcome,
    Raised,
    Settled,
    Trace,
)
from .values import ModeRef, SymTensor, SymValue


class Engine(Dispatch):
    """The 2022 profile: a whole scenario, from its set-up steps to the call's outcome."""

    def run(self) -> Trace:
        outcome: Outcome
        for name in self.sc.instance_modes():
            self.construct_upfront(name)
        try:
            value = self._enter(0)
            outcome = self.returned(value)
        except ModelRaise as exc:
            outcome = Raised(exc.exc_type, exc.message, exc.rules, exc.if_returned)
        if self.sc.modes or any(isinstance(e, HandlerRun) for e in self.events):
            # A handler is in reach: it is handed the calls above and no call of the
            # implementation's own making (what a run shows as an unlisted call).
            self.notes.insert(0, (0, Note("the handlers are handed these calls and no other "
                                          "the implementation makes itself", ("TFM_REACH_010",))))
        return Trace(tuple(self.events), outcome, self._label(self.current), tuple(self.notes),
                     self.after_rules(isinstance(outcome, Raised)))

    def translate(self, trace: Trace) -> Trace:
        """``trace`` with its rule tags in this generation's rules (2022: as they are)."""
        return trace

    def after_rules(self, raised: bool) -> tuple[str, ...]:
        """What restores the current mode once every set-up step has exited."""
        by_step = {Push: "TFM_PUSH_003", Enable: "TFM_ENABLE_001", SetRaw: "TFM_ERROR_006",
                   Disable: "TFM_DISABLE_006", Enter: "TFM_STACK_002"}
        rules = [by_step[type(s)] for s in self.sc.setup if type(s) in by_step]
        if any(isinstance(e, HandlerRun) and e.role != "subclass" for e in self.events):
            rules.append("TFM_REENTRY_003" if raised else "TFM_REENTRY_002")
        return tuple(dict.fromkeys(rules)) or ("TFM_REENTRY_002",)

    def settled_rules(self, raised: bool) -> tuple[str, ...]:
        """What puts the current mode back once the call is over."""
        if not any(isinstance(e, HandlerRun) and e.role != "subclass" for e in self.events):
            return ("TFM_ENABLE_001", "TFM_PUSH_003") if raised else ("TFM_REENTRY_002",)
        return ("TFM_REENTRY_003", "TFM_ERROR_005") if raised else ("TFM_REENTRY_002",)

    def construct_upfront(self, name: str) -> None:
        """2022: ``Mode(inner=None)`` for each mode used as an object."""
        self.inner[ModeRef("inst", name, 0)] = None
        self.events.append(Constructed(name, None, 0, ("TFM_PUSH_008",)))

    def _enter(self, index: int) -> SymValue:
        if index == len(self.sc.setup):
            if self.sc.call is None:
                return None
            try:
                value = self._do_call()
            except ModelRaise:
                rules = self.settled_rules(True)
                form = FORMS.get(self.sc.call.func)
                if form is not None and form.operator:
                    # The exception ends the expression: an operator that caught it would go on
                    # (to the reflected method) where the call should settle.
                    rules = ("TFM_SYNTAX_002",)
                self.events.append(Settled(self._label(self.current), rules))
                raise
            self.events.append(Settled(self._label(self.current), self.settled_rules(False)))
            return value
        step = self.sc.setup[index]
        with self.install(step) as rules:
            self.events.append(Installed(index, self._label(self.current), rules))
            return self._enter(index + 1)

    def _do_call(self) -> SymValue:
        call = self.sc.call
        if call is None:
            return None
        counter = itertools.count()

        def materialize(arg: object) -> SymValue:
            if isinstance(arg, TensorArg):
                k = next(counter)
                return SymTensor(arg.cls or "Tensor", tensor_data(k), f"x{k}")
            if isinstance(arg, ListArg):
                return [materialize(item) for item in arg.items]
            assert isinstance(arg, Const)
            return arg.value

        args = [materialize(a) for a in call.args]
        kwargs = {key: materialize(a) for key, a in call.kwargs}
        if not call.thread:
            return self.call(call.func, args, kwargs)
        # TFM_THREAD_001..003: a new thread starts with no mode and subclass handling on.
        saved = self.thread_state()
        self.new_thread()
        self.value_rules.update(("TFM_THREAD_001", "TFM_THREAD_002", "TFM_THREAD_003"))
        try:
            return self.call(call.func, args, kwargs)
        finally:
            self.restore_thread(saved)

    def thread_state(self) -> object:
        return (self.current, self.disabled)

    def new_thread(self) -> None:
        self.current, self.disabled = None, False

    def restore_thread(self, state: object) -> None:
        self.current, self.disabled = state  # type: ignore[misc]
