"""One checked scenario: predict, run on the implementation in isolation, compare, attribute."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import dataclass
from typing import Any

from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import Message, Raised, Trace

from . import noise
from .adapter import Adapter, release_of
from .attribution import leak_rules
from .compare import Naming
from .comparison import attribute, compare_traces
from .divergence import describe
from .excusal import Excusals, Judged, Repredict, judge
from .isolation import ScenarioTimeout, time_limit
from .runner import execute
from .sandbox import (
    ImplementationFault,
    ImplementationHung,
    ImplementationMisbehaved,
    RemoteError,
    SandboxedImplementation,
)
from .timing import confirmed, limit

#: Seconds one scenario may take on the implementation before it is re-run (a scenario takes
#: about a millisecond; torch's very first call about a tenth of a second); it counts as hung
#: only when its re-run, with conformance.timing.RERUN_FACTOR times as long, runs out too. Once
#: the implementation has hung (confirmed) timing.HANGS_BEFORE_SHORTER times, a quarter of it.
SCENARIO_SECONDS = 2.0

#: What the suite can drive: an adapter in this process, or one in a sandbox process.
Target = Adapter | SandboxedImplementation


@dataclass(frozen=True)
class Checked:
    """A scenario's prediction, observation, and where they part (``rules`` empty: they agree).

    ``fault`` is ``"crashed"``, ``"hung"`` or ``"misbehaved"`` when the implementation did not finish the
    scenario; ``observed`` is then empty and ``rules`` are every rule the scenario exercises.
    """

    scenario: Scenario
    expected: Trace
    observed: Trace
    naming: Naming
    rules: tuple[str, ...]
    differences: tuple[str, ...]
    leaked: tuple[str, ...]
    fault: str | None = None
    #: The rules the scenario broke only where an expected failure excuses them (``rules``
    #: holds them too, first); ``cut_short``:
    #: an excused divergence changed the trace's shape, so what followed it went unjudged.
    excused: tuple[str, ...] = ()
    cut_short: bool = False
    #: Under --compile: how much of the scenario Dynamo traced (a
    #: :class:`~conformance.compiled.Compilation`), and the eager run's trace; ``expected`` is
    #: then what eager did, with the model's rules (conformance.compilecheck).
    compilation: Any = None
    eager: Trace | None = None

    @property
    def not_compiled(self) -> bool:
        """Under --compile, Dynamo compiled nothing of the scenario: it was not judged."""
        return self.compilation is not None and not self.compilation.compiled


def scenario_seconds(target: Target) -> float:
    """The time limit of one scenario on ``target`` (shorter once it has hung a few times)."""
    return limit(target, SCENARIO_SECONDS)


def misbehaved(error: RemoteError) -> ImplementationMisbehaved:
    """A scenario's run that raised in the implementation's process, where the runner catches
    whatever the implementation raises: the implementation broke it (or broke the reply), so
    it is the implementation's fault, costing the scenario's rules like a crash."""
    return ImplementationMisbehaved(f"the implementation broke the scenario's run "
                                    f"({error.type_name}: {error.message})", error.partial)


def observe(scenario: Scenario, target: Target,
            seconds: float | None = None) -> tuple[Trace, Naming, tuple[str, ...]]:
    """Run ``scenario``: the observed trace, how its objects print, and what it left behind.

    Raises :class:`~conformance.sandbox.ImplementationFault` when the implementation crashes,
    or runs past ``seconds`` (default: :func:`scenario_seconds`) and past it again, longer,
    when re-run (:func:`conformance.timing.confirmed`).
    """
    seconds = scenario_seconds(target) if seconds is None else seconds
    return confirmed(lambda within: _observe_once(scenario, target, within), target, seconds,
                     "running a scenario")


def _observe_once(scenario: Scenario, target: Target,
                  seconds: float) -> tuple[Trace, Naming, tuple[str, ...]]:
    if isinstance(target, SandboxedImplementation):
        try:
            trace, naming, leaked = target.call("conformance._child:run_scenario", scenario,
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
          excused: Excusals | Collection[str] = ()) -> Checked | None:
    """``None`` when no rule specifies what the scenario does (the model bounds it).

    ``excused``: the expected failures (rule IDs, or :class:`~conformance.excusal.Excusals`
    scoped to functions); a divergence they cover is absorbed and the rest of the trace still
    compared (:mod:`conformance.excusal`). A target whose ``compile`` is set is checked
    compiled against eager (:func:`conformance.compilecheck.check_compiled`).
    """
    if getattr(adapter, "compile", False):
        from .compilecheck import check_compiled

        return check_compiled(scenario, adapter, seconds, excused)
    try:
        expected = predict(scenario, getattr(adapter, "stack_version", None), release_of(adapter))
    except (Unbounded, Unspecified):
        return None
    try:
        observed, naming, leaked = observe(scenario, adapter, seconds)
        noise.note(observed.noise)
    except ImplementationFault as fault:
        return faulted(scenario, expected, fault)

    def repredict(forced: Mapping[int, tuple[str, ...]]) -> Trace | None:
        try:
            return predict(scenario, getattr(adapter, "stack_version", None), release_of(adapter),
                           forced)
        except (Unbounded, Unspecified):
            return None

    return conclude(scenario, expected, observed, naming, leaked, excused, repredict)


def faulted(scenario: Scenario, expected: Trace, fault: ImplementationFault) -> Checked:
    """The implementation crashed or hung: blame the first step it did not get right or did
    not get to."""
    partial = Trace(fault.partial, Raised(type(fault).__name__, Message((str(fault),))), None)
    rules = attribute(scenario, expected, partial, {}) or expected.outcome.rules
    return Checked(scenario, expected, partial, {}, rules, (str(fault),), (), fault.kind)


def conclude(scenario: Scenario, expected: Trace, observed: Trace, naming: Naming,
             leaked: tuple[str, ...], excused: Excusals | Collection[str],
             repredict: Repredict | None = None, heading: str | None = None,
             compilation: Any = None, eager: Trace | None = None) -> Checked:
    """Judge ``observed`` against ``expected``: the rules it breaks (excusals applied), each
    difference described (after ``heading``), and what it left behind."""
    comparison = compare_traces(scenario, expected, observed, naming)  # the one alignment
    judged = (judge(scenario, expected, observed, naming, excused, repredict, first=comparison)
              if comparison else Judged((), ()))
    rules = judged.rules
    diff: tuple[str, ...] = ()
    if comparison:  # each difference with its rules, its field and its full values
        diff = tuple(describe(comparison))
        diff = diff if heading is None else (heading, *diff)
    if leaked:
        diff += tuple(f"state left behind after the scenario: {x}" for x in leaked)
        if not judged.failed:
            rules += tuple(r for r in leak_rules(scenario, expected, observed) if r not in rules)
    excused_only = tuple(r for r in judged.excused if r not in judged.failed)
    return Checked(scenario, expected, observed, naming, rules, diff, leaked,
                   excused=excused_only, cut_short=judged.cut_short, compilation=compilation,
                   eager=eager)
