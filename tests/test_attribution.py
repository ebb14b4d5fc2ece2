"""Which rules a divergence is blamed on, for the events that go on where the call should end."""

from __future__ import annotations

from dataclasses import replace

import pytest

from conformance.judge.comparison import attribute
from spec.examples import load_examples
from spec.model import predict, scenario_from_dict
from spec.model.scenario import Scenario
from spec.model.stack import predict_stack
from spec.model.trace import Installed, Message, Raised, Returned, Settled, Trace, WarningEmitted

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


# Found by certifying torch 2.13.0 under torch.compile: with a classmethod mode entered before
# the compiled function is called, the compiled function raises the mode's RuntimeError before
# any of its own steps (eager raises it at the dispatch). The exception came too early: the
# rules of the exception, not those of the first step it cut short.
EARLY = scenario_from_dict({**CLASSMETHOD_MODE, "setup": [{"enter": "C"}, {"enter": "C"}],
                            "call": {"func": "neg", "args": ["plain"]}})


def _cut_after(expected: Trace, kept: int, outcome: Raised | None = None) -> Trace:
    return replace(expected, events=expected.events[:kept],
                   outcome=expected.outcome if outcome is None else outcome)


def test_the_predicted_exception_raised_early_is_the_exceptions_divergence() -> None:
    expected = predict_stack(EARLY)
    assert isinstance(expected.outcome, Raised) and expected.outcome.rules == ("TFM_STACK_008",)
    entered = [i for i, e in enumerate(expected.events) if isinstance(e, Installed)]
    assert len(entered) == 2
    for kept in range(len(expected.events)):  # wherever it is cut short, before its dispatch
        assert attribute(EARLY, expected, _cut_after(expected, kept), {}) == ("TFM_STACK_008",), kept
    # the second with block's entering, which the early exception cut short, carries its own rules
    assert "TFM_STACK_004" in expected.events[entered[1]].rules


def test_another_exception_early_is_the_missing_steps_divergence() -> None:
    expected = predict_stack(EARLY)
    second = [i for i, e in enumerate(expected.events) if isinstance(e, Installed)][1]
    other = Raised("RecursionError", Message(("maximum recursion depth exceeded",)))
    blamed = attribute(EARLY, expected, _cut_after(expected, second, other), {})
    assert blamed == expected.events[second].rules and "TFM_STACK_004" in blamed


def test_an_early_exception_with_another_text_is_the_missing_steps_divergence() -> None:
    expected = predict_stack(EARLY)
    assert isinstance(expected.outcome, Raised)
    second = [i for i, e in enumerate(expected.events) if isinstance(e, Installed)][1]
    other = Raised(expected.outcome.exc_type, Message(("some other text",)))
    assert attribute(EARLY, expected, _cut_after(expected, second, other), {}) == (
        expected.events[second].rules)


# A mode that hands back what it forwarded gives no answer of its own: a wrong value is the
# forwarded call's divergence (found in torch 2.13.0 under torch.compile, where the guard of
# DisableTorchFunctionSubclass is dropped from the graph and the subclass answers the forwarded
# call), while a mode that changes what it forwards answers for itself (TFM_ORDER_002).
def _value_rules(behaviour: object) -> tuple[str, ...]:
    scenario = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "S", "behaviour": {"return": 1}}],
        "modes": [{"name": "M", "behaviour": behaviour}],
        "setup": [{"disable": "subclass"}, {"enter": "M"}],
        "call": {"func": "neg", "args": ["S"]},
    })
    outcome = predict(scenario).outcome
    assert isinstance(outcome, Returned)
    return outcome.rules


def test_a_forwarding_modes_value_is_the_forwarded_calls() -> None:
    rules = _value_rules("forward")
    assert "TFM_DISABLE_001" in rules and "TFM_ORDER_002" not in rules


def test_a_mode_that_changes_what_it_forwards_answers_for_itself() -> None:
    assert "TFM_ORDER_002" in _value_rules({"add": 100})
    assert "TFM_ORDER_002" in _value_rules({"return": 3})


def test_a_forwarding_mode_whose_forwarded_call_runs_the_kernel_answers_for_itself() -> None:
    # Nothing past the mode decides the value (the kernel runs on a plain tensor), so the value
    # is the mode's answer: TFM_ORDER_002, not the catch-all of a call no handler answered.
    scenario = scenario_from_dict({
        "generation": "stack",
        "modes": [{"name": "M", "behaviour": "forward"}],
        "setup": [{"enter": "M"}],
        "call": {"func": "neg", "args": ["plain"]},
    })
    outcome = predict(scenario).outcome
    assert isinstance(outcome, Returned)
    assert outcome.rules == ("TFM_ORDER_002",)


# Found by certifying torch 2.5.1 and 2.8.0 under torch.compile: a handler calls the scenario's
# own function foo again under a guard (the default handler inside DisableTorchFunctionSubclass,
# or a subclass handler that forwards inside DisableTorchFunction), where has_torch_function is
# False and foo computes. Compiled, the guard was ignored: foo dispatched anyway, found no
# handler and raised "no implementation found ... []". That breaks the guard's rule alone, not
# every rule that decides the value foo should have returned.
NO_TYPES = "no implementation found for 'scenario.foo' on types that implement __torch_function__: []"
RECALLS = {
    "default handler": {"classes": [{"name": "B", "handler": "inherit"}]},
    "forward inside DisableTorchFunction under a declining mode": {
        "classes": [{"name": "B", "behaviour": "forward_disabled"}],
        "modes": [{"name": "M", "behaviour": "notimpl"}], "setup": [{"enter": "M"}]},
}


# (In the 2022 design a mode stays current inside DisableTorchFunction, TFM_DISABLE_002, so
# there the second case's inner call reaches the declining mode: only the stack generation.)
@pytest.mark.parametrize(("recall", "generation"), [
    ("default handler", "2022"), ("default handler", "stack"),
    ("forward inside DisableTorchFunction under a declining mode", "stack")])
def test_a_guarded_function_that_dispatches_anyway_breaks_the_guards_rule_alone(
        recall: str, generation: str) -> None:
    setup = RECALLS[recall]
    scenario = scenario_from_dict({"generation": generation, **setup,
                                   "functions": [{"name": "foo", "params": 1, "relevant": ["a"]}],
                                   "call": {"func": "foo", "args": ["B"]}})
    expected = predict(scenario)
    assert isinstance(expected.outcome, Returned)
    assert len(expected.outcome.rules) > 1, "the value is decided by more than the guard"
    guard = [alt.rules for alt in expected.outcome.if_raised]
    assert guard == [("TFM_REACH_003",)]
    observed = replace(expected, outcome=Raised("TypeError", Message((NO_TYPES,))))
    assert attribute(scenario, expected, observed, {}) == ("TFM_REACH_003",)
    # another exception there is not the guard's: the value's rules, as before
    for other in (Raised("TypeError", Message((NO_TYPES[:-2] + "[<class 'B'>]",))),
                  Raised("RuntimeError", Message((NO_TYPES,)))):
        assert attribute(scenario, expected, replace(expected, outcome=other), {}) == (
            expected.outcome.rules)


def test_a_function_that_dispatches_without_a_handler_in_reach_breaks_its_reach_rule() -> None:
    # The same exception at the top: foo(x) on a plain tensor with no mode must compute.
    scenario = scenario_from_dict({"functions": [{"name": "foo", "params": 1, "relevant": ["a"]}],
                                   "call": {"func": "foo", "args": ["plain"]}})
    expected = predict(scenario)
    observed = replace(expected, outcome=Raised("TypeError", Message((NO_TYPES,))))
    assert attribute(scenario, expected, observed, {}) == ("TFM_REACH_003",)


# Found by certifying torch under torch.compile: the predicted exception comes out before the
# call's steps, and wrapped. A subclass handler's TypeError for x.grad comes out of Dynamo's own
# read of the input's grad (2.8.0 to 2.14.1) as InternalTorchDynamoError("TypeError: no gradient
# here"); a classmethod mode's RuntimeError out of Dynamo's compilation (2.5.1, 2.6.0, 2.11.0)
# as InternalTorchDynamoError("RuntimeError: Defining your mode's ..."). That is the predicted
# exception come out otherwise (its rules: TFM_ERROR_005 and TFM_SYNTAX_002, TFM_STACK_008), not
# the divergence of the call's settling it cut short (TFM_STACK_002, which the files excused).
WRAPPED = [("handler_type_error_comes_out_of_a_property", {"TFM_ERROR_005", "TFM_SYNTAX_002"}),
           ("classmethod_mode_handler_rejected", {"TFM_STACK_008"})]


def _early(name: str) -> tuple[Scenario, Trace, Raised, int]:
    example = next(e for e in load_examples() if e.name == name)
    expected = predict(example.scenario)
    assert isinstance(expected.outcome, Raised)
    settled = next(i for i, e in enumerate(expected.events) if isinstance(e, Settled))
    return example.scenario, expected, expected.outcome, settled


@pytest.mark.parametrize(("name", "rules"), WRAPPED, ids=[name for name, _ in WRAPPED])
def test_the_predicted_exception_wrapped_and_early_is_the_exceptions_divergence(
        name: str, rules: set[str]) -> None:
    scenario, expected, outcome, settled = _early(name)
    text = f"{outcome.exc_type}: {outcome.message.render()}"
    wrapped = Raised("InternalTorchDynamoError", Message((text,)))
    observed = _cut_after(expected, settled, wrapped)
    assert attribute(scenario, expected, observed, {}) == outcome.rules
    assert set(outcome.rules) == rules
    assert not set(outcome.rules) & set(expected.events[settled].rules)


@pytest.mark.parametrize("name", [name for name, _ in WRAPPED])
@pytest.mark.parametrize("text", ["{type}: another text", "{text}", "ValueError: {text}"])
def test_another_exception_early_is_still_the_missing_steps_divergence(name: str, text: str) -> None:
    scenario, expected, outcome, settled = _early(name)
    shown = text.format(type=outcome.exc_type, text=outcome.message.render())
    observed = _cut_after(expected, settled, Raised("InternalTorchDynamoError", Message((shown,))))
    assert attribute(scenario, expected, observed, {}) == expected.events[settled].rules
