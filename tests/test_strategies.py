"""What the scenario generator draws depends on the implementation's declared features."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from conformance.strategies import scenarios
from spec.model import Scenario

QUICK = settings(max_examples=150, deadline=None, database=None,
                 suppress_health_check=list(HealthCheck))


@QUICK
@given(scenarios("stack", frozenset({"disable-subclass"})))
def test_no_function_of_its_own_without_the_python_path(scenario: Scenario) -> None:
    assert not scenario.functions


def test_with_the_python_path_about_half_the_calls_are_its_own_functions() -> None:
    drawn: list[Scenario] = []

    @settings(QUICK, max_examples=300, derandomize=True)
    @given(scenarios("2022"))
    def collect(scenario: Scenario) -> None:
        drawn.append(scenario)

    collect()
    own = sum(bool(s.functions) for s in drawn)
    assert len(drawn) // 4 <= own <= 3 * len(drawn) // 4, f"{own} of {len(drawn)}"
