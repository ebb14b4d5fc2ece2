"""One checked scenario: predict, run on the implementation in isolation, compare, attribute."""

from __future__ import annotations

from dataclasses import dataclass

from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import Trace

from .adapter import Adapter
from .attribution import attribute, leak_rules
from .compare import Naming, differences
from .isolation import time_limit
from .runner import execute

#: Seconds one scenario may take on the implementation before it counts as hung.
SCENARIO_SECONDS = 5.0


@dataclass(frozen=True)
class Checked:
    """A scenario's prediction, observation, and where they part (``rules`` empty: they agree)."""

    scenario: Scenario
    expected: Trace
    observed: Trace
    naming: Naming
    rules: tuple[str, ...]
    differences: tuple[str, ...]
    leaked: tuple[str, ...]


def check(scenario: Scenario, adapter: Adapter, seconds: float = SCENARIO_SECONDS) -> Checked | None:
    """``None`` when no rule specifies what the scenario does (the model bounds it)."""
    try:
        expected = predict(scenario, getattr(adapter, "stack_version", None))
    except (Unbounded, Unspecified):
        return None
    try:
        with time_limit(seconds):
            observed, naming = execute(scenario, adapter)
    finally:
        leaked = tuple(adapter.reset())
    diff = tuple(differences(expected, observed, naming))
    rules = attribute(scenario, expected, observed, naming) if diff else ()
    if leaked:
        diff += tuple(f"state left behind after the scenario: {x}" for x in leaked)
        rules = rules or leak_rules(scenario, expected, observed)
    return Checked(scenario, expected, observed, naming, rules, diff, leaked)
