"""A whole trace on the wire: its events (:mod:`conformance.sandbox.wire`), its outcome, the mode left
current, the implementation's own warnings (its noise), the tensors whose building by the
suite ran something or raised (:class:`~spec.model.trace.Built`) and the calls handlers were
handed of functions outside the scenario's vocabulary (:class:`~spec.model.trace.Unlisted`).

The child encodes a trace with :func:`encode_trace`; the suite checks every field of it with
:func:`decode_trace`, raising :class:`~conformance.sandbox.wire.WireError` for anything else.
"""

from __future__ import annotations

from typing import Any

from spec.model.trace import Built, Event, Outcome, Raised, Returned, Role, Trace, Unlisted

from .wire import (
    WireError,
    choice,
    decode_event,
    decode_message,
    decode_value,
    encode_event,
    encode_message,
    encode_value,
    fields,
    flag,
    integer,
    items,
    optional_text,
    text,
)

__all__ = ["decode_built", "decode_noise", "decode_trace", "decode_unlisted", "encode_trace"]

_ROLES: tuple[Role, ...] = ("mode", "subclass", "submode")


def encode_trace(trace: Trace) -> dict[str, Any]:
    outcome = trace.outcome
    shown: dict[str, Any] = (
        {"t": "returned", "value": encode_value(outcome.value)} if isinstance(outcome, Returned)
        else {"t": "raised", "type": outcome.exc_type, "message": encode_message(outcome.message)})
    return {"events": [encode_event(e) for e in trace.events], "outcome": shown,
            "after": trace.after, "noise": [list(n) for n in trace.noise],
            "built": [[b.name, b.how, b.first, b.end, b.raised] for b in trace.built],
            "unlisted": [[u.who, u.role, u.func, u.at, u.made_by, u.count] for u in trace.unlisted]}


def decode_trace(value: Any, where: str = "the trace") -> Trace:
    t = fields(value, where, ("events", "outcome", "after", "noise", "built", "unlisted"))
    events: list[Event] = [decode_event(e, f"{where}.events[{i}]")
                           for i, e in enumerate(items(t["events"], f"{where}.events"))]
    kind = choice(t["outcome"].get("t") if isinstance(t["outcome"], dict) else None,
                  f"{where}.outcome.t", ("returned", "raised"))
    outcome: Outcome
    if kind == "returned":
        o = fields(t["outcome"], f"{where}.outcome", ("t", "value"))
        outcome = Returned(decode_value(o["value"], f"{where}.outcome.value"))
    else:
        o = fields(t["outcome"], f"{where}.outcome", ("t", "type", "message"))
        outcome = Raised(text(o["type"], f"{where}.outcome.type"),
                         decode_message(o["message"], f"{where}.outcome.message"))
    return Trace(tuple(events), outcome, optional_text(t["after"], f"{where}.after"),
                 noise=decode_noise(t["noise"], f"{where}.noise"),
                 built=decode_built(t["built"], f"{where}.built", len(events)),
                 unlisted=decode_unlisted(t["unlisted"], f"{where}.unlisted", len(events)))


def decode_noise(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    pairs = []
    for i, pair in enumerate(items(value, where)):
        if not isinstance(pair, list) or len(pair) != 2:
            raise WireError(f"{where}[{i}]: expected [category, text]")
        pairs.append((text(pair[0], f"{where}[{i}]"), text(pair[1], f"{where}[{i}]")))
    return tuple(pairs)


def decode_built(value: Any, where: str, events: int) -> tuple[Built, ...]:
    """The tensors of a trace of ``events`` events whose building ran something or raised:
    each ``[name, how, first, end, raised]`` with ``first <= end <= events``."""
    found = []
    for i, entry in enumerate(items(value, where, 1000)):
        if not isinstance(entry, list) or len(entry) != 5:
            raise WireError(f"{where}[{i}]: expected [name, how, first, end, raised]")
        first = integer(entry[2], f"{where}[{i}].first", 0, events)
        end = integer(entry[3], f"{where}[{i}].end", first, events)
        found.append(Built(text(entry[0], f"{where}[{i}].name", 100),
                           text(entry[1], f"{where}[{i}].how"), first, end,
                           flag(entry[4], f"{where}[{i}].raised")))
    return tuple(found)


def decode_unlisted(value: Any, where: str, events: int) -> tuple[Unlisted, ...]:
    """The calls handlers were handed of functions outside the scenario's vocabulary, in a
    trace of ``events`` events: each ``[who, role, func, at, made_by, count]`` with
    ``at <= events``, one per handler, function and maker."""
    found: list[Unlisted] = []
    seen: set[tuple[str, str, str, str | None]] = set()
    for i, entry in enumerate(items(value, where, 1000)):
        if not isinstance(entry, list) or len(entry) != 6:
            raise WireError(f"{where}[{i}]: expected [who, role, func, at, made_by, count]")
        role = choice(entry[1], f"{where}[{i}].role", _ROLES)
        call = Unlisted(text(entry[0], f"{where}[{i}].who", 100),
                        next(r for r in _ROLES if r == role),
                        text(entry[2], f"{where}[{i}].func", 200),
                        integer(entry[3], f"{where}[{i}].at", 0, events),
                        optional_text(entry[4], f"{where}[{i}].made_by", 200),
                        integer(entry[5], f"{where}[{i}].count", 1))
        key = (call.who, call.role, call.func, call.made_by)
        if key in seen:
            raise WireError(f"{where}[{i}]: a second entry for {call.who} handed {call.func}")
        seen.add(key)
        found.append(call)
    return tuple(found)
