"""conformance.generate.shrink: simpler candidates keep what the scenario declares about each mode."""

from __future__ import annotations

from conformance.generate.shrink import shrink
from spec.model import Scenario, scenario_from_dict

SCENARIO = {
    "generation": "2022",
    "modes": [{"name": "C", "behaviour": {"return": 5}, "classmethod_handler": True}],
    "setup": [{"push": "C"}],
    "call": {"func": "neg", "args": ["plain"]},
}


def test_shrinking_a_classmethod_mode_keeps_it_a_classmethod_mode() -> None:
    start = scenario_from_dict(SCENARIO)
    seen: list[Scenario] = []

    def holds(candidate: Scenario) -> bool:
        seen.append(candidate)
        # "still fails" while the mode is there: the shrinker simplifies its behaviour
        return bool(candidate.modes)

    smallest = shrink(start, holds)
    tried = [m for s in seen for m in s.modes]
    assert tried and all(m.classmethod_handler for m in tried)
    assert all(m.classmethod_handler for m in smallest.modes)
