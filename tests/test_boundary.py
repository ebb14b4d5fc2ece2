"""The boundary of compilation as a run parameter (conformance.target.runner.Run.execute's
``boundary``, spec.boundary): the set-up's first steps entered around the function ``wrap``
makes, the rest inside it, a graph break forced inside it, the call's tensors made inside it.
Run as it is (no compilation), where the boundary lies changes nothing: the same events, in
the same order, and the same outcome, for every scenario and every boundary."""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given, settings

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.generate.strategies import scenarios
from conformance.target.runner import Run
from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model import Scenario
from tests.example_counts import examples

ADAPTER = NamespaceAdapter(reference_impl)


def _identity(body: Any) -> Any:
    return body


class _Breaking(Run):
    """A run that counts the graph breaks its boundary forces (none happen, run as it is)."""

    breaks = 0

    def graph_break(self) -> None:
        self.breaks += 1


def _run(scenario: Scenario, boundary: Boundary) -> tuple[str, Boundary, int]:
    try:
        run = _Breaking(scenario, ADAPTER)
        trace = run.execute(wrap=_identity, boundary=boundary)
        # an object's address (in a message naming a mode) differs between two runs
        return re.sub(r"0x[0-9a-f]+", "0x?", repr(trace)), run.boundary, run.breaks
    finally:
        ADAPTER.reset()


@settings(max_examples=examples(200), deadline=None)
@given(scenarios("2022"))
def test_where_the_boundary_lies_changes_nothing_run_as_it_is(scenario: Scenario) -> None:
    inside, _, breaks = _run(scenario, Boundary())
    assert breaks == 0
    steps = len(scenario.setup)
    for outside in range(0, steps + 2):
        for brk in (None, *range(outside, steps + 2)):
            for made_inside in (False, True) if outside == 0 else (False,):
                asked = Boundary(outside, brk, made_inside)
                trace, used, breaks = _run(scenario, asked)
                assert used == asked.fitted(steps) and used.problem(steps) is None
                # a step that raises as it is entered ends the run before the break
                assert breaks <= (brk is not None), (asked, breaks)
                assert trace == inside, (asked, scenario)


def test_a_boundary_past_the_set_up_encloses_all_of_it() -> None:
    scenario = next(s for s in _examples() if len(s.setup) == 2)
    assert _run(scenario, Boundary(7))[1] == Boundary(2)
    assert _run(scenario, Boundary(-3))[1] == Boundary(0)
    assert _run(scenario, Boundary(1, 9))[1] == Boundary(1, 2)
    assert _run(scenario, Boundary(2, 0))[1] == Boundary(2, 2)
    for brk in (0, 1, 2):  # a break before either step, or before the call: forced once
        assert _run(scenario, Boundary(0, brk, True))[2] == 1


def test_a_boundary_that_does_not_fit_says_why_in_one_line() -> None:
    assert Boundary(2).problem(1) == "outside must be a number of set-up steps from 0 to 1, got 2"
    assert Boundary(1, 0).problem(2) == ("break must be a number of set-up steps from 1 (those "
                                         "entered outside) to 2, got 0")
    assert (Boundary(1, None, True).problem(2) or "").startswith(
        "made_inside needs every set-up step inside")
    assert Boundary(0, 2, True).problem(2) is None
    assert Boundary(1, None, True).fitted(2) == Boundary(1)  # a mode outside would see them made


def _examples() -> list[Scenario]:
    from spec.examples import load_examples

    return [e.scenario for e in load_examples() if e.scenario.generation == "2022"]


def test_a_compiled_reply_about_another_boundary_is_the_implementations_fault() -> None:
    """The suite knows where it asked the boundary to lie: a reply from the implementation's
    process that says the run put it elsewhere is not believed."""
    from conformance.judge.compilecheck import _observe_compiled_once as observe_once
    from conformance.sandbox.parent import ImplementationMisbehaved, SandboxedImplementation
    from conformance.target.compiled import Compilation

    scenario = next(s for s in _examples() if len(s.setup) == 2)
    trace = Run(scenario, ADAPTER).execute()
    naming: dict[tuple[str, str], str] = {}
    ADAPTER.reset()
    asked: list[Any] = []

    class Replying(SandboxedImplementation):
        def __init__(self, boundary: Boundary) -> None:  # no process: the reply is made up here
            self.boundary = boundary

        def call(self, target: str, *args: Any, **kwargs: Any) -> Any:
            asked.append(args)
            return trace, naming, trace, naming, Compilation(True, boundary=self.boundary), ()

    one, broken = Boundary(1), Boundary(0, 1, True)
    assert observe_once(scenario, Replying(one), 5.0, one)[4].outside == 1
    assert observe_once(scenario, Replying(Boundary(2)), 5.0, Boundary(9))[4].outside == 2  # fitted
    assert observe_once(scenario, Replying(broken), 5.0, broken)[4].boundary == broken
    with pytest.raises(ImplementationMisbehaved, match=r"its boundary was .*'outside': 0.* was asked"):
        observe_once(scenario, Replying(Boundary(0)), 5.0, one)
    with pytest.raises(ImplementationMisbehaved, match=r"'graph_break': None.* was asked"):
        observe_once(scenario, Replying(Boundary(0, None, True)), 5.0, broken)
    assert [a[1] for a in asked] == [one, Boundary(9), broken, one, broken]


def test_the_compiled_sweep_draws_where_the_compiled_function_begins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under --compile the sweep draws, with each scenario, where its user code meets the
    compiled function (set-up steps outside it, a graph break forced inside it, the call's
    tensors made inside it), and mode handlers that change the value they forward (which show
    a mode applied twice); an eager sweep draws neither."""
    from conformance.search import sweep as sweep_module

    seen: list[tuple[Scenario, Boundary]] = []

    def recording_check(scenario: Scenario, adapter: Any, excused: Any = (),
                        boundary: Boundary = EVERYTHING_INSIDE) -> None:
        seen.append((scenario, boundary))
        return None

    monkeypatch.setattr(sweep_module, "check", recording_check)
    # a seed of its own: 300 draws of a random seed miss one of the kinds below for 2 seeds in 60
    monkeypatch.setattr(sweep_module, "given_seed", lambda: 0)

    def drawn(compiling: bool) -> tuple[set[Boundary], int]:
        seen.clear()
        adapter = NamespaceAdapter(reference_impl)
        adapter.compile = compiling  # type: ignore[attr-defined]
        sweep_module.run_sweep(adapter, "stack", 300, chunk=1)
        adds = sum("ForwardAdd" in repr(s.modes) for s, _ in seen)
        return {b for _, b in seen}, adds

    boundaries, adds = drawn(compiling=True)
    seen_compiled = list(seen)
    assert adds > 0
    assert {b.outside for b in boundaries} == {0, 1, 2}, boundaries
    assert {b.graph_break for b in boundaries} == {None, 0, 1, 2}, boundaries
    assert any(b.made_inside and b.graph_break is not None for b in boundaries), boundaries
    assert not any(b.made_inside and b.outside for b in boundaries), boundaries
    assert all(b.graph_break is None or b.graph_break >= b.outside for b in boundaries)
    # each is fitted to its scenario before it is checked
    assert all(b.problem(len(sc.setup)) is None for sc, b in seen_compiled), seen_compiled[:3]
    assert drawn(compiling=False) == ({Boundary()}, 0)
