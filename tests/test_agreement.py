"""The model and reference_impl agree on generated scenarios (2,000 examples or more)."""

from __future__ import annotations

import json

from hypothesis import assume, given, settings

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.compare import differences
from conformance.runner import execute
from conformance.strategies import scenarios
from spec.model import Scenario, Unbounded, Unspecified, predict, scenario_to_dict

ADAPTER = NamespaceAdapter(reference_impl)
EXAMPLES = max(2000, settings().max_examples)


@settings(max_examples=EXAMPLES)
@given(scenarios("2022"))
def test_model_and_reference_impl_agree(scenario: Scenario) -> None:
    try:
        expected = predict(scenario)
    except (Unbounded, Unspecified):
        assume(False)
        return
    try:
        observed, naming = execute(scenario, ADAPTER)
    finally:
        leaked = ADAPTER.reset()
    assert not leaked, leaked
    diff = differences(expected, observed, naming)
    assert not diff, "\n".join([json.dumps(scenario_to_dict(scenario)), *diff])
