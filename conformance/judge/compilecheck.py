"""One scenario checked under ``--compile``: eager and compiled in one process, three ways.

The model predicts; the eager run of the same torch is the compiled run's oracle
(:mod:`conformance.judge.threeway` builds it from both); the compiled run is judged against it, with
the expected failures of the compiled run excusing what they name. A scenario Dynamo compiled
nothing of is not judged at all: it is "not compiled", never a pass.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from dataclasses import asdict

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import HandlerRun, Trace

from ..sandbox.isolation import ScenarioTimeout, time_limit
from ..sandbox.parent import (
    ImplementationFault,
    ImplementationHung,
    ImplementationMisbehaved,
    RemoteError,
    SandboxedImplementation,
)
from ..sandbox.timing import confirmed, limit
from ..target import noise
from ..target.adapter import release_of
from ..target.compiled import Compilation, run_compiled
from ..target.runner import execute
from .checked import Checked, Target, conclude, faulted, misbehaved
from .compare import Naming
from .comparison import Comparison, compare_traces
from .excusal import Excusals, Repredict, repredictor
from .threeway import eager_as_reference, reference, reordered_reference, to_common_depth

#: Seconds one scenario may take under --compile: both runs, and Dynamo tracing the compiled
#: one up to twice (fullgraph=True, then fullgraph=False); a scenario takes about a third of a
#: second, the very first one a few seconds. A time-out is re-run, with COMPILE_RERUN_FACTOR
#: times as long, before it counts as a hang, and once the implementation has hung a few times
#: the limit is a quarter of this, as for eager runs (conformance.sandbox.timing).
COMPILE_SECONDS = 30.0
#: The re-run of a compiled scenario gets twice its limit, not timing.RERUN_FACTOR times: 30 s
#: is already ten times what a first compiled scenario takes, and a confirmed hang costs both.
COMPILE_RERUN_FACTOR = 2.0


def compile_seconds(target: Target) -> float:
    """The time limit of one scenario under --compile on ``target``."""
    return limit(target, COMPILE_SECONDS)

Observed = tuple[Trace, dict[tuple[str, str], str], Trace, dict[tuple[str, str], str],
                 Compilation, tuple[str, ...]]


def observe_compiled(scenario: Scenario, target: Target, seconds: float,
                     boundary: Boundary = EVERYTHING_INSIDE) -> Observed:
    """The eager trace and naming, the compiled trace and naming, how much was compiled, and
    what the compiled run left behind (a time-out is re-run before it is a hang). ``boundary``:
    where the user code meets the compiled function (``spec.boundary``)."""
    return confirmed(lambda within: _observe_compiled_once(scenario, target, within, boundary),
                     target, seconds, "running a scenario under torch.compile",
                     COMPILE_RERUN_FACTOR)


def _observe_compiled_once(scenario: Scenario, target: Target, seconds: float,
                           boundary: Boundary) -> Observed:
    if isinstance(target, SandboxedImplementation):
        try:
            result = target.call("conformance.sandbox._child:run_scenario_compiled", scenario,
                                 boundary, seconds=seconds,
                                 during="running a scenario under torch.compile")
        except RemoteError as exc:  # the run failed in the implementation's process
            raise misbehaved(exc) from None
        eager, eager_naming, compiled, naming, compilation, leaked = result
        asked = boundary.fitted(len(scenario.setup))
        if compilation.boundary != asked:  # the reply is not about the run that was asked for
            raise ImplementationMisbehaved(
                f"the compiled run says its boundary was {asdict(compilation.boundary)} where "
                f"{asdict(asked)} was asked for")
        return eager, eager_naming, compiled, naming, compilation, tuple(leaked)
    try:
        with time_limit(seconds):
            eager, eager_naming = execute(scenario, target)
            target.reset()
            compiled, naming, compilation = run_compiled(scenario, target, boundary=boundary)
    except ScenarioTimeout as exc:
        raise ImplementationHung(f"the implementation hung: {exc}") from None
    finally:
        leaked = tuple(target.reset())
    return eager, eager_naming, compiled, naming, compilation, leaked


def reordering(scenario: Scenario, version: str | None, release: str | None, expected: Trace,
               eager: Trace, eager_naming: Naming, first: Comparison | None = None) -> Repredict | None:
    """How the compiled run's reference follows an excused reordering of a dispatch's
    overloaded arguments: the model predicts the scenario again with the compiled run's
    order (see :func:`conformance.judge.excusal.judge`), where the eager run showed the
    model's prediction step for step (``first``: their comparison, where the caller has made
    it); ``None`` where it did not (the model's word on what follows is then not eager's).
    Only a reordering is followed: a handler run the model predicts no dispatch for (Dynamo's
    own reads reaching a handler) or other types than the model's leave what follows
    unjudged, as any excused change of the trace's shape."""
    if first is None:
        first = compare_traces(None, expected, eager, eager_naming)
    if first:
        return None
    runs = [e for e in expected.events if isinstance(e, HandlerRun)]
    predicted = repredictor(scenario, version, release)

    def repredict(forced: Mapping[int, tuple[str, ...]]) -> Trace | None:
        if not all(at < len(runs) and sorted(types) == sorted(runs[at].types)
                   for at, types in forced.items()):
            return None
        again = predicted(forced)
        return None if again is None else reordered_reference(again, eager, eager_naming)

    return repredict


def check_compiled(scenario: Scenario, target: Target, seconds: float | None = None,
                   excused: Excusals | Collection[str] = (),
                   boundary: Boundary = EVERYTHING_INSIDE) -> Checked | None:
    """Like :func:`conformance.judge.check.check`, for the compiled run against the eager one
    (``boundary``: where the user code meets the compiled function, ``spec.boundary``).

    ``None`` when no rule specifies what the scenario does. The result's ``compilation`` says
    how much Dynamo traced; when it compiled nothing, ``rules`` is empty and nothing was judged.
    """
    version = getattr(target, "stack_version", None)
    try:
        expected = predict(scenario, version, release_of(target))
    except (Unbounded, Unspecified):
        return None
    try:
        eager, eager_naming, observed, naming, compilation, leaked = observe_compiled(
            scenario, target, compile_seconds(target) if seconds is None else seconds, boundary)
    except ImplementationFault as fault:
        return faulted(scenario, expected, fault)
    noise.note(observed.noise)
    if not compilation.compiled:
        return Checked(scenario, expected, observed, naming, (), (), leaked,
                       compilation=compilation, eager=eager)
    judged_eager, observed = to_common_depth(eager, observed)
    first = compare_traces(None, expected, judged_eager, eager_naming)  # once, for both
    oracle = reference(expected, judged_eager, eager_naming, first)
    if oracle is None:
        oracle = eager_as_reference(scenario, expected, judged_eager, eager_naming)
    repredict = reordering(scenario, version, release_of(target), expected, judged_eager,
                           eager_naming, first)

    heading = (f"compiled differs from eager ({compilation.describe()}); expected is what "
               "eager torch did:")
    excusals = Excusals.of(excused).in_compiled_run(compilation.boundary, scenario)
    return conclude(scenario, oracle, observed, naming, leaked, excusals, repredict, heading=heading,
                    compilation=compilation, eager=eager)

