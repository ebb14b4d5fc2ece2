"""The stack-generation profile (torch 1.13 and 2.x): what differs from the 2022 model.

Modes live on a thread-local stack; ``with mode:`` pushes and the exit pops the
top blindly; a mode is popped while its own handler runs and pushed back on
top afterwards. Everything else (ordering, ``types``, fall-through, the Python
path) is the 2022 model's, whose rule tags are translated to this generation's
rules at the end.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from typing import Literal

from . import messages as msg
from .context import Handler
from .engine import Engine
from .limits import Unspecified
from .raising import ModelRaise
from .scenario import Construct, Disable, Enter, Scenario, Step
from .trace import Constructed, HandlerRun, Message, Raised, Trace, WarningEmitted
from .values import ModeRef, SymValue

Version = Literal["1.13", "2.x"]

_GONE: tuple[str, ...] = ()
#: 2022 rules whose stack counterpart decides the same step, for both versions.
_COMMON: dict[str, tuple[str, ...]] = {
    "TFM_REENTRY_001": ("TFM_STACK_005",),
    "TFM_REENTRY_004": ("TFM_STACK_005",),
    "TFM_REENTRY_005": ("TFM_STACK_005",),
    "TFM_REENTRY_006": ("TFM_STACK_007",),
    "TFM_PUSH_001": ("TFM_STACK_001",),
    "TFM_PUSH_002": _GONE,
    "TFM_PUSH_003": ("TFM_STACK_002",),
    "TFM_PUSH_004": ("TFM_STACK_001",),
    "TFM_PUSH_007": ("TFM_STACK_015",),
    "TFM_PUSH_008": ("TFM_STACK_015",),
    "TFM_ERROR_006": _GONE,
}
_BY_VERSION: dict[Version, dict[str, tuple[str, ...]]] = {
    "2.x": {
        "TFM_DISABLE_002": ("TFM_STACK_011",),
        "TFM_DISABLE_003": ("TFM_STACK_011",),
        "TFM_DISABLE_005": ("TFM_STACK_011",),
        "TFM_SELF_002": ("TFM_STACK_014",),
        "TFM_ERROR_001": ("TFM_STACK_012",),
        "TFM_ERROR_002": ("TFM_STACK_012",),
    },
    "1.13": {"TFM_ERROR_002": ("TFM_STACK_013",)},
}


class StackEngine(Engine):
    """The stack profile; ``version`` selects torch 1.13's or 2.x's behaviour where they differ."""

    generation = "stack"

    def __init__(self, scenario: Scenario, version: Version = "2.x", release: str | None = None) -> None:
        self.version: Version = version
        self.stack: list[ModeRef] = []
        self.modes_off = False
        super().__init__(scenario, release)

    # The current mode is the top of the stack; 2.x's DisableTorchFunction keeps it from running.
    @property
    def current(self) -> ModeRef | None:
        return self.stack[-1] if self.stack else None

    @current.setter
    def current(self, value: ModeRef | None) -> None:
        self.stack = [] if value is None else [value]

    def active_mode(self) -> ModeRef | None:
        return None if self.modes_off else self.current

    def run(self) -> Trace:
        return self.translate(super().run())

    def translate(self, trace: Trace) -> Trace:
        """The 2022 model's rule tags in ``trace`` turned into this generation's."""
        return _translate(trace, {**_COMMON, **_BY_VERSION[self.version]})

    # -- threads --------------------------------------------------------------

    def thread_state(self) -> object:
        return (list(self.stack), self.disabled, self.modes_off)

    def new_thread(self) -> None:
        self.stack, self.disabled, self.modes_off = [], False, False

    def restore_thread(self, state: object) -> None:
        self.stack, self.disabled, self.modes_off = state  # type: ignore[misc]

    # -- set-up ---------------------------------------------------------------

    def construct_upfront(self, name: str) -> None:
        self.events.append(Constructed(name, "-", 0, ("TFM_STACK_015",)))

    @contextmanager
    def install(self, step: Step) -> Iterator[tuple[str, ...]]:
        if isinstance(step, Enter):
            with self.entered(ModeRef("inst", step.mode, 0)) as rules:
                yield rules
        elif isinstance(step, Disable):
            if step.subclass_only and self.version == "1.13":
                raise Unspecified("torch 1.13 has no DisableTorchFunctionSubclass")
            guard = self.disable() if step.subclass_only else self.disable_torch_function()
            with guard:
                yield ("TFM_STACK_011",) if step.subclass_only else self._disable_rules()
        elif isinstance(step, Construct):
            self.events.append(Constructed(step.mode, "-", 0, ("TFM_STACK_015",)))
            yield ("TFM_STACK_015",)
        else:
            raise Unspecified(f"{type(step).__name__} is not a step of the stack generation")

    def _disable_rules(self) -> tuple[str, ...]:
        return ("TFM_STACK_010",) if self.version == "2.x" else ("TFM_DISABLE_002",)

    @contextmanager
    def entered(self, mode: ModeRef) -> Iterator[tuple[str, ...]]:
        """``with mode:``: push (TFM_STACK_001); the exit pops the top blindly (TFM_STACK_002)."""
        rules = ("TFM_STACK_001", "TFM_STACK_004") if mode in self.stack else ("TFM_STACK_001",)
        self.stack.append(mode)
        try:
            yield rules
        finally:
            if not self.stack:
                raise ModelRaise("RuntimeError", self.texts.message("empty-stack"), ("TFM_STACK_003",))
            self.stack.pop()

    @contextmanager
    def push(self, mode_name: str, how: str = "ctor") -> Iterator[ModeRef]:
        """``with ModeClass():`` inside a handler: a new instance, entered."""
        mode = ModeRef("inst", mode_name, next(self._serial))
        self.events.append(Constructed(mode_name, "-", 0, ("TFM_STACK_015",)))
        with self.entered(mode):
            yield mode

    @contextmanager
    def enable(self, target: ModeRef | None, replace: ModeRef | None,
               ignore_preexisting: bool) -> Iterator[tuple[str, ...]]:
        raise Unspecified("enable_torch_function_mode is not in the stack generation")
        yield ()  # pragma: no cover

    def disable_torch_function(self) -> AbstractContextManager[None]:
        return self._disable_all() if self.version == "2.x" else self.disable()

    @contextmanager
    def _disable_all(self) -> Iterator[None]:
        saved = self.disabled, self.modes_off
        self.disabled = self.modes_off = True
        try:
            yield
        finally:
            self.disabled, self.modes_off = saved

    # -- dispatch ---------------------------------------------------------------

    def call_mode(self, mode: ModeRef, h: Handler) -> SymValue:
        decl = self.sc.mode_named(mode.name)
        if decl is None:
            raise Unspecified("only mode objects can be on the stack")
        if decl.classmethod_handler and (self.version == "1.13" or not h.python):
            rule = "TFM_STACK_009" if self.version == "1.13" else "TFM_STACK_008"
            reach = self.reach_rules(mode, h)
            self._note(f"{mode.label}'s __torch_function__ is a classmethod: reaching it raises",
                       *reach)
            raise ModelRaise("RuntimeError", self.texts.message("classmethod-mode"), (rule,),
                             if_returned=reach)  # a value instead: it never reached the mode
        popped = self.stack.pop()  # TFM_STACK_005: off the stack while its handler runs
        try:
            who = (*self._who_rules(mode, h), *self._stack_origin_rules())
            self._run("mode", mode.label, h, None, who, ("TFM_TYPES_002",),
                      ("TFM_STACK_005", "TFM_STACK_006"))
            return self.perform(decl.behaviour.action_for(h.func), h.bind("mode", mode.name, mode))
        finally:
            self.stack.append(popped)  # TFM_STACK_006: back on top of the stack as it is now

    def mode_super(self, mode: ModeRef) -> SymValue:
        raise ModelRaise("NotImplementedError", msg.plain(""), ("TFM_ERROR_007",))

    def _stack_origin_rules(self) -> tuple[str, ...]:
        return {"mode": ("TFM_STACK_005",), "reenter": ("TFM_STACK_007",)}.get(self.origin.kind, ())

    @contextmanager
    def reenter(self, h: Handler) -> Iterator[None]:
        """TFM_STACK_007: ``with self:`` inside the handler."""
        if h.mode is None:
            raise Unspecified("only a mode handler can re-enter itself")
        with self.entered(h.mode):
            yield

    def no_implementation(self, func: str, types: tuple[str, ...], python: bool) -> Message:
        if python:
            return super().no_implementation(func, types, python)
        if self.version == "1.13":
            sentinel = "@sentinel" if self.active_mode() is not None else None
            return msg.no_implementation(self.texts, func, types, sentinel, python=False)
        if self.texts.known("multiple-dispatch-failed"):
            return msg.multiple_dispatch_failed(self.texts, func, types, self._label(self.current))
        if self.texts.known("no-implementation-native"):  # 2.0: the 'no implementation found' form
            return msg.no_implementation(self.texts, func, types, self._label(self.current), python=False)
        return self.texts.message("multiple-dispatch-failed")  # which form is not established

    def warn_plain_method(self, python: bool) -> None:
        super().warn_plain_method(python)
        if not python and self.version == "2.x":
            # TFM_STACK_014: at most once per process, so the model cannot say whether it shows.
            last = self.events[-1]
            assert isinstance(last, WarningEmitted)
            self.events[-1] = replace(last, optional=True)


def _translate(trace: Trace, table: dict[str, tuple[str, ...]]) -> Trace:
    def tr(rules: tuple[str, ...]) -> tuple[str, ...]:
        out: list[str] = []
        for rule in rules:
            out.extend(table.get(rule, (rule,)))
        if any(r.startswith("TFM_ENABLE_") or r.startswith("TFM_SUBMODE_") for r in out):
            out = [r for r in out if not r.startswith(("TFM_ENABLE_", "TFM_SUBMODE_"))]
        return tuple(dict.fromkeys(out))

    events = []
    for event in trace.events:
        if isinstance(event, HandlerRun):
            event = replace(event, rules=tr(event.rules),
                            why=tuple((name, tr(rules)) for name, rules in event.why))
        elif isinstance(event, WarningEmitted):
            event = replace(event, rules=tr(event.rules), when=tr(event.when))
        else:
            event = replace(event, rules=tr(event.rules))
        events.append(event)
    def raised(outcome: Raised) -> Raised:
        message = outcome.message
        return replace(outcome, rules=tr(outcome.rules), if_returned=tr(outcome.if_returned),
                       message=replace(message, rules=tuple(tr(r) for r in message.rules)))

    outcome = (raised(trace.outcome) if isinstance(trace.outcome, Raised) else replace(
        trace.outcome, rules=tr(trace.outcome.rules),
        if_raised=tuple(raised(alt) for alt in trace.outcome.if_raised)))
    notes = tuple((i, replace(note, rules=tr(note.rules))) for i, note in trace.notes)
    return Trace(tuple(events), outcome, trace.after, notes, tr(trace.after_rules))


def predict_stack(scenario: Scenario, version: Version = "2.x", release: str | None = None) -> Trace:
    return StackEngine(scenario, version, release).run()


__all__ = ["Raised", "StackEngine", "Version", "predict_stack"]
