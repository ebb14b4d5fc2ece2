"""Says how an observation departs from the model's prediction, in terms an implementer can act on.

Each difference is one block: where it is (an event and its field, the outcome, the mode left
current), the rules that decide it, the full expected and observed values, and where two texts
differ, the character where they part (:mod:`conformance.base.textdiff`). The first block is the
first divergence, the one a failure is attributed to; the blocks after it start with "then":
they may be its consequences.
"""

from __future__ import annotations

from dataclasses import fields

from spec.model.scenario import Scenario
from spec.model.trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    NONE_PASSED,
    Constructed,
    Event,
    HandlerRun,
    Installed,
    Message,
    Raised,
    Returned,
    Settled,
    Trace,
    Unlisted,
    WarningEmitted,
    show_arg,
)

from ..base.textdiff import first_difference, shorten, text_diff
from ..snippet import event_line
from .compare import Naming, differing_part, message_pattern, show_outcome
from .comparison import Comparison, Difference, compare_traces

__all__ = ["block", "describe", "describe_differences", "show_trace", "text_offsets"]

_KINDS: dict[type, str] = {HandlerRun: "a handler run", WarningEmitted: "a warning",
                           Installed: "a set-up step entered", Constructed: "a mode constructed",
                           Settled: "the call settled"}


def block(where: str, rules: tuple[str, ...], expected: str, observed: str,
          extra: list[str] | None = None) -> list[str]:
    """One difference: ``where`` (decided by ``rules``), then the expected and observed values."""
    head = f"{where} [{', '.join(rules)}]" if rules else where
    return [f"{head}:", f"  expected: {expected}", f"  observed: {observed}", *(extra or [])]


def text_offsets(message: Message, text: str, naming: Naming) -> tuple[int, int]:
    """Where ``text`` first departs from ``message`` rendered with ``naming``: the index in the
    rendered expected text and the index in ``text`` (they differ after an object's repr that
    the expected text leaves open)."""
    part = differing_part(message, text, naming)
    if part is None:  # every part matches: the observed text goes on past the expected one
        found = message_pattern(message, naming).match(text)
        return len(message.render(naming)), found.end() if found else 0
    prefix = Message(message.parts[:part])
    found = message_pattern(prefix, naming).match(text)
    exp_at, obs_at = len(prefix.render(naming)), found.end() if found else 0
    piece = message.parts[part]
    literal = piece if isinstance(piece, str) else naming.get((piece.kind, piece.name))
    if literal is None:  # an object the text names with a repr of its own
        return exp_at, obs_at
    k = first_difference(literal, text[obs_at:])
    k = len(literal) if k is None else k
    return exp_at + k, obs_at + k


def _open_parts(message: Message, naming: Naming) -> list[str]:
    """A note on the parts of ``message`` that match any text (objects of unknown repr)."""
    shown = [f"<{p.kind} {p.name}>" for p in message.parts
             if not isinstance(p, str) and (p.kind, p.name) not in naming]
    if not shown:
        return []
    return [f"  ({', '.join(dict.fromkeys(shown))} in the expected text stands for any repr "
            "of that object)"]


def _texts(kind: str, expected: Message, observed: str, naming: Naming) -> tuple[str, str, list[str]]:
    """``kind('text')`` for each side, each shortened around the first difference, and the
    lines that show that difference."""
    want = expected.render(naming)
    exp_at, obs_at = text_offsets(expected, observed, naming)
    exp_shown, exp_note = shorten(want, exp_at)
    obs_shown, obs_note = shorten(observed, obs_at)
    extra = _open_parts(expected, naming) + text_diff(want, observed, exp_at, obs_at)
    return f"{kind}({exp_shown!r}){exp_note}", f"{kind}({obs_shown!r}){obs_note}", extra


def _event(difference: Difference, naming: Naming) -> list[str]:
    (exp, obs), index, rules = difference.events(), difference.index, difference.rules
    if exp is None or obs is None or type(exp) is not type(obs):
        if obs is None:
            assert exp is not None
            where = f"event {index}, {_KINDS[type(exp)]}, is missing"
        elif exp is None:
            where = f"event {index}, {_KINDS[type(obs)]}, is one too many"
        else:
            where = f"event {index}: {_KINDS[type(exp)]} expected, {_KINDS[type(obs)]} observed"
        return block(where, rules, _show(exp), _show(obs))
    where = f"event {index}, {_KINDS[type(exp)]}"
    if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun):
        name = difference.field or "who"
        return block(f"{where}, its field {name!r}", rules, _field(exp, name), _field(obs, name),
                     [f"  expected event: {event_line(exp)}", f"  observed event: {event_line(obs)}"])
    if isinstance(exp, WarningEmitted) and isinstance(obs, WarningEmitted):
        if exp.category != obs.category:
            return block(f"{where}, its category", rules, _show(exp), _show(obs))
        want, got, extra = _texts(exp.category, exp.message, obs.message.render(), naming)
        return block(f"{where}, its text", rules, want, got, extra)
    name = next((f.name for f in fields(exp)
                 if f.compare and getattr(exp, f.name) != getattr(obs, f.name)), "")
    field = f", its field {name!r}" if name else ""
    return block(f"{where}{field}", rules, _show(exp), _show(obs))


def _show(event: Event | None) -> str:
    return "nothing" if event is None else event_line(event)


def _field(event: HandlerRun, name: str) -> str:
    value = getattr(event, name)
    if name == "args" and value is not None:
        return "(" + ", ".join(show_arg(a) for a in value) + ("," if len(value) == 1 else "") + ")"
    if name == "kwvalues" and value is not None:
        items = ", ".join(f"{k!r}: {show_arg(v)}" for k, v in value)
        return "{" + items + "}" + (", other keys as kwargs allows" if event.kwargs == ANY_DICT else "")
    if name == "kwargs" and value == ANY_DICT:
        return "a dict (any keys)"
    if name == "kwargs" and value == NONE_PASSED:
        return "None, passed as a fourth argument"
    if name == "kwargs" and value is None:
        return "None (three arguments, so the handler's own default)"
    if name == "kwargs" and value == NONE_OR_EMPTY:
        return "None or an empty dict"
    if name == "role" and value == "submode":  # the runner cannot tell the two apart
        return repr("subclass")
    return repr(value)


def _outcome(difference: Difference, naming: Naming) -> list[str]:
    expected, observed, rules = difference.expected, difference.observed, difference.rules
    assert isinstance(expected, (Returned, Raised)) and isinstance(observed, (Returned, Raised))
    if isinstance(expected, Raised) and isinstance(observed, Raised):
        if expected.exc_type != observed.exc_type:
            want = f"{expected.exc_type}({expected.message.render(naming)!r})"
            return block("the outcome, the exception's type", rules, want, show_outcome(observed))
        want, got, extra = _texts(expected.exc_type, expected.message, observed.message.render(),
                                  naming)
        return block("the outcome, the error text", rules, want, got, extra)
    if isinstance(expected, Returned) and isinstance(observed, Returned):
        return block("the outcome, the value returned", rules, repr(expected.value),
                     repr(observed.value))
    want = (f"return {expected.value!r}" if isinstance(expected, Returned)
            else f"{expected.exc_type}({expected.message.render(naming)!r})")
    return block("the outcome, a return or an exception", rules, want, show_outcome(observed))


def _suite_built(observed: Trace, difference: Difference) -> list[str]:
    """A note where what differs came from the suite building one of the call's tensors
    (``x0 = tensor(...)``, before the scenario's set-up) rather than from the scenario: an
    event observed while it was built, the exception its building raised, or the events
    missing after that exception."""
    raised = observed.built_during(None) if isinstance(observed.outcome, Raised) else None
    if difference.place == "outcome":
        built, what = raised, "this exception was raised"
    elif difference.observed is None:
        built, what = raised, "nothing more was observed: an exception was raised"
    else:
        built, what = observed.built_during(difference.index), "this event was observed"
    if built is None:
        return []
    return [f"  {what} while the suite built {built.name} with {built.how}, before the "
            "scenario's set-up (the implementation's own tensor creation, not the call)"]


def _handed(call: Unlisted) -> str:
    times = "once" if call.count == 1 else f"{call.count} times"
    return (f"{call.who} ({call.role}) handed {call.func} {times}, the first time after "
            f"{call.at} event(s)")


def _unlisted(rules: tuple[str, ...], calls: list[Unlisted]) -> list[str]:
    """One block for the calls a handler was handed that nobody but the implementation made:
    one line each, so that many of them (Dynamo's reads while it compiles) leave room in a
    failure's first lines for the differences after them."""
    if len(calls) == 1:
        call = calls[0]
        return block(f"a call the scenario did not make, handed to {call.who}'s handler", rules,
                     f"no call of {call.func}: neither the scenario nor the suite called it",
                     _handed(call),
                     ["  (the implementation's own call of an overridable function, which the "
                      "handler let through unchanged)"])
    return [f"{len(calls)} calls the scenario did not make, handed to handlers "
            f"[{', '.join(rules)}]:",
            "  expected: none of them: neither the scenario nor the suite called them",
            *(f"  observed: {_handed(call)}" for call in calls),
            "  (the implementation's own calls of overridable functions, which the handlers "
            "let through unchanged)"]


def show_trace(trace: Trace, naming: Naming) -> str:
    """Every event of ``trace`` and its outcome on one line, as a snippet prints them."""
    outcome = trace.outcome
    end = (f"returned {outcome.value!r}" if isinstance(outcome, Returned)
           else f"raised {outcome.exc_type}({outcome.message.render(naming)!r})")
    return "; ".join([*(event_line(e) for e in trace.events), end])


def describe_differences(expected: Trace, observed: Trace, naming: Naming,
                         scenario: Scenario | None = None) -> list[str]:
    """Every difference between ``expected`` and ``observed``, one block each (empty: none).

    ``scenario`` narrows the rules of a wrong mode left current to the step that made it
    current (:func:`~conformance.judge.attribution.leak_rules`)."""
    return describe(compare_traces(scenario, expected, observed, naming))


def describe(comparison: Comparison) -> list[str]:
    """The differences of ``comparison``, one block each (empty: none)."""
    found: list[list[str]] = []
    calls = [d.observed for d in comparison.found if isinstance(d.observed, Unlisted)]
    for difference in comparison.found:
        if difference.place == "event":
            found.append(_event(difference, comparison.naming)
                         + _suite_built(comparison.observed, difference))
        elif isinstance(difference.observed, Unlisted):
            if difference.observed is calls[0]:  # all of them, where the first came
                found.append(_unlisted(difference.rules, calls))
        elif difference.place == "outcome":
            found.append(_outcome(difference, comparison.naming)
                         + _suite_built(comparison.observed, difference))
        else:
            found.append(block("the current mode once every set-up step has exited",
                               difference.rules, repr(difference.expected),
                               repr(difference.observed)))
    # What follows the first difference may be its consequence: "then" says it comes after.
    return [line if i == 0 or j else f"then {line}" for i, lines in enumerate(found)
            for j, line in enumerate(lines)]
