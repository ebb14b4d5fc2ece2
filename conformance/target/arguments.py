"""The arguments a handler received, described by structure (TFM_ARGS_002).

The runner keeps what each handler of a run received and, once the run is over, describes it
here: an object the scenario built for its call by its name (``x0``, ``x1``...), a constant by
its type and value, a list or a tuple by its items, anything else by its type's name
(:data:`spec.model.trace.ArgSeen`). Only exact built-in types are looked into (a subclass of
``list`` or ``int`` is the implementation's code, and so "other"): describing an argument
runs none of the implementation's code but ``type()`` and ``id()``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from spec.model.trace import ArgSeen, Event, HandlerRun

from ..base.safe import name_of

#: How deep a description looks into lists and tuples, and how many items and characters it keeps.
MAX_DEPTH, MAX_ITEMS, MAX_CHARS = 8, 100, 200
#: Integers beyond this are described by type only (the wire carries integers up to 2**62).
MAX_INT = 2**62


def describe(value: Any, idents: dict[int, str], depth: int = 0) -> ArgSeen:
    """How ``value`` shows among a handler's arguments (``idents``: the call's objects by id)."""
    ident = idents.get(id(value))
    if ident is not None:
        return ("obj", ident)
    kind = type(value)
    if value is None:
        return ("none", None)
    if kind is bool:
        return ("bool", bool(value))
    if kind is int:
        return ("int", value) if -MAX_INT <= value <= MAX_INT else ("other", "int")
    if kind is float:
        return ("float", value)
    if kind is str:
        return ("str", value[:MAX_CHARS])
    if value is Ellipsis:
        return ("ellipsis", None)
    if kind is slice:  # its ends are the implementation's objects too: described the same way
        return ("slice", tuple(describe(v, idents, depth + 1)
                               for v in (value.start, value.stop, value.step)))
    if kind is list or kind is tuple:
        if depth >= MAX_DEPTH or len(value) > MAX_ITEMS:
            return ("other", f"{kind.__name__} (too deep or too long to describe)")
        return (kind.__name__, tuple(describe(v, idents, depth + 1) for v in value))
    return ("other", name_of(kind))


def describe_args(args: Any, idents: dict[int, str]) -> tuple[ArgSeen, ...]:
    """``args`` item by item; an ``args`` that is no tuple is one description that says so
    (it matches no prediction)."""
    if type(args) is not tuple or len(args) > MAX_ITEMS:
        return (("other", f"args is a {name_of(type(args))}, not a tuple of arguments"),)
    return tuple(describe(a, idents) for a in args)


def describe_kwargs(kwargs: Any, idents: dict[int, str]) -> tuple[tuple[str, ArgSeen], ...] | None:
    """``kwargs``'s items sorted by key; ``None`` for anything but a dict of str keys."""
    if type(kwargs) is not dict or len(kwargs) > MAX_ITEMS:
        return None
    if not all(type(k) is str for k in kwargs):
        return None
    return tuple((k[:MAX_CHARS], describe(kwargs[k], idents)) for k in sorted(kwargs))


def described_events(events: Sequence[Event], received: Sequence[tuple[int, Any, Any]],
                     idents: dict[int, str]) -> tuple[Event, ...]:
    """``events`` with each handler run's ``args`` and ``kwvalues`` filled in from
    ``received`` (``(event index, args, kwargs)`` per handler run)."""
    out = list(events)
    for index, args, kwargs in received:
        event = out[index] if 0 <= index < len(out) else None
        if isinstance(event, HandlerRun):  # built whole: dataclasses.replace costs more
            out[index] = HandlerRun(event.who, event.role, event.func, event.types, event.kwargs,
                                    event.current, event.bound, event.rules, event.why,
                                    describe_args(args, idents), describe_kwargs(kwargs, idents))
    return tuple(out)
