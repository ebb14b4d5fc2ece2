"""Expected failures excuse exactly what they name: the rest of the trace is still compared.

An expected failure (``--expected-failures``) names a rule. When the first divergence of a
scenario is attributed to excused rules only, the divergence is *absorbed* — the predicted
field (of a handler run), event or outcome takes the observed value — and the comparison goes
on with the rest of the trace. The first divergence that is not excused fails its rules
alongside the excused ones, so a test that shows both is a failure. A divergence that changes
the shape of the trace (an event missing or one too many) cannot be absorbed: what follows it
is the consequence of a behaviour the spec does not describe, and is left unjudged.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, replace

from spec.model.functions import FORMS
from spec.model.scenario import Scenario
from spec.model.trace import HandlerRun, Trace

from .attribution import attribute
from .compare import Naming, align, differences, differing_field, first_divergence

#: A trace has a few dozen events at most; each round absorbs one field, event or outcome.
_MAX_ROUNDS = 200


@dataclass(frozen=True)
class Judged:
    """Where a scenario's observation departs from its prediction, excusals applied.

    ``failed``: the rules of the first divergence that is not excused (empty: none);
    ``excused``: the excused rules that the divergences before it broke; ``cut_short``: an
    excused divergence changed the shape of the trace, so what follows it was not compared.
    """

    failed: tuple[str, ...]
    excused: tuple[str, ...]
    cut_short: bool = False

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule the scenario counts against, excused ones first."""
        return tuple(dict.fromkeys((*self.excused, *self.failed)))


class Excusals:
    """The expected failures as excusals: rule ID -> the functions it is scoped to (empty:
    any). A divergence is excused when every rule it is attributed to is, in the function
    whose dispatch shows it."""

    def __init__(self, scopes: Mapping[str, Collection[str]] | Collection[str] = ()) -> None:
        if isinstance(scopes, Mapping):
            self.scopes = {rule: frozenset(funcs) for rule, funcs in scopes.items()}
        else:
            self.scopes = {rule: frozenset() for rule in scopes}

    def __bool__(self) -> bool:
        return bool(self.scopes)

    def covers(self, rules: Collection[str], funcs: Collection[str]) -> bool:
        """Whether every one of ``rules`` is excused where the divergence shows (``funcs``: the
        names of the function whose dispatch shows it, any of which a scope may use)."""
        return bool(rules) and all(
            rule in self.scopes and (not self.scopes[rule] or not self.scopes[rule].isdisjoint(funcs))
            for rule in rules)


#: Predicts the scenario again with the given overloaded types forced (spec.model.predict's
#: ``forced``); ``None`` when the rules do not say what follows.
Repredict = Callable[[Mapping[int, tuple[str, ...]]], "Trace | None"]


def judge(scenario: Scenario, expected: Trace, observed: Trace, naming: Naming,
          excused: Excusals | Collection[str] = (), repredict: Repredict | None = None) -> Judged:
    """Attribute every divergence up to the first one that ``excused`` does not cover.

    An excused divergence in the ``types`` a handler sees means the implementation overloads
    on other arguments than the rules say; with ``repredict`` the model predicts what follows
    from the observed ones (who runs after a ``NotImplemented``, and the outcome), so only
    what the excused rule does not explain is compared. So does an excused handler run where
    the model dispatches to no handler: the call is predicted again, dispatched with the types
    that handler saw.
    """
    excusals = excused if isinstance(excused, Excusals) else Excusals(excused)
    found: list[str] = []
    forced: dict[int, tuple[str, ...]] = {}
    current = expected
    for _ in range(_MAX_ROUNDS):
        rules = attribute(scenario, current, observed, naming)
        if not rules:
            return Judged((), tuple(dict.fromkeys(found)))
        if not excusals.covers(rules, _divergent_func(scenario, current, observed, naming)):
            return Judged(rules, tuple(dict.fromkeys(found)))
        found += rules
        runs, types = _forcing(current, observed, naming)
        if repredict is not None and types is not None and forced.get(runs) != types:
            forced[runs] = types
            following = repredict(forced)
        else:
            following = absorb(current, observed, naming)
        if following is None:
            return Judged((), tuple(dict.fromkeys(found)), cut_short=True)
        current = following
    return Judged((), tuple(dict.fromkeys(found)), cut_short=True)


def _divergent_func(scenario: Scenario, expected: Trace, observed: Trace,
                    naming: Naming) -> tuple[str, ...]:
    """The function whose dispatch shows the first divergence: that of the first differing
    handler run, else the scenario's call; with the call's syntactic form too where the
    handler was handed one of the form's callables (a scope may name either)."""
    call = scenario.call.func if scenario.call is not None else None
    divergence = first_divergence(align(expected, observed, naming), observed, naming)
    for event in divergence[1:] if divergence is not None else ():
        if isinstance(event, HandlerRun):
            form = FORMS.get(call or "")
            if form is not None and event.func in (form.handed, *form.also, *form.swapped):
                return (event.func, form.name)
            return (event.func,)
    return (call,) if call is not None else ()


def _forcing(expected: Trace, observed: Trace,
             naming: Naming) -> tuple[int, tuple[str, ...] | None]:
    """When the first divergence is in a handler run's ``types`` (its earlier fields agreeing)
    or is a handler run where another event (or none) is predicted: how many handler runs
    precede it, and the observed types; else ``(0, None)``."""
    divergence = first_divergence(align(expected, observed, naming), observed, naming)
    if divergence is not None:
        i, exp, obs = divergence
        if isinstance(obs, HandlerRun) and (
                not isinstance(exp, HandlerRun) or differing_field(exp, obs, naming) == "types"):
            return sum(isinstance(e, HandlerRun) for e in observed.events[:i]), obs.types
    return 0, None


def absorb(expected: Trace, observed: Trace, naming: Naming) -> Trace | None:
    """``expected`` with its first divergence from ``observed`` replaced by what was observed:
    one field of a handler run, one event of the same kind, or the outcome or final mode.
    ``None`` when the divergence is in the trace's shape (an event missing or added)."""
    expected = align(expected, observed, naming)
    divergence = first_divergence(expected, observed, naming)
    if divergence is not None:
        i, exp, obs = divergence
        if exp is None or obs is None or type(obs) is not type(exp):
            return None
        name = None
        if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun):
            name = differing_field(exp, obs, naming)
        events = list(expected.events)
        events[i] = replace(exp, **{name: getattr(obs, name)}) if name else replace(obs, rules=exp.rules)
        return replace(expected, events=tuple(events))
    outcomes = Trace((), expected.outcome, None), Trace((), observed.outcome, None)
    if differences(*outcomes, naming):
        if type(expected.outcome) is not type(observed.outcome):
            return None
        return replace(expected, outcome=replace(observed.outcome, rules=expected.outcome.rules))
    if expected.after != observed.after:
        return replace(expected, after=observed.after)
    return None
