"""Compiled against eager: what a compiled run must show, and the rules it breaks where it does not.

Under ``--compile`` a scenario runs twice in the same process: as eager code and inside
``torch.compile``. Eager torch is the oracle of the compiled run, and the model says which
rules decide each step. :func:`reference` builds that oracle: the model's trace with every
divergence of the eager run absorbed (each field, event and outcome as eager showed it, the
rules the model attaches to it kept), and where the rules leave latitude (``kwargs`` may be
``None`` or ``{}``), what eager chose. A compiled run that departs from it departs from eager,
and breaks the rules of that step: a Dynamo divergence. Where the eager run's trace differs
from the model's in shape (an event missing or added), the model cannot say which rules
decide what follows; the compiled run is then compared with the eager trace itself, and a
departure is blamed on the rules the eager run's own divergence concerns.
"""

from __future__ import annotations

from dataclasses import replace

from spec.model.scenario import Scenario
from spec.model.trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    Event,
    HandlerRun,
    Message,
    MessagePart,
    Outcome,
    Raised,
    Ref,
    Trace,
    WarningEmitted,
)

from .compare import Naming
from .comparison import Comparison, attribute, compare_traces
from .excusal import absorb

_MAX_ROUNDS = 200


#: What stands for a RecursionError's text in the reference: the text says where the limit was
#: hit (eager's recursion can end in the suite's own recording, "while encoding a JSON object";
#: compiled code ends elsewhere), which no rule decides; a Ref of kind text matches any text.
ANY_RECURSION_TEXT = Message((Ref("text", "where the recursion limit was hit"),))


def _outcome(outcome: Outcome, naming: Naming) -> Outcome:
    """A raised outcome's message as the reference compares it (see :func:`templated`); a
    RecursionError's text matches any text."""
    if not isinstance(outcome, Raised):
        return outcome
    if outcome.exc_type == "RecursionError":
        return replace(outcome, message=replace(ANY_RECURSION_TEXT, rules=outcome.message.rules))
    return replace(outcome, message=templated(outcome.message, naming))


def templated(message: Message, naming: Naming) -> Message:
    """``message`` with the text of each mode object (its repr carries an address) replaced
    by a reference to it, so that it matches the same message of another run."""
    if len(message.parts) != 1 or not isinstance(message.parts[0], str):
        return message
    parts: list[MessagePart] = [message.parts[0]]
    named = sorted(((v, k) for k, v in naming.items() if k[0] == "mode" and " at 0x" in v),
                   key=lambda item: -len(item[0]))
    for text, (kind, name) in named:
        out: list[MessagePart] = []
        for part in parts:
            if not isinstance(part, str) or text not in part:
                out.append(part)
                continue
            pieces = part.split(text)
            for i, piece in enumerate(pieces):
                if i:
                    out.append(Ref(kind, name))  # type: ignore[arg-type]
                if piece:
                    out.append(piece)
        parts = out
    return Message(tuple(parts), message.rules)


def _pinned(ref: Event, seen: Event, naming: Naming) -> Event:
    """The reference event ``ref`` (which ``seen`` matches) with what eager chose where the
    rules allow more than one thing, and with eager's own texts."""
    if isinstance(ref, HandlerRun) and isinstance(seen, HandlerRun) and ref.kwargs in (
            ANY_DICT, NONE_OR_EMPTY):
        return replace(ref, kwargs=seen.kwargs)
    if isinstance(ref, WarningEmitted) and isinstance(seen, WarningEmitted):
        plain = len(ref.message.parts) == 1 and isinstance(ref.message.parts[0], str)
        return replace(ref, message=templated(seen.message, naming)) if plain else ref
    return ref


def reference(expected: Trace, eager: Trace, naming: Naming,
              first: Comparison | None = None) -> Trace | None:
    """What the compiled run must show (see the module's docstring); ``None`` when the eager
    trace differs from the model's in shape. ``first``: the comparison of ``expected`` with
    ``eager``, where the caller has made it."""
    comparison = first if first is not None else compare_traces(None, expected, eager, naming)
    for _ in range(_MAX_ROUNDS):
        if not comparison:
            break
        following = absorb(comparison)
        if following is None:
            return None
        comparison = compare_traces(None, following, eager, naming)
    else:
        return None
    current = comparison.expected  # aligned with the eager trace
    events = tuple(_pinned(ref, seen, naming) for ref, seen in zip(current.events, eager.events,
                                                                      strict=False))
    return replace(current, events=events, outcome=_outcome(current.outcome, naming), notes=())


def reordered_reference(predicted: Trace, eager: Trace, naming: Naming) -> Trace:
    """The reference for a compiled run that ordered a dispatch's overloaded arguments
    otherwise (an excused ordering divergence, where the eager run showed the model's prediction
    step for step): the model's prediction for that order, with
    eager's choice where the rules leave latitude, taken from eager's run of the same handler
    for the same function."""
    runs = [e for e in eager.events if isinstance(e, HandlerRun)]

    def pin(event: Event) -> Event:
        if not isinstance(event, HandlerRun):
            return event
        seen = next((r for r in runs if r.who == event.who and r.func == event.func), None)
        return _pinned(event, seen, naming) if seen is not None else event

    return replace(predicted, events=tuple(pin(e) for e in predicted.events),
                   outcome=_outcome(predicted.outcome, naming))


def _recursed(trace: Trace) -> bool:
    return isinstance(trace.outcome, Raised) and trace.outcome.exc_type == "RecursionError"


def to_common_depth(eager: Trace, compiled: Trace) -> tuple[Trace, Trace]:
    """Both runs with the same number of repetitions, where both ended in a RecursionError.

    How many times a handler runs before Python's recursion limit is hit depends on the frames
    beneath the call, and compiling changes them (torch 2.13.0: a mode that returns
    NotImplemented for ``Tensor.neg`` inside ``DisableTorchFunctionSubclass`` runs 498 times
    eagerly and 497 compiled, then a RecursionError either way); no rule decides that number.
    Where the longer run differs from the shorter only by more repetitions of the event before
    their first difference, those are left out of it; what ran, in which order, and how the
    call ended is still compared. Otherwise both are returned as they are."""
    if not (_recursed(eager) and _recursed(compiled)) or len(eager.events) == len(compiled.events):
        return eager, compiled
    longer, shorter = (eager, compiled) if len(eager.events) > len(compiled.events) else (compiled, eager)
    surplus = len(longer.events) - len(shorter.events)
    at = next((i for i, (a, b) in enumerate(zip(longer.events, shorter.events, strict=False))
               if a != b), len(shorter.events))
    if at == 0 or any(e != longer.events[at - 1] for e in longer.events[at:at + surplus]):
        return eager, compiled
    notes = tuple((i if i < at else i - surplus, note) for i, note in longer.notes
                  if not at <= i < at + surplus)
    cut = replace(longer, events=longer.events[:at] + longer.events[at + surplus:], notes=notes)
    return (cut, shorter) if longer is eager else (shorter, cut)


def _blamed(trace: Trace, rules: tuple[str, ...]) -> Trace:
    events = tuple(replace(e, rules=rules) if not isinstance(e, HandlerRun)
                   else replace(e, rules=rules, why=()) for e in trace.events)
    return replace(trace, events=events, outcome=replace(trace.outcome, rules=rules),
                   after_rules=rules)


def eager_as_reference(scenario: Scenario, expected: Trace, eager: Trace,
                       naming: Naming) -> Trace:
    """The eager trace as the compiled run's reference when :func:`reference` cannot be
    built: every step blamed on the rules the eager run's first divergence concerns."""
    rules = attribute(scenario, expected, eager, naming) or expected.outcome.rules
    events = tuple(replace(e, message=templated(e.message, naming))
                   if isinstance(e, WarningEmitted) else e for e in eager.events)
    return _blamed(replace(eager, events=events, outcome=_outcome(eager.outcome, naming), noise=()),
                   rules)
