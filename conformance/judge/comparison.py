"""The one judging pass: a prediction and an observation aligned once, into their differences.

:func:`compare_traces` aligns the predicted trace with the observed one (the optional warnings
the observation does not show dropped, :func:`~conformance.judge.compare.align`), finds where they
part and says, for each place, the field, both values and the rules that decide it: the first
differing event, the first call a handler was handed that nobody but the implementation made
(TFM_REACH_008; before the differing event where it came first), the outcome, the mode left
current. Everything after the comparison reads
that list instead of aligning again: attribution (the rules of the first difference),
excusal (:mod:`conformance.judge.excusal` absorbs the first difference and compares once more),
description (:mod:`conformance.judge.divergence`) and the compiled path (:mod:`conformance.judge.threeway`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from spec.model.scenario import Scenario
from spec.model.trace import (
    UNLISTED_RULE,
    Event,
    HandlerRun,
    Outcome,
    Raised,
    Returned,
    Trace,
    Unlisted,
)

from .attribution import early_raise_rules, event_rules, leak_rules, outcome_rules
from .compare import Naming, align, differing_field, first_divergence, outcome_differs, unexplained

__all__ = ["Comparison", "Difference", "attribute", "compare_traces"]

Place = Literal["event", "unlisted", "outcome", "after"]


@dataclass(frozen=True)
class Difference:
    """One place where the observation departs from the prediction.

    ``place`` ``"event"``: the events at ``index`` of the aligned prediction (either side
    ``None`` past its end), ``field`` the first field in which two handler runs differ;
    ``"unlisted"``: a call a handler was handed (``observed``, an
    :class:`~spec.model.trace.Unlisted`, ``index`` its place among the events) that neither
    the scenario nor the suite made, where the prediction has none (``expected`` ``None``);
    ``"outcome"``: the two outcomes; ``"after"``: the modes left current. ``rules``: those
    that decide what differs there.
    """

    place: Place
    rules: tuple[str, ...]
    expected: Event | Outcome | str | None
    observed: Event | Outcome | Unlisted | str | None
    index: int = -1
    field: str | None = None

    def events(self) -> tuple[Event | None, Event | None]:
        """The expected and observed events of an ``"event"`` difference."""
        exp, obs = self.expected, self.observed
        assert self.place == "event" and not isinstance(exp, (str, Returned, Raised)) and (
            not isinstance(obs, (str, Returned, Raised, Unlisted)))
        return exp, obs


@dataclass(frozen=True)
class Comparison:
    """A prediction (``expected``, aligned to the observation) and an observation, and
    where they part (``found``: the first differing event, then the outcome, then the mode
    left current, each present only where it differs, and each call a handler was handed that
    neither the scenario nor the suite made, in its place before or after that event; empty
    when they agree)."""

    expected: Trace
    observed: Trace
    naming: Naming
    found: tuple[Difference, ...]

    def __bool__(self) -> bool:
        return bool(self.found)

    @property
    def rules(self) -> tuple[str, ...]:
        """The rules of the first difference: what the divergence is attributed to."""
        return self.found[0].rules if self.found else ()

    @property
    def unlisted(self) -> Unlisted | None:
        """The call of the first difference, where it is one nobody but the implementation made."""
        first = self.found[0] if self.found else None
        return (first.observed if first is not None and isinstance(first.observed, Unlisted)
                else None)

    @property
    def event(self) -> Difference | None:
        """The first differing event, where one differs."""
        first = self.found[0] if self.found else None
        return first if first is not None and first.place == "event" else None


def compare_traces(scenario: Scenario | None, expected: Trace, observed: Trace,
                   naming: Naming) -> Comparison:
    """Align ``expected`` with ``observed`` once and list where they part, with the rules of
    each place. ``scenario`` narrows the rules of a wrong mode left current to the step that
    made it current (:func:`~conformance.judge.attribution.leak_rules`)."""
    aligned = align(expected, observed, naming)
    found: list[Difference] = []
    divergence = first_divergence(aligned, observed, naming)
    if divergence is not None:
        index, exp, obs = divergence
        field = (differing_field(exp, obs, naming)
                 if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun) else None)
        rules = (early_raise_rules(aligned, observed, index, naming) if obs is None else ()) or (
            event_rules(aligned, index, exp, obs, naming, field))
        found.append(Difference("event", rules, exp, obs, index, field))
    # Each call nobody but the implementation made, in the order they came: before the event
    # that differs, or after it (an expected failure may excuse the first and not the next).
    extras = [Difference("unlisted", (UNLISTED_RULE,), None, extra, extra.at)
              for extra in unexplained(aligned, observed)]
    ahead = [d for d in extras if divergence is not None and d.index <= divergence[0]]
    found = [*ahead, *found, *extras[len(ahead):]]
    if outcome_differs(aligned.outcome, observed.outcome, naming):
        found.append(Difference("outcome",
                                outcome_rules(aligned.outcome, observed.outcome, naming),
                                aligned.outcome, observed.outcome))
    if aligned.after != observed.after:
        rules = (leak_rules(scenario, aligned, observed) if scenario is not None
                 else aligned.after_rules)
        found.append(Difference("after", rules, aligned.after, observed.after))
    return Comparison(aligned, observed, naming, tuple(found))


def attribute(scenario: Scenario, expected: Trace, observed: Trace, naming: Naming) -> tuple[str, ...]:
    """The rules the first divergence breaks; empty when the observation matches the prediction."""
    return compare_traces(scenario, expected, observed, naming).rules
