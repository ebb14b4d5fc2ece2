"""One pass of generated scenarios over an implementation, recorded rule by rule."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from hypothesis import Phase, core, given, seed, settings
from hypothesis import strategies as st

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model.scenario import Generation, Scenario

from ..generate.strategies import FORWARD_ADD, scenarios
from ..judge.check import Target, check
from ..judge.excusal import Excusals


@dataclass
class RuleRecord:
    """How often generated scenarios exercised a rule, and the ones that broke it."""

    exercised: int = 0
    #: (1-based number of the generated scenario, the scenario, its differences,
    #: "crashed", "hung" or "misbehaved" when the implementation did not finish it, and under
    #: --compile where its user code met the compiled function)
    failures: list[tuple[int, Scenario, tuple[str, ...], str | None, Boundary]] = field(
        default_factory=list)
    #: ``failures[0]`` is the first scenario that broke the rule where no expected failure
    #: excused it (the one to report and shrink), once there is one
    unexcused_first: bool = False


@dataclass
class Sweep:
    generation: Generation
    examples: int = 0
    unspecified: int = 0
    rules: dict[str, RuleRecord] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)
    #: How many scenarios the implementation crashed or hung on.
    faults: int = 0
    #: Why the sweep stopped before its number of scenarios (None: it did not).
    stopped: str | None = None
    #: Scenarios with a divergence that an expected failure excuses, and those of them whose
    #: excused divergence changed the trace's shape (the rest of it went unjudged).
    excused: int = 0
    cut_short: int = 0
    #: Rules some scenario broke where no expected failure excuses them.
    unexcused: set[str] = field(default_factory=set)
    #: Under --compile, how much Dynamo traced of each scenario (conformance.target.compiled).
    compilations: list[Any] = field(default_factory=list)

    def record(self, rule_id: str) -> RuleRecord:
        return self.rules.setdefault(rule_id, RuleRecord())


#: Under --compile, where a scenario's user code meets the compiled function (spec.boundary),
#: drawn with it: the set-up's first steps entered outside it (two times in three none, else
#: one or two; a number past the set-up encloses all of it), a graph break forced inside it
#: (two times in three none, else after none to two of the steps, never before those
#: entered outside) and, where no step is entered outside, the call's tensors made inside it
#: (one time in four). About a third of the scenarios keep everything inside, unbroken. Each is
#: fitted to its scenario's set-up (Boundary.fitted) before it is checked.
BOUNDARIES = st.tuples(st.sampled_from((0, 0, 0, 0, 1, 2)),
                       st.sampled_from((None, None, None, None, None, None, 0, 1, 2)),
                       st.sampled_from((False, False, False, True))).map(lambda drawn: Boundary(*drawn))

#: After this many crashed or hung scenarios a sweep checks no more: each costs a restart of
#: the implementation (and a hang its whole time limit), and the rules they broke already fail.
MAX_FAULTS = 3


class _Stop(BaseException):
    """Ends the hypothesis loop of a sweep (a BaseException: hypothesis does not replay it)."""


def run_sweep(adapter: Target, generation: Generation, max_examples: int | None = None,
              keep: int = 3, chunk: int | None = None, deadline: float | None = None,
              excused: Excusals | Collection[str] = ()) -> Sweep:
    """Generate scenarios with the active hypothesis profile (no shrinking) and check each.

    ``chunk`` numbers one of several independent sweeps (pytest-xdist spreads them over
    workers): under a given seed (``--hypothesis-seed``) or a derandomized profile each chunk
    draws from a seed of its own (:func:`chunk_seed`), so the chunks together are reproducible
    and none repeats another. ``deadline`` (a ``time.monotonic()`` value) ends the
    sweep early: the scenarios checked so far stand. ``excused``: the rules of the expected
    failures; every scenario is checked whatever they excuse (see :func:`~conformance.judge.check.check`).
    """
    result = Sweep(generation)
    current = settings()
    examples = max_examples if max_examples is not None else current.max_examples
    derandomize = current.derandomize and chunk is None
    own_seed = None if chunk is None else chunk_seed(given_seed(), current.derandomize, chunk)

    def one(scenario: Scenario, boundary: Boundary) -> None:
        if deadline is not None and time.monotonic() >= deadline:
            result.stopped = (f"stopped after scenario #{result.examples}: its share of the "
                              "per-test time limit ran out")
            raise _Stop
        result.examples += 1
        boundary = boundary.fitted(len(scenario.setup))
        try:
            checked = check(scenario, adapter, excused=excused, boundary=boundary)
        except Exception as exc:  # the suite must not die with the implementation
            result.errors.append(f"{type(exc).__name__}: {exc}")
            return
        if checked is None:
            result.unspecified += 1
            return
        if checked.compilation is not None:
            result.compilations.append(checked.compilation)
            if checked.not_compiled:  # nothing was judged: it exercised no rule
                return
        result.excused += bool(checked.excused)
        result.cut_short += checked.cut_short
        result.unexcused.update(r for r in checked.rules if r not in checked.excused)
        for rule_id in checked.expected.rules_exercised():
            result.record(rule_id).exercised += 1
        for rule_id in checked.rules:
            record = result.record(rule_id)
            found = (result.examples, scenario, checked.differences, checked.fault, boundary)
            if rule_id not in checked.excused and not record.unexcused_first:
                # the failure to report comes first, ahead of excused ones found before it
                record.failures.insert(0, found)
                record.unexcused_first = True
                del record.failures[max(keep, 1):]
            elif len(record.failures) < keep:
                record.failures.append(found)
        if checked.fault is not None:
            result.faults += 1
            if result.faults >= MAX_FAULTS:
                result.stopped = (f"stopped after scenario #{result.examples}: the implementation "
                                  f"crashed or hung on {result.faults} scenarios")
                raise _Stop

    pinned = settings(current, max_examples=examples, database=None, phases=(Phase.generate,),
                      derandomize=derandomize)
    features = adapter.features
    if getattr(adapter, "compile", False):  # where the compiled function begins is drawn too
        run = pinned(given(scenarios(generation, features | {FORWARD_ADD}), BOUNDARIES)(one))
    else:  # the same draws as before the boundary was drawn, for a given seed
        run = pinned(given(scenarios(generation, features))(
            lambda scenario: one(scenario, EVERYTHING_INSIDE)))
    if own_seed is not None:
        run = seed(own_seed)(run)
    try:
        run()
    except _Stop:
        pass
    return result


def given_seed() -> object:
    """The seed given to hypothesis (``--hypothesis-seed``), or None."""
    return getattr(core, "global_force_seed", None)


def chunk_seed(base: object, derandomize: bool, chunk: int) -> int | None:
    """The seed chunk ``chunk`` draws from: derived from the given seed and the chunk number;
    under a derandomized profile without a given seed, the chunk number itself; else None
    (each chunk draws at random)."""
    if base is not None:
        digest = hashlib.sha256(f"tfmode-chunk:{base!r}:{chunk}".encode()).digest()
        return int.from_bytes(digest[:8], "big")
    return chunk if derandomize else None
