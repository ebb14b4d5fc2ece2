"""Every scenario of a bounded scope, checked against the model (``--exhaustive``; a
certification checks the default scope).

The scope's canonical scenarios (conformance.exhaustive.enumeration) are split into chunks by
their position, each an independent test (pytest-xdist spreads them over workers), and checked
in batches as the generated ones are judged. A chunk fails for exactly the rules some scenario's
first divergence is attributed to, and reports the first such scenario of each rule (the
enumeration goes from the fewest classes and modes up, so it is among the smallest), with a
snippet. These tests are collected only when the run has an exhaustive scope.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from conformance.exhaustive.batch import check_all
from conformance.exhaustive.enumeration import enumerated
from conformance.exhaustive.report import EXHAUSTIVE_PROPERTY, Findings
from conformance.judge.check import Target
from conformance.judge.excusal import Excusals
from conformance.search.sweep import MAX_FAULTS
from spec.catalogue import load_catalogue
from spec.model import Scenario

CATALOGUE = load_catalogue()
#: How many independent chunks the scope is split into.
CHUNKS = 8
#: The rules an enumerated scenario can decide (as for the generated sweep: all but OWNMODE).
SWEPT = tuple(rule.id for rule in CATALOGUE if rule.area != "OWNMODE")


def _chunk(scope: Any, adapter: Target, chunk: int) -> Iterator[Scenario]:
    """Every CHUNKS-th scenario of the scope from the ``chunk``-th on (the scope is enumerated
    once per process, whichever chunk asks first)."""
    yield from enumerated(scope, adapter.generation, adapter.features)[chunk::CHUNKS]


@pytest.mark.exhaustive
@pytest.mark.rule(*SWEPT)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_exhaustive_scope(chunk: int, adapter: Target, exhaustive_scope: Any, impl_spec: str,
                          rule_timeout: float, excused: Excusals,
                          record_property: Callable[[str, object], None]) -> None:
    start = time.monotonic()
    # The chunk's share of the test's time limit: what is checked by then stands, and the
    # certificate says the scope was not enumerated whole.
    deadline = start + rule_timeout * 0.9
    found = Findings(chunk, CHUNKS)
    version = getattr(adapter, "stack_version", None)
    for outcome in check_all(_chunk(exhaustive_scope, adapter, chunk), adapter, excused):
        found.add(outcome, lambda rule_id: CATALOGUE.by_id(rule_id).applies_to(adapter.generation, version))
        if time.monotonic() > deadline:
            found.stopped = f"ran out of time after {found.scenarios} scenarios"
            break
        if found.faults >= MAX_FAULTS:  # each costs a restart; the rules they broke fail already
            found.stopped = (f"stopped after {found.scenarios} scenarios: the implementation "
                             f"crashed or hung on {found.faults}")
            break
    record_property(EXHAUSTIVE_PROPERTY, json.dumps(found.tally(exhaustive_scope, time.monotonic() - start)))
    if found.excused:
        record_property("excused_scenarios", found.excused)
        record_property("cut_short_scenarios", found.cut_short)
    failing = found.failing()
    if not failing:
        return
    first = found.first[failing[0]]
    record_property("failed_rules", ",".join(failing))
    record_property("excused_rules", ",".join(r for r in failing if r not in found.unexcused))
    record_property("scenario", json.dumps(found.scenario_json(first), sort_keys=True))
    try:
        from conformance.snippet import snippet

        record_property("snippet", snippet(first.scenario, impl_spec, adapter.generation,
                                           first.checked.expected if first.checked else None))
    except Exception as exc:  # a snippet is a courtesy; the verdict stands without it
        record_property("snippet", f"# no snippet: {type(exc).__name__}: {exc}")
    pytest.fail(found.report(failing), pytrace=False)
