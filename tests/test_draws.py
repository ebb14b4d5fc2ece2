"""Generated scenarios, written once as choices (conformance.generate.draws): the seeded chooser
of the derandomized profiles, hypothesis' chooser, and a derandomized sweep checked in batches."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conformance.adapter import NamespaceAdapter
from conformance.generate.draws import FORM_FEATURES, SeededChooser, build_scenario
from conformance.generate.strategies import scenarios
from conformance.sandbox.parent import SandboxedImplementation
from conformance.sandbox.replies import BATCH
from conformance.search.sweep import Sweep, run_sweep
from conformance.session.profiles import register
from spec.model.scenario import Const, Generation, Scenario
from spec.model.validate import validate

QUICK = settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
EVERYTHING = frozenset({"disable-subclass", "python-path", "syntax", "forward-add", *FORM_FEATURES})


def _constants(value: Any) -> list[Const]:
    """Every Const anywhere in a scenario."""
    if isinstance(value, Const):
        return [value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [c for f in dataclasses.fields(value) for c in _constants(getattr(value, f.name))]
    if isinstance(value, tuple):
        return [c for item in value for c in _constants(item)]
    return []


@QUICK
@given(st.integers(0, 2**32), st.sampled_from(["2022", "stack"]))
def test_every_seeded_scenario_is_valid_and_the_seed_reproduces_it(seed: int, generation: Generation) -> None:
    first = [build_scenario(SeededChooser(f"s{seed}"), generation, EVERYTHING) for _ in range(1)]
    chooser = SeededChooser(f"s{seed}")
    drawn = [build_scenario(chooser, generation, EVERYTHING) for _ in range(20)]
    assert drawn[:1] == first
    for scenario in drawn:
        validate(scenario)
        assert scenario.generation == generation


def test_two_seeds_draw_different_scenarios() -> None:
    one, other = SeededChooser("a"), SeededChooser("b")
    assert [build_scenario(one) for _ in range(10)] != [build_scenario(other) for _ in range(10)]


@QUICK
@given(scenarios("2022", EVERYTHING))
def test_hypothesis_picks_the_options_themselves(scenario: Scenario) -> None:
    """A pick is drawn as an index: the options (0, 1) never come back as (False, True), which a
    cache of strategies keyed by the options would hand out (they compare equal)."""
    validate(scenario)
    assert not [c for c in _constants(scenario) if isinstance(c.value, bool)]


@pytest.fixture
def certify_profile() -> Any:
    register()
    previous = getattr(settings, "_current_profile", None)
    settings.load_profile("certify")
    yield
    settings.load_profile(previous or "default")


def _summary(sweep: Sweep) -> tuple[Any, ...]:
    rules = {r: (rec.exercised, [(n, s, d) for n, s, d, _, _ in rec.failures])
             for r, rec in sweep.rules.items()}
    return sweep.examples, sweep.unspecified, sweep.errors, sweep.stopped, rules


@pytest.mark.parametrize("impl", ["reference_impl", "tests.mutants.no_dedupe"])
def test_a_derandomized_sweep_in_batches_judges_as_one_check_each(certify_profile: None, impl: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Under a derandomized profile a sandboxed implementation is sent the scenarios in batches
    (a few requests for 150 scenarios); the sweep records exactly what checking the same
    scenarios one by one in-process records, failures included."""
    import importlib

    sandboxed = SandboxedImplementation(impl)
    batches: list[int] = []
    submit = sandboxed.submit

    def counted(kind: str, *args: Any) -> int:
        if kind == BATCH:
            batches.append(len(args[0]))
        return submit(kind, *args)

    monkeypatch.setattr(sandboxed, "submit", counted)
    try:
        batched = run_sweep(sandboxed, "2022", 150, chunk=3)
    finally:
        sandboxed.close()
    alone = run_sweep(NamespaceAdapter(importlib.import_module(impl)), "2022", 150, chunk=3)
    assert sum(batches) > 100 and len(batches) <= 4, batches
    assert _summary(batched) == _summary(alone)
    if impl != "reference_impl":  # the mutant is caught, so the comparison covers failures
        assert any(rec.failures for rec in batched.rules.values())
