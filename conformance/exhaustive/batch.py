"""Many scenarios per round trip: predicted here, run together in the implementation's process,
then judged one by one exactly as :func:`conformance.judge.check.check` judges them.

A batch costs one request instead of one per scenario and sends each trace whole instead of
event by event. What a batch cannot do is tell which scenario crashed or hung the
implementation: when a batch ends in a fault (or its run raises in the implementation's
process), each of its scenarios is checked again on its own with :func:`~conformance.judge.check.check`,
whose time limit, restart and blame are the generated sweep's.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import Trace

from ..judge.check import check, scenario_seconds
from ..judge.checked import Checked, Target, conclude
from ..judge.excusal import Excusals, repredictor
from ..sandbox.parent import ImplementationFault, RemoteError, SandboxedImplementation
from ..sandbox.replies import BATCH
from ..target import noise
from ..target.adapter import release_of

#: Scenarios sent in one request.
BATCH_SIZE = 64
#: Seconds a batch may take per scenario, beyond one scenario's own limit: a scenario takes about
#: a millisecond. A batch that runs out of it (a hang, or a slow implementation) is not blamed:
#: each of its scenarios is run again with its own limit, which confirms a hang or clears it.
PER_SCENARIO = 0.05


def _seconds(target: SandboxedImplementation, scenarios: int) -> float:
    return scenario_seconds(target) + PER_SCENARIO * scenarios


@dataclass(frozen=True)
class Outcome:
    """One enumerated scenario's verdict: ``checked`` is None where no rule specifies it."""

    scenario: Scenario
    checked: Checked | None


def check_all(scenarios: Iterable[Scenario], target: Target,
              excused: Excusals | Collection[str] = (), size: int = BATCH_SIZE) -> Iterator[Outcome]:
    """Every scenario checked, in order; batched where ``target`` runs in a sandbox and
    compiles nothing (elsewhere one :func:`check` each). Batches are pipelined: the next one is
    predicted and sent before the one in flight is judged, so the implementation's process
    runs while this one predicts and judges."""
    if not isinstance(target, SandboxedImplementation) or getattr(target, "compile", False):
        for scenario in scenarios:
            yield Outcome(scenario, check(scenario, target, excused=excused))
        return
    pending: list[_Sent] = []  # sent, not yet judged (at most two: one running, one next)
    try:
        for chunk in _chunks(scenarios, size):
            pending.append(_send(chunk, target))
            if len(pending) == 2:
                yield from _judge(pending[0], target, excused)
                pending.pop(0)
        while pending:
            yield from _judge(pending[0], target, excused)
            pending.pop(0)
    finally:  # the caller stopped early: what is in flight is answered before anything else
        for batch in pending:
            if batch.request is not None:
                _drain(batch, target)


def _chunks(scenarios: Iterable[Scenario], size: int) -> Iterator[list[Scenario]]:
    chunk: list[Scenario] = []
    for scenario in scenarios:
        chunk.append(scenario)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


@dataclass
class _Sent:
    """A batch: its scenarios, their predictions (None: unspecified) and its request (None:
    nothing to run, or it could not be sent)."""

    chunk: list[Scenario]
    predicted: list[Trace | None]
    request: int | None
    sent: int


def _send(chunk: list[Scenario], target: SandboxedImplementation) -> _Sent:
    stack, release = getattr(target, "stack_version", None), release_of(target)
    predicted: list[Trace | None] = []
    for scenario in chunk:
        try:
            predicted.append(predict(scenario, stack, release))
        except (Unbounded, Unspecified):
            predicted.append(None)
    todo = [s for s, p in zip(chunk, predicted, strict=True) if p is not None]
    request = None
    if todo:
        try:
            request = target.submit(BATCH, todo)
        except ImplementationFault:
            request = None
    return _Sent(chunk, predicted, request, len(todo))


def _drain(batch: _Sent, target: SandboxedImplementation) -> None:
    """Read (and drop) the reply to a batch nobody will judge."""
    assert batch.request is not None
    try:
        target.collect(batch.request, BATCH, seconds=_seconds(target, batch.sent),
                       during=f"running a batch of {batch.sent} scenarios")
    except (ImplementationFault, RemoteError):
        pass


def _one_by_one(chunk: list[Scenario], target: Target,
                excused: Excusals | Collection[str]) -> Iterator[Outcome]:
    for scenario in chunk:
        yield Outcome(scenario, check(scenario, target, excused=excused))


def _judge(batch: _Sent, target: SandboxedImplementation,
           excused: Excusals | Collection[str]) -> Iterator[Outcome]:
    """The batch's outcomes: from its reply, or (a fault, a reply that does not fit, a batch
    that was never sent) each scenario checked on its own."""
    results: list[tuple[Trace, Any, Any]] | None = None
    if batch.request is not None:
        request, batch.request = batch.request, None  # collected: nothing left to drain
        try:
            results = target.collect(request, BATCH,
                                     seconds=_seconds(target, batch.sent),
                                     during=f"running a batch of {batch.sent} scenarios")
        except (ImplementationFault, RemoteError):
            results = None
    elif batch.sent == 0:
        results = []
    if results is None or len(results) != batch.sent:  # believe none of a reply of the wrong length
        yield from _one_by_one(batch.chunk, target, excused)
        return
    stack, release = getattr(target, "stack_version", None), release_of(target)
    observed = iter(results)
    for scenario, expected in zip(batch.chunk, batch.predicted, strict=True):
        if expected is None:
            yield Outcome(scenario, None)
            continue
        trace, naming, leaked = next(observed)
        noise.note(trace.noise)

        yield Outcome(scenario, conclude(scenario, expected, trace, naming, tuple(leaked), excused,
                                         repredictor(scenario, stack, release)))
