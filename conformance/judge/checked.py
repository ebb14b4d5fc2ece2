"""A checked scenario: what judging a prediction against an observation concludes.

:class:`Checked` holds a scenario's prediction, observation and verdict; :func:`conclude` makes
it from the two traces (the one comparison pass, then excusals and descriptions); a crash or a
hang concludes through :func:`faulted`. Both the eager check (:mod:`conformance.judge.check`) and the
compiled one (:mod:`conformance.judge.compilecheck`) conclude here, so neither imports the other.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from spec.model.scenario import Scenario
from spec.model.trace import Message, Raised, Trace

from ..sandbox.parent import (
    ImplementationFault,
    ImplementationMisbehaved,
    RemoteError,
    SandboxedImplementation,
)
from ..target.adapter import Adapter
from .attribution import leak_rules
from .compare import Naming
from .comparison import attribute, compare_traces
from .divergence import describe
from .excusal import Excusals, Judged, Repredict, judge

__all__ = ["Checked", "Target", "conclude", "faulted", "misbehaved"]

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
    #: :class:`~conformance.target.compiled.Compilation`), and the eager run's trace; ``expected`` is
    #: then what eager did, with the model's rules (conformance.judge.compilecheck).
    compilation: Any = None
    eager: Trace | None = None

    def breaks(self, otherwise: tuple[str, ...] = ()) -> str:
        """The rules a failure's first line says the scenario breaks: those it fails, then, named
        apart, those an expected failure excuses (``otherwise`` where it counts against none)."""
        failing = ", ".join(r for r in (self.rules or otherwise) if r not in self.excused)
        spared = ", ".join(self.excused)
        if failing and spared:
            return f"{failing} (and, excused by the expected failures, {spared})"
        return failing or f"{spared} (excused by the expected failures)"

    @property
    def not_compiled(self) -> bool:
        """Under --compile, Dynamo compiled nothing of the scenario: it was not judged."""
        return self.compilation is not None and not self.compilation.compiled


def misbehaved(error: RemoteError) -> ImplementationMisbehaved:
    """A scenario's run that raised in the implementation's process, where the runner catches
    whatever the implementation raises: the implementation broke it (or broke the reply), so
    it is the implementation's fault, costing the scenario's rules like a crash."""
    return ImplementationMisbehaved(f"the implementation broke the scenario's run "
                                    f"({error.type_name}: {error.message})", error.partial)


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
