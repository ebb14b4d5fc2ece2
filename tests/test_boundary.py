"""The boundary of compilation as a run parameter (conformance.target.runner.Run.execute's
``outside``): the set-up's first steps entered around the function ``wrap`` makes, the rest
inside it. Run as it is (no compilation), where the boundary lies changes nothing: the same
events, in the same order, and the same outcome, for every scenario and every boundary."""

from __future__ import annotations

import re
from typing import Any

from hypothesis import given, settings

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.generate.strategies import scenarios
from conformance.target.runner import Run
from spec.model import Scenario

ADAPTER = NamespaceAdapter(reference_impl)


def _identity(body: Any) -> Any:
    return body


def _run(scenario: Scenario, outside: int) -> Any:
    try:
        run = Run(scenario, ADAPTER)
        trace = run.execute(wrap=_identity, outside=outside)
        # an object's address (in a message naming a mode) differs between two runs
        return re.sub(r"0x[0-9a-f]+", "0x?", repr(trace)), run.outside
    finally:
        ADAPTER.reset()


@settings(max_examples=200, deadline=None)
@given(scenarios("2022"))
def test_where_the_boundary_lies_changes_nothing_run_as_it_is(scenario: Scenario) -> None:
    inside, _ = _run(scenario, 0)
    for outside in range(1, len(scenario.setup) + 2):
        trace, used = _run(scenario, outside)
        assert used == min(outside, len(scenario.setup))
        assert trace == inside, (outside, scenario)


def test_a_boundary_past_the_set_up_encloses_all_of_it() -> None:
    scenario = next(s for s in _examples() if len(s.setup) == 2)
    assert _run(scenario, 7)[1] == 2 and _run(scenario, -3)[1] == 0


def _examples() -> list[Scenario]:
    from spec.examples import load_examples

    return [e.scenario for e in load_examples() if e.scenario.generation == "2022"]
