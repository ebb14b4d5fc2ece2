"""Generated scenarios run on the implementation and compared with the model, rule by rule.

The profile's number of generated scenarios is split into chunks, each an independent test
(pytest-xdist spreads them over workers). A chunk fails for exactly the rules that some
scenario's first divergence from the model is attributed to, and reports each such scenario
shrunk to its simplest form, with a snippet that reproduces it. Rules first broken by the same
scenario share one shrink, which keeps all of them broken. A scenario is reported as found where
an expected failure excuses its divergence (its entry has a snippet of its own) and where the
profile leaves out hypothesis' shrink phase (triage).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Callable

import pytest
from hypothesis import Phase, settings

from conformance.generate.shrink import shrink
from conformance.judge.check import Target, check
from conformance.judge.excusal import Excusals
from conformance.search.sweep import run_sweep
from conformance.session.recording import COMPILATION_PROPERTY, COMPILED_RULES_PROPERTY
from conformance.target.compiled import tally
from spec.boundary import Boundary
from spec.catalogue import load_catalogue
from spec.model import Scenario, Trace, scenario_to_dict

CATALOGUE = load_catalogue()
#: How many independent chunks the generated scenarios are split into.
CHUNKS = 8
#: The rules a generated scenario can decide: all but those of the implementation's own modes
#: (area OWNMODE), which the scenario language does not express (test_ownmodes.py checks them);
#: a sweep that claimed them would give them a verdict where their feature is missing.
SWEPT = tuple(rule.id for rule in CATALOGUE if rule.area != "OWNMODE")


def _breaks(rule_ids: frozenset[str], adapter: Target, excused: Excusals,
            boundary: Boundary) -> Callable[[Scenario], bool]:
    """Whether a scenario still breaks every one of ``rule_ids`` where no expected failure
    excuses it (one shrink serves each rule whose first failing scenario it was), compiled with
    the same boundary (``spec.boundary``): a smaller scenario whose divergence of the rule is excused
    is not the failure found."""
    def holds(scenario: Scenario) -> bool:
        checked = check(scenario, adapter, excused=excused, boundary=boundary)
        return checked is not None and rule_ids <= set(checked.rules) - set(checked.excused)

    return holds


def _shrinks() -> bool:
    """Whether the active profile shrinks: triage, for one, reports scenarios as first found."""
    return Phase.shrink in settings().phases


@pytest.mark.compiles
@pytest.mark.rule(*SWEPT)
@pytest.mark.parametrize("chunk", range(CHUNKS))
def test_generated_scenarios(chunk: int, adapter: Target, impl_spec: str, rule_timeout: float,
                             excused: Excusals,
                             record_property: Callable[[str, object], None]) -> None:
    # Half the per-test limit for checking scenarios, a quarter for shrinking what failed:
    # a slow or hanging implementation ends this test with what it found, before the limit
    # would end it with nothing.
    start = time.monotonic()
    per_chunk = max(1, math.ceil(settings().max_examples / CHUNKS))
    sweep = run_sweep(adapter, adapter.generation, per_chunk, chunk=chunk,
                      deadline=start + rule_timeout / 2, excused=excused)
    record_property("scenarios", sweep.examples)
    if sweep.compilations:  # --compile: a scenario Dynamo compiled nothing of was not judged
        record_property(COMPILATION_PROPERTY, json.dumps(
            tally(sweep.compilations, time.monotonic() - start)))
        # per rule: a rule no compiled scenario exercised is not compiled by this test
        record_property(COMPILED_RULES_PROPERTY, ",".join(
            sorted(rule_id for rule_id, record in sweep.rules.items() if record.exercised)))
    if sweep.excused:
        record_property("excused_scenarios", sweep.excused)
        record_property("cut_short_scenarios", sweep.cut_short)
    version = getattr(adapter, "stack_version", None)
    failing = [rule_id for rule_id, record in sorted(sweep.rules.items())
               if record.failures and CATALOGUE.by_id(rule_id).applies_to(adapter.generation, version)]
    # An unexcused failure first: its shrunk scenario is the one recorded with the failure.
    failing.sort(key=lambda rule_id: rule_id not in sweep.unexcused)
    assert not sweep.errors, f"the suite could not check some scenarios: {sweep.errors[:3]}"
    if not failing:
        return
    reports: list[str] = []
    first: Scenario | None = None
    predicted: Trace | None = None  # the model's trace for ``first``, where it was checked
    # The unexcused rules whose first failing scenario is the same one share its shrink.
    sharing: dict[int, frozenset[str]] = {}
    for rule_id in sweep.unexcused:
        number = sweep.rules[rule_id].failures[0][0]
        sharing[number] = sharing.get(number, frozenset()) | {rule_id}
    shrunk: dict[int, tuple[Scenario, list[str], Trace | None]] = {}
    for rule_id in failing:
        number, scenario, found, fault, boundary = sweep.rules[rule_id].failures[0]
        if fault is not None:
            # Shrinking would restart the implementation (or wait out its time limit) per try.
            smallest, details, how = scenario, list(found), f"not shrunk (the implementation {fault})"
        elif rule_id not in sweep.unexcused:
            # An expected failure already has its snippet, and shrinking its scenario was most
            # of a certification's time where one excused a divergence of many scenarios.
            smallest, details, how = scenario, list(found), "not shrunk (an expected failure)"
        elif not _shrinks():
            smallest, details, how = scenario, list(found), "not shrunk (the profile does not shrink)"
        else:
            if number not in shrunk:
                smaller = shrink(scenario, _breaks(sharing[number], adapter, excused, boundary),
                                 deadline=start + rule_timeout * 3 / 4)
                checked = check(smaller, adapter, excused=excused, boundary=boundary)
                shrunk[number] = (smaller, list(checked.differences) if checked is not None
                                  else ["(no longer reproduces)"],
                                  None if checked is None else checked.expected)
            smallest, details, expected = shrunk[number]
            how = "shrunk"
            if first is None and expected is not None:
                predicted = expected
        # the boundary as it applies to the scenario reported (a shrunk one may have fewer steps)
        said = boundary.fitted(len(smallest.setup)).describe()
        where = f", compiled with {said}" if said else ""
        reports.append(f"{rule_id}: generated scenario #{number} of chunk {chunk}{where}, {how}:\n"
                       f"{json.dumps(scenario_to_dict(smallest), sort_keys=True)}\n" + "\n".join(details))
        if first is None:
            first = smallest
            record_property("examples", number)
    assert first is not None
    record_property("failed_rules", ",".join(failing))
    record_property("excused_rules", ",".join(r for r in failing if r not in sweep.unexcused))
    record_property("scenario", json.dumps(scenario_to_dict(first), sort_keys=True))
    try:
        from conformance.snippet import snippet

        record_property("snippet", snippet(first, impl_spec, adapter.generation, predicted))
    except Exception as exc:  # a snippet is a courtesy; the verdict stands without it
        record_property("snippet", f"# no snippet: {type(exc).__name__}: {exc}")
    if sweep.stopped:
        reports.append(f"chunk {chunk} {sweep.stopped}")
    if sweep.excused:
        reports.append(f"chunk {chunk}: {sweep.excused} of {sweep.examples} scenarios showed an "
                       f"excused divergence ({sweep.cut_short} of them cut short by it); the "
                       "rest of each was still compared")
    pytest.fail("\n\n".join(reports), pytrace=False)
