"""What a reproduction script prints, as lines: for comparing a script's output with a trace."""

from __future__ import annotations

import re

from spec.model.trace import (
    Constructed,
    Event,
    HandlerRun,
    Installed,
    Raised,
    Settled,
    TensorValue,
    Trace,
    Unlisted,
    Value,
    WarningEmitted,
)

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def _show(value: Value) -> str:
    if isinstance(value, TensorValue):
        return f"{value.cls}({list(value.data)!r})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, str):
        return value
    return repr(value)


def event_line(event: Event) -> str:
    """The line a snippet prints for ``event``."""
    if isinstance(event, HandlerRun):
        line = (f"handler {event.who} ({event.role}) for {event.func}: "
                f"types={event.types!r}, kwargs={event.kwargs!r}, current={event.current!r}")
        return line if event.bound is None else f"{line}, bound to {event.bound}"
    if isinstance(event, Installed):
        return f"set-up step {event.index} entered: current={event.current!r}"
    if isinstance(event, Constructed):
        return f"constructed {event.who}: inner={event.inner!r}, {event.nargs} argument(s)"
    if isinstance(event, Settled):
        return f"call settled: current={event.current!r}"
    if isinstance(event, WarningEmitted):
        return f"warning {event.category}: {event.message.render()}"
    return repr(event)


def handed_line(call: Unlisted) -> str:
    """The line a snippet prints for a call a handler was handed that the scenario did not make."""
    return f"handler {call.who} ({call.role}) handed {call.func}: a call the scenario did not make"


def outcome_line(trace: Trace) -> str:
    """The line a snippet prints for the outcome of ``trace``."""
    outcome = trace.outcome
    if isinstance(outcome, Raised):
        return f"raised {outcome.exc_type}: {outcome.message.render()}"
    return f"returned {_show(outcome.value)}"


def describe(trace: Trace) -> list[str]:
    """The lines a snippet prints for a run that produced ``trace`` (addresses blanked)."""
    lines = [event_line(event) for event in trace.events]
    # a call no one but the implementation made, where the script prints it: before the event
    # that came after it, once per handler and function (a grouped entry is the first call)
    # (the entries come in the order of their first calls: inserted from the last)
    for call in reversed([c for c in trace.unlisted if c.made_by is None]):
        lines.insert(call.at, handed_line(call))
    lines.append(outcome_line(trace))
    lines.append(f"current mode afterwards: {trace.after!r}")
    return [_ADDRESS.sub("0x?", line) for line in lines]
