"""A scoped expected failure excuses only what its scope covers: a test that does not say which
rules it excused where (the stateful, thread and torch's-own-modes tests judge without the
judge's excusals) is excused by an entry without a scope, never by one scoped to functions or to
the surface sweep, which cannot be said to cover a failure whose place nobody named."""

from __future__ import annotations

import pytest

from conformance.report.verdicts import TestOutcome, aggregate
from spec.catalogue import load_catalogue
from tests.plugin_toys import (
    certificate,
    environment,  # noqa: F401 (an autouse fixture)
    run,
)

pytest_plugins = ("pytester",)

RULE = "TFM_ORDER_005"
EXPECTED = {RULE: "tries types twice"}


def _failed(excused: tuple[str, ...] | None) -> TestOutcome:
    return TestOutcome("t", (RULE,), status="failed", failed_rules=(RULE,), excused_rules=excused)


def test_a_test_that_does_not_say_is_excused_by_an_unscoped_entry_only() -> None:
    assert _failed(None).excused(RULE, EXPECTED)
    assert not _failed(None).excused(RULE, EXPECTED, scoped={RULE})
    assert _failed(None).excused(RULE, EXPECTED, scoped={"TFM_ORDER_004"})


def test_a_test_that_says_is_excused_where_it_says_whatever_the_scope() -> None:
    assert _failed((RULE,)).excused(RULE, EXPECTED, scoped={RULE})
    assert not _failed(()).excused(RULE, EXPECTED, scoped={RULE})
    assert not _failed((RULE,)).excused(RULE, {}, scoped={RULE})


def test_the_verdict_of_a_scoped_rule_failed_by_a_silent_test_is_fail() -> None:
    catalogue = load_catalogue()
    outcomes = [_failed(None), _failed((RULE,))]
    assert aggregate(catalogue, "2022", outcomes, EXPECTED)[RULE].verdict == "expected_failure"
    assert aggregate(catalogue, "2022", outcomes, EXPECTED,
                     scoped={RULE})[RULE].verdict == "fail"


#: A test that fails the rule and says nothing of where (as the stateful test does).
TOY = f'''
import pytest

@pytest.mark.rule("{RULE}")
def test_silent():
    pytest.fail("{RULE} broken somewhere")
'''


@pytest.mark.parametrize("scope, outcome, verdict", [
    ("", "xfailed", "expected_failure"),
    ('functions = ["add"]\n', "failed", "fail"),
    ('surface = ["torch.add"]\n', "failed", "fail"),
], ids=["unscoped", "functions", "surface"])
def test_a_silent_test_s_failure_is_excused_by_an_unscoped_entry_only(
        pytester: pytest.Pytester, scope: str, outcome: str, verdict: str) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected=f'[{RULE}]\nreason = "tries types twice"\n{scope}')
    result = run(pytester, "--impl", "reference_impl", "--expected-failures", "expected.toml")
    result.assert_outcomes(**{outcome: 1})
    assert certificate(pytester)["rules"][RULE]["verdict"] == verdict
