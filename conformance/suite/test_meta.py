"""Traceability: every rule marker names a catalogue rule, and every MUST rule has a test."""

from __future__ import annotations

from conformance.judge.check import Target
from conformance.report.verdicts import MUST_LEVELS
from spec.catalogue import load_catalogue


def test_rule_markers_are_known(rule_coverage: dict[str, list[str]]) -> None:
    # The plugin already stops collection on an unknown rule ID; this states it as a test.
    known = set(load_catalogue().ids())
    unknown = {rule_id: tests for rule_id, tests in rule_coverage.items() if rule_id not in known}
    assert not unknown, ("the rule IDs of the suite's rule markers: expected only catalogue rules; "
                         "observed unknown IDs: " + "; ".join(f"{rule_id} (on {', '.join(tests)})"
                                                              for rule_id, tests in unknown.items()))


def test_every_must_rule_is_covered(rule_coverage: dict[str, list[str]],
                                    rule_generations: dict[str, tuple[str, ...]],
                                    adapter: Target) -> None:
    generation = adapter.generation
    covered = {
        rule_id for rule_id, tests in rule_coverage.items()
        if any(not rule_generations.get(t) or generation in rule_generations[t] for t in tests)
    }
    missing = [rule.id for rule in load_catalogue().for_generation(generation)
               if rule.level in MUST_LEVELS and rule.id not in covered]
    assert not missing, (f"the MUST rules of generation {generation} without a test that applies "
                         f"to it: expected none; observed {len(missing)}: {', '.join(missing)}")
