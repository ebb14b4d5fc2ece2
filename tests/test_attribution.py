"""Which rules a divergence is blamed on, for the events that go on where the call should end."""

from __future__ import annotations

from dataclasses import replace

from conformance.attribution import attribute
from spec.model import scenario_from_dict
from spec.model.engine import predict
from spec.model.trace import Message, Settled, Trace, WarningEmitted

# Found by certifying torch 1.13.1: x - y with a subclass whose plain-method handler raises a
# TypeError. torch turns the TypeError into NotImplemented (TFM_SYNTAX_002), Python tries
# y.__rsub__(x), and that second dispatch warns about the plain method before it runs it.
OPERATOR = scenario_from_dict({
    "generation": "stack",
    "classes": [{"name": "A", "handler": "plain",
                 "behaviour": {"raise": "bad input", "error": "TypeError"}}],
    "call": {"func": "x - y", "args": ["plain", "A"]},
})
WARNING = WarningEmitted("DeprecationWarning", Message(("plain method",)))


def _warning_before_the_end(expected: Trace) -> Trace:
    at = next(i for i, e in enumerate(expected.events) if isinstance(e, Settled))
    events = (*expected.events[:at], WARNING, *expected.events[at:])
    return replace(expected, events=events)


def test_a_warning_where_an_operator_should_have_ended_is_the_operators_divergence() -> None:
    expected = predict(OPERATOR)
    settled = next(e for e in expected.events if isinstance(e, Settled))
    assert settled.rules == ("TFM_SYNTAX_002",)
    assert attribute(OPERATOR, expected, _warning_before_the_end(expected), {}) == ("TFM_SYNTAX_002",)


def test_an_unexpected_warning_elsewhere_breaks_the_self_rules() -> None:
    scenario = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "A", "behaviour": {"return": 1}}],
        "call": {"func": "add", "args": ["A", "plain"]},
    })
    expected = predict(scenario)
    assert attribute(scenario, expected, _warning_before_the_end(expected), {}) == (
        "TFM_SELF_004", "TFM_SELF_005", "TFM_SELF_006")
