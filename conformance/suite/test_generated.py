"""Generated scenarios run on the implementation and compared with the model, rule by rule.

One sweep of generated scenarios (the hypothesis profile sets how many) is
checked per session; each rule's test fails when some scenario's first
divergence from the model is attributed to that rule, and reports the
scenario shrunk to its simplest form with a snippet that reproduces it.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import pytest

from conformance.adapter import Adapter
from conformance.check import check
from conformance.shrink import shrink
from conformance.sweep import RuleRecord, Sweep, run_sweep
from spec.catalogue import load_catalogue
from spec.model import Scenario, scenario_to_dict

RULES = [pytest.param(r.id, marks=pytest.mark.rule(r.id), id=r.id) for r in load_catalogue().rules]


@pytest.fixture(scope="session")
def sweep(adapter: Adapter) -> Sweep:
    return run_sweep(adapter, adapter.generation)


def _breaks(rule_id: str, adapter: Adapter) -> object:
    def holds(scenario: Scenario) -> bool:
        checked = check(scenario, adapter)
        return checked is not None and rule_id in checked.rules

    return holds


@pytest.mark.parametrize("rule_id", RULES)
def test_generated_scenarios(rule_id: str, sweep: Sweep, adapter: Adapter,
                             record_property: Callable[[str, object], None]) -> None:
    record = sweep.rules.get(rule_id, RuleRecord())
    record_property("exercised", record.exercised)
    if not record.failures:
        return
    number, scenario, _ = record.failures[0]
    smallest = shrink(scenario, _breaks(rule_id, adapter))  # type: ignore[arg-type]
    checked = check(smallest, adapter)
    details = list(checked.differences) if checked is not None else ["(no longer reproduces)"]
    record_property("failed_rules", rule_id)
    record_property("examples", number)
    record_property("scenario", json.dumps(scenario_to_dict(smallest), sort_keys=True))
    try:
        from conformance.snippet import snippet

        record_property("snippet", snippet(smallest, adapter.name, adapter.generation))
    except Exception as exc:  # a snippet is a courtesy; the verdict stands without it
        record_property("snippet", f"# no snippet: {type(exc).__name__}: {exc}")
    pytest.fail(f"generated scenario #{number} breaks {rule_id}:\n"
                f"{json.dumps(scenario_to_dict(smallest), sort_keys=True)}\n" + "\n".join(details),
                pytrace=False)
