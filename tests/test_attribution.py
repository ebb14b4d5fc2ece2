"""Which rules a divergence is blamed on, for the events that go on where the call should end."""

from __future__ import annotations

from dataclasses import replace

from conformance.judge.comparison import attribute
from spec.model import predict, scenario_from_dict
from spec.model.stack import predict_stack
from spec.model.trace import Message, Raised, Returned, Settled, Trace, WarningEmitted

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


# Found by certifying torch 2.3.1: x[None] under a mode whose __torch_function__ is a
# classmethod returned the indexed tensor. The model predicts the RuntimeError of reaching
# such a mode (TFM_STACK_008); returning instead means the index never reached the mode
# (basic indexing skipped it on that release), the form's rule.
CLASSMETHOD_MODE = {
    "generation": "stack",
    "modes": [{"name": "C", "behaviour": {"return": 5}, "classmethod_handler": True}],
    "setup": [{"enter": "C"}],
}


def _returned_instead(call: dict[str, object]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    scenario = scenario_from_dict({**CLASSMETHOD_MODE, "call": call})
    expected = predict_stack(scenario)
    assert isinstance(expected.outcome, Raised)
    observed = replace(expected, outcome=Returned(None, ()))
    return expected.outcome.rules, attribute(scenario, expected, observed, {})


def test_a_form_that_returns_where_reaching_the_mode_raises_breaks_the_forms_reach() -> None:
    raised, blamed = _returned_instead({"func": "x[None]", "args": ["plain"]})
    assert "TFM_STACK_008" in raised
    assert blamed == ("TFM_SYNTAX_001",)


def test_a_call_that_returns_where_reaching_the_mode_raises_breaks_the_mode_first_rule() -> None:
    raised, blamed = _returned_instead({"func": "neg", "args": ["plain"]})
    assert raised == ("TFM_STACK_008",)
    assert "TFM_ORDER_001" in blamed and "TFM_STACK_008" not in blamed


def test_a_different_error_where_reaching_the_mode_raises_is_the_classmethod_rule() -> None:
    scenario = scenario_from_dict({**CLASSMETHOD_MODE, "call": {"func": "x[None]", "args": ["plain"]}})
    expected = predict_stack(scenario)
    observed = replace(expected, outcome=Raised("TypeError", Message(("nope",))))
    assert "TFM_STACK_008" in attribute(scenario, expected, observed, {})


def test_a_value_where_a_handlers_exception_should_end_an_operator_is_the_operators_divergence() -> None:
    # Found by certifying torch 1.12.1: x / y where x's subclass handler raises a TypeError
    # returned the quotient (the TypeError became NotImplemented and Python went on).
    scenario = scenario_from_dict({
        "classes": [{"name": "A", "behaviour": {"raise": "cannot divide", "error": "TypeError"}}],
        "call": {"func": "x / y", "args": ["A", "plain"]},
    })
    expected = predict(scenario)
    assert isinstance(expected.outcome, Raised) and "TFM_ERROR_005" in expected.outcome.rules
    observed = replace(expected, outcome=Returned(None, ()))
    assert attribute(scenario, expected, observed, {}) == ("TFM_SYNTAX_002",)
