"""The generated test shrinks what failed once per scenario, and only where the profile shrinks.

A mutant that breaks two rules with the same generated scenario (no_dedupe: TFM_ORDER_004 and
TFM_ORDER_005) is swept by one chunk of conformance/suite/test_generated.py, in this process,
with a counting ``shrink``: the two rules share one shrink, whose scenario still breaks both;
under triage (no shrink phase) nothing is shrunk and the report says why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import Phase, settings

from conformance.adapter import load_adapter
from conformance.generate.shrink import shrink
from conformance.judge.check import check
from conformance.judge.excusal import Excusals
from conformance.session import profiles
from conformance.suite import test_generated
from spec.model import Scenario, scenario_from_dict, scenario_to_dict

MUTANT = "tests.mutants.no_dedupe"
BROKEN = {"TFM_ORDER_004", "TFM_ORDER_005"}


@pytest.fixture
def use_profile() -> Iterator[Callable[[str], None]]:
    """Loads a derandomized copy of a profile of the suite; the session's profile after."""
    before = settings.get_current_profile_name()
    profiles.register()

    def use(name: str) -> None:
        settings.register_profile(f"shrink-test-{name}", parent=settings.get_profile(name),
                                  derandomize=True, max_examples=80)
        settings.load_profile(f"shrink-test-{name}")

    yield use
    settings.load_profile(before)


def _chunk(monkeypatch: pytest.MonkeyPatch) -> tuple[list[Scenario], dict[str, Any], str]:
    """Runs chunk 0 on the mutant: the scenarios shrink was asked to shrink, the recorded
    properties and the failure's text."""
    asked: list[Scenario] = []
    real = shrink

    def counting(scenario: Scenario, holds: Callable[[Scenario], bool], **options: Any) -> Scenario:
        asked.append(scenario)
        return real(scenario, holds, **options)

    monkeypatch.setattr(test_generated, "shrink", counting)
    recorded: dict[str, Any] = {}
    with pytest.raises(pytest.fail.Exception) as failed:
        test_generated.test_generated_scenarios(
            chunk=0, adapter=load_adapter(MUTANT), impl_spec=MUTANT, rule_timeout=60.0,
            excused=Excusals(), record_property=recorded.__setitem__)
    return asked, recorded, str(failed.value)


def test_rules_broken_by_one_scenario_share_its_shrink(
        monkeypatch: pytest.MonkeyPatch, use_profile: Callable[[str], None]) -> None:
    use_profile("dev")
    assert Phase.shrink in settings().phases
    asked, recorded, text = _chunk(monkeypatch)
    assert set(recorded["failed_rules"].split(",")) == BROKEN, recorded
    assert len(asked) == 1, f"{len(asked)} shrinks for one scenario"
    assert text.count(", shrunk:") == len(BROKEN), text
    smallest = scenario_from_dict(json.loads(recorded["scenario"]))
    found = json.dumps(scenario_to_dict(asked[0]), sort_keys=True)
    assert len(json.dumps(scenario_to_dict(smallest), sort_keys=True)) <= len(found)
    checked = check(smallest, load_adapter(MUTANT))
    assert checked is not None and set(checked.rules) >= BROKEN, (
        "the shared shrink lost a rule it was shared by")


def test_triage_reports_scenarios_as_found(
        monkeypatch: pytest.MonkeyPatch, use_profile: Callable[[str], None]) -> None:
    use_profile("triage")
    assert Phase.shrink not in settings().phases
    asked, recorded, text = _chunk(monkeypatch)
    assert set(recorded["failed_rules"].split(",")) == BROKEN, recorded
    assert asked == []
    assert text.count("not shrunk (the profile does not shrink)") == len(BROKEN), text
