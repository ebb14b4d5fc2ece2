"""Compares an observed trace with the model's prediction and says how they differ."""

from __future__ import annotations

import math
import re
from dataclasses import replace

from spec.model.trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    NONE_PASSED,
    ArgSeen,
    Event,
    HandlerRun,
    Message,
    Outcome,
    Raised,
    Returned,
    TensorValue,
    Trace,
    Unlisted,
    Value,
    WarningEmitted,
    same_arg,
)

Naming = dict[tuple[str, str], str]


def message_pattern(message: Message, naming: Naming) -> re.Pattern[str]:
    """A regex for the text ``message`` renders to; objects without a known repr match anything."""
    parts: list[str] = []
    for part in message.parts:
        if isinstance(part, str):
            parts.append(re.escape(part))
        elif (part.kind, part.name) in naming:
            parts.append(re.escape(naming[(part.kind, part.name)]))
        elif part.kind == "text":  # a text the release's table does not establish
            parts.append(r".*")
        else:
            parts.append(r"<.*?>" if part.kind != "func" else r"[\w.]+")
    return re.compile("".join(parts), re.DOTALL)


def message_matches(message: Message, naming: Naming, text: str, whole: bool) -> bool:
    """Whether ``text`` is what ``message`` renders to (``whole``), or starts with it: as
    :func:`message_pattern` matches, without compiling a pattern where every part is known
    (an object's repr holds its address, so each scenario's patterns would be new ones)."""
    literal: list[str] = []
    for part in message.parts:
        known = part if isinstance(part, str) else naming.get((part.kind, part.name))
        if known is None:
            pattern = message_pattern(message, naming)
            return (pattern.fullmatch(text) if whole else pattern.match(text)) is not None
        literal.append(known)
    rendered = "".join(literal)
    return text == rendered if whole else text.startswith(rendered)


def differing_part(message: Message, text: str, naming: Naming) -> int | None:
    """The index of the first part of ``message`` that ``text`` departs from (``None``: none does)."""
    for end in range(1, len(message.parts) + 1):
        if message_pattern(Message(message.parts[:end]), naming).match(text) is None:
            return end - 1
    return None


def _norm(event: Event) -> Event:
    if isinstance(event, HandlerRun):
        role = "subclass" if event.role == "submode" else event.role
        return replace(event, role=role, rules=())
    return replace(event, rules=())


def args_match(expected: tuple[ArgSeen, ...] | None, observed: tuple[ArgSeen, ...] | None) -> bool:
    """TFM_ARGS_002: ``args`` exactly as predicted (``None`` predicted: nothing to compare)."""
    if expected is None:
        return True
    return observed is not None and len(expected) == len(observed) and all(
        same_arg(e, o) for e, o in zip(expected, observed, strict=True))


def kwvalues_match(expected: tuple[tuple[str, ArgSeen], ...] | None,
                   observed: tuple[tuple[str, ArgSeen], ...] | None) -> bool:
    """TFM_ARGS_002: every keyword the prediction names reaches the handler with its value.

    Which keys ``kwargs`` has (and whether it is a dict at all) is the ``kwargs`` field's to
    say: there the rules allow what they allow (a Python-path function's own keywords,
    TFM_ARGS_004; None or ``{}`` for a spread call, TFM_ARGS_003)."""
    if not expected:
        return True
    seen = dict(observed or ())
    return all(key in seen and same_arg(value, seen[key]) for key, value in expected)


def _field_matches(expected: HandlerRun, observed: HandlerRun, name: str) -> bool:
    if name == "args":
        return args_match(expected.args, observed.args)
    if name == "kwvalues":
        return kwvalues_match(expected.kwvalues, observed.kwvalues)
    exp_value, obs_value = getattr(expected, name), getattr(observed, name)
    if name == "func":
        return bool(exp_value == obs_value or obs_value in expected.also)
    if name == "role":
        return (exp_value if exp_value != "submode" else "subclass") == (
            obs_value if obs_value != "submode" else "subclass")
    if name == "kwargs" and exp_value == ANY_DICT:
        return obs_value not in (None, NONE_PASSED)
    if name == "kwargs" and exp_value == NONE_OR_EMPTY:  # a spread call: None either way, or {}
        return obs_value in (None, NONE_PASSED, ())
    return bool(exp_value == obs_value)


def event_matches(expected: Event, observed: Event, naming: Naming, only: str | None = None) -> bool:
    """Whether ``observed`` is the event ``expected`` predicts (``only``: compare one field)."""
    if isinstance(expected, HandlerRun) and isinstance(observed, HandlerRun):
        if only is not None:
            return _field_matches(expected, observed, only)
        # What ``all(_field_matches(...) for f in FIELDS)`` says, field by field (it runs once
        # for every event of every scenario).
        return (expected.who == observed.who
                and (expected.func == observed.func or observed.func in expected.also)
                and expected.types == observed.types and expected.current == observed.current
                and expected.bound == observed.bound
                and (expected.role == observed.role or _field_matches(expected, observed, "role"))
                and _field_matches(expected, observed, "kwargs")
                and args_match(expected.args, observed.args)
                and kwvalues_match(expected.kwvalues, observed.kwvalues))
    if isinstance(expected, WarningEmitted):
        if not isinstance(observed, WarningEmitted) or expected.category != observed.category:
            return False
        text = observed.message.render()
        # Native warnings may carry a suffix such as "(Triggered internally at ...)".
        return message_matches(expected.message, naming, text, whole=False)
    return _norm(expected) == _norm(observed)


def values_equal(expected: Value, observed: Value) -> bool:
    if isinstance(expected, TensorValue):
        return (isinstance(observed, TensorValue) and expected.cls == observed.cls
                and len(expected.data) == len(observed.data)
                and all(math.isclose(a, b, rel_tol=1e-6, abs_tol=1e-6)
                        for a, b in zip(expected.data, observed.data, strict=False)))
    if isinstance(expected, tuple):
        return (isinstance(observed, tuple) and len(expected) == len(observed)
                and all(values_equal(a, b) for a, b in zip(expected, observed, strict=False)))
    return type(expected) is type(observed) and expected == observed


def align(expected: Trace, observed: Trace, naming: Naming) -> Trace:
    """``expected`` without the optional warnings that the observation does not show (its
    notes moved to the same events as before)."""
    kept: list[Event] = []
    moved: list[int] = []  # per event of ``expected``, its index once aligned
    j = 0
    for event in expected.events:
        moved.append(len(kept))
        obs = observed.events[j] if j < len(observed.events) else None
        if isinstance(event, WarningEmitted) and event.optional and (
                obs is None or not event_matches(event, obs, naming)):
            continue
        kept.append(event)
        j += 1
    moved.append(len(kept))
    notes = tuple((moved[i], note) for i, note in expected.notes)
    return replace(expected, events=tuple(kept), notes=notes)


#: A handler run's fields, in the order a divergence is looked for.
FIELDS = ("who", "role", "types", "func", "kwargs", "args", "kwvalues", "current", "bound")


def first_divergence(expected: Trace, observed: Trace,
                     naming: Naming) -> tuple[int, Event | None, Event | None] | None:
    """The first pair of events that differ, as ``(index, expected, observed)`` (one side
    ``None`` past its end); ``None`` when every event matches. ``expected`` is taken as
    given: align it first (:func:`align`)."""
    for i in range(max(len(expected.events), len(observed.events))):
        exp = expected.events[i] if i < len(expected.events) else None
        obs = observed.events[i] if i < len(observed.events) else None
        if exp is None or obs is None or not event_matches(exp, obs, naming):
            return i, exp, obs
    return None


def differing_field(expected: HandlerRun, observed: HandlerRun, naming: Naming) -> str | None:
    """The first field (of :data:`FIELDS`) in which two handler runs differ."""
    return next((f for f in FIELDS if not event_matches(expected, observed, naming, only=f)), None)


def reordered(expected: HandlerRun, observed: HandlerRun) -> bool:
    """Whether ``observed`` is another overloaded argument's handler of the same dispatch, run
    where ``expected``'s should: the same function, the same types in another order, and a
    handler that the types name (the implementation ordered the arguments differently)."""
    return (expected.role != "mode" and observed.role != "mode" and expected.who != observed.who
            and observed.who in expected.types and expected.func == observed.func
            and expected.types != observed.types
            and sorted(expected.types) == sorted(observed.types))


def outcome_differs(expected: Outcome, observed: Outcome, naming: Naming) -> bool:
    """Whether ``observed`` is not the outcome ``expected`` predicts: another value, or not
    the exception of that type with a text that matches the predicted one."""
    if isinstance(expected, Returned):
        return not isinstance(observed, Returned) or not values_equal(expected.value, observed.value)
    text = observed.message.render() if isinstance(observed, Raised) else ""
    return not (isinstance(observed, Raised) and observed.exc_type == expected.exc_type
                and message_matches(expected.message, naming, text, whole=True))


def wraps(expected: Raised, observed: Outcome, naming: Naming) -> bool:
    """Whether ``observed`` is the predicted exception wrapped in another: another type whose
    text is the predicted type's name, ``": "`` and the predicted text (torch.compile's
    ``InternalTorchDynamoError("TypeError: no gradient here")`` for a handler's
    ``TypeError("no gradient here")``). Raised early, that is still the predicted exception,
    come out otherwise: the divergence of the rules that say how it comes out (the outcome's),
    not of the steps it cut short."""
    if not isinstance(observed, Raised) or observed.exc_type == expected.exc_type:
        return False
    prefix = f"{expected.exc_type}: "
    text = observed.message.render()
    return text.startswith(prefix) and message_matches(expected.message, naming,
                                                       text[len(prefix):], whole=True)


def unexplained(expected: Trace, observed: Trace) -> tuple[Unlisted, ...]:
    """The calls a handler was handed, of functions outside the scenario's vocabulary, that
    the suite did not make and that ``expected`` does not accept (an excused divergence of
    TFM_REACH_010 accepts its handler and function; the model predicts none), in the order
    they came."""
    accepted = {call.key for call in expected.unlisted}
    return tuple(call for call in observed.unlisted
                 if call.made_by is None and call.key not in accepted)


def differences(expected: Trace, observed: Trace, naming: Naming) -> list[str]:
    """Human-readable differences; empty when the implementation did what the model predicts."""
    expected = align(expected, observed, naming)
    out: list[str] = []
    for i in range(max(len(expected.events), len(observed.events))):
        exp = expected.events[i] if i < len(expected.events) else None
        obs = observed.events[i] if i < len(observed.events) else None
        if exp is None or obs is None or not event_matches(exp, obs, naming):
            out.append(f"event {i}: expected {show_event(exp)}, observed {show_event(obs)}")
            break  # later events are knock-on effects
    for extra in unexplained(expected, observed):
        out.append(f"after event {extra.at}: {extra.who} ({extra.role}) handed {extra.func}, "
                   "a call neither the scenario nor the suite made")
    eo, oo = expected.outcome, observed.outcome
    if outcome_differs(eo, oo, naming):
        want = (f"return {eo.value!r}" if isinstance(eo, Returned)
                else f"{eo.exc_type}({eo.message.render(naming)!r})")
        out.append(f"outcome: expected {want}, observed {show_outcome(oo)}")
    if expected.after != observed.after:
        out.append(f"after the scenario: expected current mode {expected.after!r}, "
                   f"observed {observed.after!r}")
    return out


def show_event(event: Event | None) -> str:
    """An event as a failure shows it (its rules left out), or "nothing"."""
    if event is None:
        return "nothing"
    if isinstance(event, WarningEmitted):
        return f"{event.category}({event.message.render()!r})"
    return repr(_norm(event))


def show_outcome(o: Returned | Raised) -> str:
    """An outcome as a failure shows it: ``return VALUE`` or ``Type('text')``."""
    if isinstance(o, Returned):
        return f"return {o.value!r}"
    return f"{o.exc_type}({o.message.render()!r})"
