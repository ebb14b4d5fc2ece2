"""The boundary of compilation as a run parameter (conformance.target.runner.Run.execute's
``outside``): the set-up's first steps entered around the function ``wrap`` makes, the rest
inside it. Run as it is (no compilation), where the boundary lies changes nothing: the same
events, in the same order, and the same outcome, for every scenario and every boundary."""

from __future__ import annotations

import re
from typing import Any

import pytest
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


def test_a_compiled_reply_about_another_boundary_is_the_implementations_fault() -> None:
    """The suite knows where it asked the boundary to lie: a reply from the implementation's
    process that says the run entered another number of steps outside is not believed."""
    from conformance.judge.compilecheck import _observe_compiled_once as observe_once
    from conformance.sandbox.parent import ImplementationMisbehaved, SandboxedImplementation
    from conformance.target.compiled import Compilation

    scenario = next(s for s in _examples() if len(s.setup) == 2)
    trace = Run(scenario, ADAPTER).execute()
    naming: dict[tuple[str, str], str] = {}
    ADAPTER.reset()
    asked: list[Any] = []

    class Replying(SandboxedImplementation):
        def __init__(self, outside: int) -> None:  # no process: the reply is made up here
            self.outside = outside

        def call(self, target: str, *args: Any, **kwargs: Any) -> Any:
            asked.append(args)
            return trace, naming, trace, naming, Compilation(True, outside=self.outside), ()

    assert observe_once(scenario, Replying(1), 5.0, 1)[4].outside == 1
    assert observe_once(scenario, Replying(2), 5.0, 9)[4].outside == 2  # clamped
    with pytest.raises(ImplementationMisbehaved, match=r"entered 0 set-up step.* 1 were asked"):
        observe_once(scenario, Replying(0), 5.0, 1)
    assert [a[1] for a in asked] == [1, 9, 1]


def test_the_compiled_sweep_draws_where_the_compiled_function_begins(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Under --compile the sweep draws, with each scenario, how many of its set-up steps are
    entered outside the compiled function, and mode handlers that change the value they
    forward (which show a mode applied twice); an eager sweep draws neither."""
    from conformance.search import sweep as sweep_module

    seen: list[tuple[Scenario, int]] = []

    def recording_check(scenario: Scenario, adapter: Any, excused: Any = (),
                        outside: int = 0) -> None:
        seen.append((scenario, outside))
        return None

    monkeypatch.setattr(sweep_module, "check", recording_check)

    def drawn(compiling: bool) -> tuple[set[int], int]:
        seen.clear()
        adapter = NamespaceAdapter(reference_impl)
        adapter.compile = compiling  # type: ignore[attr-defined]
        sweep_module.run_sweep(adapter, "stack", 300, chunk=1)
        adds = sum("ForwardAdd" in repr(s.modes) for s, _ in seen)
        return {k for _, k in seen}, adds

    boundaries, adds = drawn(compiling=True)
    assert {0, 1, 2} <= boundaries and adds > 0, (boundaries, adds)
    assert drawn(compiling=False) == ({0}, 0)
