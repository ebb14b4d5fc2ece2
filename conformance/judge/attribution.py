"""The rules that decide each place where an observation departs from a prediction.

:mod:`conformance.judge.comparison` finds the places (once per comparison) and asks this module for
their rules: of an event (per field of a handler run, per part of a warning's text), of the
outcome (per part of an error's text), of the mode left current.
"""

from __future__ import annotations

from spec.model.scenario import Disable, Enable, Enter, Push, Scenario, SetRaw
from spec.model.trace import (
    ANY_DICT,
    NONE_PASSED,
    Constructed,
    Event,
    HandlerRun,
    Installed,
    Message,
    Outcome,
    Raised,
    Returned,
    Settled,
    Trace,
    WarningEmitted,
)

from .compare import (
    Naming,
    differing_field,
    differing_part,
    event_matches,
    message_matches,
    outcome_differs,
    reordered,
    wraps,
)

#: What ends a syntactic operator's expression at the exception of one of its handlers.
_OPERATOR_END = "TFM_SYNTAX_002"
#: An observed warning where none is expected breaks these.
_NO_WARNING = ("TFM_SELF_004", "TFM_SELF_005", "TFM_SELF_006")


#: Which rules a wrong ``types`` can break, by what is wrong with it.
_ORDERING = ("TFM_ORDER_003", "TFM_ORDER_004", "TFM_ORDER_005")
_EXTRA_TENSOR = ("TFM_TYPES_003", "TFM_REACH_007", "TFM_TYPES_007")
_EXTRA_OTHER = ("TFM_TYPES_005", "TFM_DISABLE_003", "TFM_STACK_011", "TFM_SUBMODE_004",
                "TFM_TYPES_007")
_MISSING = ("TFM_ORDER_006", "TFM_TYPES_004", "TFM_TYPES_006")


def _types_rules(exp: HandlerRun, obs: HandlerRun) -> tuple[str, ...]:
    """Narrow a ``types`` divergence to the rules that what is extra or missing breaks."""
    candidates = exp.rules_for("types")
    extra, missing = set(obs.types) - set(exp.types), set(exp.types) - set(obs.types)
    wanted: set[str] = set()
    if not extra and not missing:
        wanted.update(_ORDERING)
    if exp.role == "mode" and exp.who in extra:
        wanted.add("TFM_TYPES_002")
    if "Tensor" in extra:
        wanted.update(_EXTRA_TENSOR)
    if extra - {"Tensor", exp.who}:
        wanted.update(_EXTRA_OTHER)
    if missing:
        wanted.update(_MISSING)
    narrowed = [r for r in candidates if r in wanted]
    if "Tensor" in extra and exp.kwargs != ANY_DICT and "TFM_TYPES_003" not in narrowed:
        narrowed.append("TFM_TYPES_003")  # the native path never collects an exact Tensor
    return tuple(narrowed) or ("TFM_TYPES_001",)


def _kwargs_rules(exp: HandlerRun) -> tuple[str, ...]:
    """A handler handed ``None`` as a fourth argument got the wrong number of arguments, not
    wrong values: the rule of how many (TFM_ARGS_003, or TFM_ARGS_004 on the Python path)."""
    rules = exp.rules_for("kwargs")
    return tuple(r for r in rules if r != "TFM_ARGS_002") or rules


#: The rules that decide what is current once every block has exited, by generation.
RESTORE_RULES: dict[str, tuple[str, ...]] = {
    "2022": ("TFM_PUSH_003", "TFM_ENABLE_001", "TFM_REENTRY_002", "TFM_REENTRY_003"),
    "stack": ("TFM_STACK_002", "TFM_REENTRY_002", "TFM_REENTRY_003"),
}
#: The rules that decide what a set-up step's exit restores, in either generation.
_RESTORES: dict[type, tuple[str, ...]] = {
    Push: ("TFM_PUSH_003", "TFM_STACK_002"), Enable: ("TFM_ENABLE_001",), SetRaw: ("TFM_ERROR_006",),
    Disable: ("TFM_DISABLE_006",), Enter: ("TFM_STACK_002",),
}


def leak_rules(scenario: Scenario, expected: Trace, observed: Trace) -> tuple[str, ...]:
    """The rules a wrong mode after the scenario breaks.

    When the mode left current is one a set-up step made current, the step that should have
    taken it away is the outermost such step: only the rule that decides what its exit restores
    fails. Otherwise every rule that decides the state after the scenario does.
    """
    if observed.after != expected.after:
        before: str | None = None
        for event in expected.events:
            if not isinstance(event, Installed):
                continue
            if event.current == observed.after and before != observed.after:
                restores = _RESTORES.get(type(scenario.setup[event.index]), ())
                narrowed = tuple(r for r in expected.after_rules if r in restores)
                return narrowed or expected.after_rules
            before = event.current
    return expected.after_rules


def _text_rules(expected: Message, text: str, naming: Naming) -> tuple[str, ...]:
    """The rules of the first part of ``expected`` that ``text`` departs from (empty: untagged).

    The model tags a message's words with the TEXT rule of their kind and the names in it with
    the rule that says how they are shown, so a wrong word costs that text rule alone."""
    part = differing_part(expected, text, naming)
    if part is None:  # every part matches as a prefix: the text goes on past its end
        part = len(expected.parts) - 1
    return expected.rules_for(part) if part >= 0 else ()


def outcome_rules(expected: Outcome, observed: Outcome, naming: Naming) -> tuple[str, ...]:
    """The rules of the outcome's part that differs: for the right exception with a wrong text,
    those of the first part of the text that differs, where the model tags its parts."""
    if isinstance(expected, Raised) and isinstance(observed, Returned) and expected.if_returned:
        # A value where the model knows whose divergence it is: the call never reached the
        # handler whose dispatch raises, or an operator swallowed what ends its expression.
        return expected.if_returned
    if isinstance(expected, Returned) and isinstance(observed, Raised):
        # An exception the model knows the call would end with had a step gone the other way
        # (a guard dispatching where it decides the function computes): that step's rules.
        text = observed.message.render()
        for alt in expected.if_raised:
            if alt.exc_type == observed.exc_type and message_matches(alt.message, naming, text,
                                                                     whole=True):
                return alt.rules
    if isinstance(expected, Raised) and isinstance(observed, Raised) and (
            expected.exc_type == observed.exc_type):
        rules = _text_rules(expected.message, observed.message.render(), naming)
        if rules:
            return rules
    return expected.rules


def early_raise_rules(expected: Trace, observed: Trace, index: int,
                     naming: Naming) -> tuple[str, ...]:
    """The rules of the predicted exception, where the observation raised it before the steps
    the prediction puts ahead of it (every event from ``index`` on missing, the outcome the
    predicted exception with its text); empty otherwise.

    The exception came too early: that is the divergence of the rules that say when it comes,
    not of the steps it cut short (a with block never entered because the call raised first).
    The same for the predicted exception wrapped in another (:func:`wraps`).
    """
    outcome = expected.outcome
    if index < len(observed.events) or not isinstance(outcome, Raised):
        return ()
    if outcome_differs(outcome, observed.outcome, naming) and not wraps(outcome, observed.outcome,
                                                                        naming):
        return ()
    return outcome.rules


def _no_handler_rules(expected: Trace, index: int) -> tuple[str, ...]:
    """The rules by which the call whose end comes at event ``index`` dispatches to no
    handler (empty: the model decides no such thing there)."""
    found = [r for i, note in expected.notes if i == index and note.no_handler for r in note.rules]
    return tuple(dict.fromkeys(found))


def event_rules(expected: Trace, index: int, exp: Event | None, obs: Event | None,
                naming: Naming, field: str | None = None) -> tuple[str, ...]:
    """The rules a pair of differing events of ``expected`` and an observation breaks (one
    side ``None`` past its end), at event ``index`` of ``expected`` (aligned, see
    :func:`~conformance.judge.compare.align`): per field for a handler run, per part for a
    warning's text; for a handler run where the model decides that the call dispatches to
    none, the rules of that decision; for a warning the model predicts later, the rules of
    when it comes. ``field``: the first field in which two handler runs differ, where the
    caller has found it already."""
    if isinstance(obs, WarningEmitted) and isinstance(exp, Settled) and _OPERATOR_END in exp.rules:
        # The operator's expression should have ended here with the handler's exception; a
        # warning means it went on (a second dispatch, through the reflected method): the
        # rule of where it ends, whatever the second dispatch then warns about.
        return exp.rules
    if isinstance(obs, WarningEmitted) and not isinstance(exp, WarningEmitted):
        # A warning the model predicts later came too early: the rule of when it comes.
        later = next((e for e in expected.events[index + 1:] if isinstance(e, WarningEmitted)
                      and event_matches(e, obs, naming)), None)
        return (later.when or later.rules) if later is not None else _NO_WARNING
    if isinstance(obs, HandlerRun) and not isinstance(exp, HandlerRun):
        rules = _no_handler_rules(expected, index)
        if rules:
            return rules
    if exp is None:
        return expected.outcome.rules
    if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun):
        name = field if field is not None else differing_field(exp, obs, naming)
        if name is not None:
            if name == "types" or (name == "who" and reordered(exp, obs)):
                # Another argument's handler first, with the types reordered alike: the order
                # of the overloaded arguments, not who may run, is what differs.
                return _types_rules(exp, obs)
            return _kwargs_rules(exp) if name == "kwargs" and obs.kwargs == NONE_PASSED else (
                exp.rules_for(name))
    if isinstance(exp, HandlerRun):
        return exp.rules_for("who")
    if isinstance(exp, WarningEmitted) and isinstance(obs, WarningEmitted) and (
            exp.category == obs.category):
        return _text_rules(exp.message, obs.message.render(), naming) or exp.rules
    assert isinstance(exp, (WarningEmitted, Installed, Constructed, Settled))
    return exp.rules
