"""What the generator draws, and what the examples need, by the implementation's declared features."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings

from conformance.generate.strategies import scenarios
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


def test_the_features_an_example_needs() -> None:
    from conformance.adapter import features_needed
    from spec.examples import load_examples

    needed = {e.name: features_needed(e.scenario) for e in load_examples()}
    assert needed["test_basic_bar"] == {"python-path"}
    assert needed["test_basic_split"] == {"python-path"}
    assert needed["test_basic_add"] == frozenset()
    assert all(needed[n] == {"python-path"} for n in needed if n.startswith("python_list"))
    assert any("subclass-as-mode" in f for f in needed.values())
    assert any("raw-slot" in f for f in needed.values())
    assert any("disable-subclass" in f for f in needed.values())
