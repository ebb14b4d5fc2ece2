"""An implementation that collects a call's overloaded arguments in another order (Dynamo
2.7-2.8 collect them last first: the cause overloaded-args-reversed) breaks the ordering rules,
and only those: the handler that runs first, what runs after it and the value are what the
rules say of that order, so an expected failure of the ordering rule excuses all of it, eager
or compiled."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from conformance.judge import compilecheck, threeway
from conformance.judge.attribution import event_rules
from conformance.judge.checked import conclude
from conformance.judge.comparison import compare_traces
from conformance.judge.compilecheck import reordering
from conformance.judge.excusal import Excusals, Repredict
from spec.model import predict, scenario_from_dict
from spec.model.scenario import Scenario
from spec.model.trace import HandlerRun, Trace

ORDERING = {"TFM_ORDER_003", "TFM_ORDER_004", "TFM_ORDER_005"}  # who runs first, in which order
SWAPPED = {0: ("B", "A")}  # the first dispatch collects B before A


def _scenario(mode: bool) -> Scenario:
    """add(a, b) of two unrelated subclasses, A's handler declining and B's answering, under
    a mode that declines (``mode``) or none."""
    return scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "A", "behaviour": "notimpl"}, {"name": "B", "behaviour": {"return": 5}}],
        "modes": [{"name": "M", "behaviour": "notimpl"}] if mode else [],
        "setup": [{"enter": "M"}] if mode else [],
        "call": {"func": "add", "args": ["A", "B"]},
    })


def _first_runs(scenario: Scenario) -> tuple[Trace, HandlerRun, HandlerRun]:
    expected = predict(scenario)
    swapped = predict(scenario, forced=SWAPPED)
    exp, obs = expected.events[0], swapped.events[0]
    assert isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun)
    return expected, exp, obs


def test_the_other_arguments_handler_first_is_an_ordering_divergence() -> None:
    expected, exp, obs = _first_runs(_scenario(mode=False))
    assert (exp.who, obs.who, exp.types, obs.types) == ("A", "B", ("A", "B"), ("B", "A"))
    rules = event_rules(expected, 0, exp, obs, {})
    assert rules and set(rules) <= ORDERING


def test_a_handler_of_no_argument_run_first_is_still_who_runs() -> None:
    expected, exp, _ = _first_runs(_scenario(mode=False))
    stranger = HandlerRun(who="C", role="subclass", func=exp.func, types=("C", "A"),
                          kwargs=exp.kwargs, current=exp.current)
    assert not set(event_rules(expected, 0, exp, stranger, {})) <= ORDERING


def _judged(mode: bool, excused: Mapping[str, list[str]],
            compiled: bool = False) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The rules a run that collects the arguments last first fails, and those it is excused."""
    scenario = _scenario(mode)
    expected = predict(scenario)
    observed = predict(scenario, forced=SWAPPED)
    assert observed.events != expected.events
    repredict: Repredict | None
    if compiled:  # the eager run showed the model's prediction: it is the reference
        repredict = reordering(scenario, None, None, expected, expected, {})
    else:
        def repredict(forced: Mapping[int, tuple[str, ...]]) -> Trace | None:
            return predict(scenario, forced=forced)
    checked = conclude(scenario, expected, observed, {}, (), Excusals(excused), repredict)
    failed = tuple(r for r in checked.rules if r not in checked.excused)
    return failed, checked.excused


def test_unexcused_the_reversed_order_fails_an_ordering_rule_only() -> None:
    for mode in (False, True):
        failed, excused = _judged(mode, {})
        assert failed and set(failed) <= ORDERING and not excused, (mode, failed)


def test_an_excused_reversed_order_excuses_what_follows_from_it() -> None:
    # B answers first and A's handler never runs: what that order says, so nothing else fails.
    for mode in (False, True):
        for compiled in (False, True):
            failed, excused = _judged(mode, {"TFM_ORDER_004": ["add"]}, compiled)
            assert failed == () and excused == ("TFM_ORDER_004",), (mode, compiled, failed, excused)


def test_an_excusal_scoped_elsewhere_does_not_excuse_the_order() -> None:
    failed, excused = _judged(True, {"TFM_ORDER_004": ["mul"]})
    assert "TFM_ORDER_004" in failed and not excused


def test_without_an_exact_eager_run_the_compiled_reference_is_not_predicted_again() -> None:
    scenario = _scenario(mode=True)
    other = predict(scenario, forced=SWAPPED)
    assert reordering(scenario, None, None, predict(scenario), other, {}) is None
    assert reordering(scenario, None, None, other, other, {}) is not None


def test_the_compiled_reference_follows_a_reordering_only() -> None:
    # A handler run where the model predicts no dispatch (Dynamo's own reads reaching a
    # handler), or other types than the model's, is not followed: what comes after it is left
    # unjudged, not compared with a prediction for a dispatch eager never made.
    scenario = _scenario(mode=True)
    expected = predict(scenario)
    repredict = reordering(scenario, None, None, expected, expected, {})
    assert repredict is not None
    assert repredict(SWAPPED) is not None
    assert repredict({0: ("B",)}) is None
    assert repredict({0: ("A", "B", "B")}) is None
    assert repredict({len([e for e in expected.events if isinstance(e, HandlerRun)]): ("A",)}) is None


def test_the_compiled_reference_and_its_reordering_share_one_comparison(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # check_compiled compares the model's trace with eager's once and hands that comparison to
    # both; given it, neither compares again (issue: one judging pass).
    scenario = _scenario(mode=True)
    expected = predict(scenario)
    first = compare_traces(None, expected, expected, {})
    calls: list[object] = []

    def counting(*args: object, **kwargs: object) -> object:
        calls.append(args)
        raise AssertionError("compared again")

    monkeypatch.setattr(threeway, "compare_traces", counting)
    monkeypatch.setattr(compilecheck, "compare_traces", counting)
    assert threeway.reference(expected, expected, {}, first) is not None
    assert compilecheck.reordering(scenario, None, None, expected, expected, {}, first) is not None
    assert calls == []
