"""One checked scenario: predict, run on the implementation in isolation, then judge
(:mod:`conformance.judge.checked`); a target that compiles is checked by
:mod:`conformance.judge.compilecheck`."""

from __future__ import annotations

from collections.abc import Collection

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import Trace

from ..sandbox.isolation import ScenarioTimeout, time_limit
from ..sandbox.parent import ImplementationFault, ImplementationHung, RemoteError, SandboxedImplementation
from ..sandbox.timing import confirmed, limit
from ..target import noise
from ..target.adapter import release_of
from ..target.runner import execute
from .checked import Checked, Target, conclude, faulted, misbehaved
from .compare import Naming
from .compilecheck import check_compiled
from .excusal import Excusals, repredictor

__all__ = ["SCENARIO_SECONDS", "Checked", "Target", "check", "conclude", "faulted", "misbehaved",
           "observe", "scenario_seconds"]

#: Seconds one scenario may take on the implementation before it is re-run (a scenario takes
#: about a millisecond; torch's very first call about a tenth of a second); it counts as hung
#: only when its re-run, with conformance.sandbox.timing.RERUN_FACTOR times as long, runs out too. Once
#: the implementation has hung (confirmed) timing.HANGS_BEFORE_SHORTER times, a quarter of it.
SCENARIO_SECONDS = 2.0


def scenario_seconds(target: Target) -> float:
    """The time limit of one scenario on ``target`` (shorter once it has hung a few times)."""
    return limit(target, SCENARIO_SECONDS)


def observe(scenario: Scenario, target: Target,
            seconds: float | None = None) -> tuple[Trace, Naming, tuple[str, ...]]:
    """Run ``scenario``: the observed trace, how its objects print, and what it left behind.

    Raises :class:`~conformance.sandbox.parent.ImplementationFault` when the implementation crashes,
    or runs past ``seconds`` (default: :func:`scenario_seconds`) and past it again, longer,
    when re-run (:func:`conformance.sandbox.timing.confirmed`).
    """
    seconds = scenario_seconds(target) if seconds is None else seconds
    return confirmed(lambda within: _observe_once(scenario, target, within), target, seconds,
                     "running a scenario")


def _observe_once(scenario: Scenario, target: Target,
                  seconds: float) -> tuple[Trace, Naming, tuple[str, ...]]:
    if isinstance(target, SandboxedImplementation):
        try:
            trace, naming, leaked = target.call("conformance.sandbox._child:run_scenario", scenario,
                                                seconds=seconds, during="running a scenario")
        except RemoteError as exc:  # the run failed in the implementation's process
            raise misbehaved(exc) from None
        return trace, naming, tuple(leaked)
    try:
        with time_limit(seconds):
            trace, naming = execute(scenario, target)
    except ScenarioTimeout as exc:
        raise ImplementationHung(f"the implementation hung: {exc}") from None
    finally:
        leaked = tuple(target.reset())
    return trace, naming, leaked


def check(scenario: Scenario, adapter: Target, seconds: float | None = None,
          excused: Excusals | Collection[str] = (),
          boundary: Boundary = EVERYTHING_INSIDE) -> Checked | None:
    """``None`` when no rule specifies what the scenario does (the model bounds it).

    ``excused``: the expected failures (rule IDs, or :class:`~conformance.judge.excusal.Excusals`
    scoped to functions); a divergence they cover is absorbed and the rest of the trace still
    compared (:mod:`conformance.judge.excusal`). A target whose ``compile`` is set is checked
    compiled against eager (:func:`conformance.judge.compilecheck.check_compiled`), its user
    code meeting the compiled function at ``boundary`` (``spec.boundary``).
    """
    if getattr(adapter, "compile", False):
        return check_compiled(scenario, adapter, seconds, excused, boundary)
    try:
        expected = predict(scenario, getattr(adapter, "stack_version", None), release_of(adapter))
    except (Unbounded, Unspecified):
        return None
    try:
        observed, naming, leaked = observe(scenario, adapter, seconds)
        noise.note(observed.noise)
    except ImplementationFault as fault:
        return faulted(scenario, expected, fault)

    repredict = repredictor(scenario, getattr(adapter, "stack_version", None), release_of(adapter))
    return conclude(scenario, expected, observed, naming, leaked, excused, repredict)
