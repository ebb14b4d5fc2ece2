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
from typing import Final

from spec.boundary import WORDS, Boundary
from spec.model import Unbounded, Unspecified, predict
from spec.model.functions import FORMS
from spec.model.scenario import Scenario
from spec.model.trace import HandlerRun, Returned, Trace, Unlisted

from .compare import Naming, reordered
from .comparison import Comparison, compare_traces

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


#: The word a scope uses for a Python function the scenario defines itself (``foo``, ``bar``:
#: its names are the scenario's, so no vocabulary name can stand for them).
OWN_FUNCTION = "own function"

#: The words a scope uses for a divergence of a compiled run that needs where the boundary of
#: compilation lay, not a function (spec.boundary): a set-up begun outside the compiled function
#: (``"outside compile"``), a graph break forced inside it (``"across a graph break"``), the
#: call's tensors made inside it (``"made inside compile"``).
BOUNDARY_WORDS: Final = WORDS

#: The word a scope uses for a divergence of a compiled run of a scenario with a mode whose
#: ``__torch_function__`` is a classmethod (eager torch refuses such a mode when it dispatches
#: to it; what a compiled run does with one is its own cause, wherever it shows).
CLASSMETHOD_MODE: Final = "classmethod mode"

#: Every word a compiled run's scope may use beside function names.
COMPILED_WORDS: Final = (*BOUNDARY_WORDS, CLASSMETHOD_MODE)


class Excusals:
    """The expected failures as excusals: rule ID -> the functions it is scoped to (empty:
    any). A divergence is excused when every rule it is attributed to is, in the function
    whose dispatch shows it."""

    def __init__(self, scopes: Mapping[str, Collection[str]] | Collection[str] = (),
                 words: tuple[str, ...] = (), used: dict[str, set[str]] | None = None) -> None:
        #: the words that hold of the scenario's compiled run (COMPILED_WORDS)
        self.words = words
        #: rule ID -> the elements of its scope that excused a divergence (shared by the
        #: excusals made from these for a compiled run): what the run's report calls used
        self.used: dict[str, set[str]] = {} if used is None else used
        if isinstance(scopes, Mapping):
            self.scopes = {rule: frozenset(funcs) for rule, funcs in scopes.items()}
        else:
            self.scopes = {rule: frozenset() for rule in scopes}

    @classmethod
    def of(cls, excused: Excusals | Collection[str]) -> Excusals:
        """``excused`` as excusals: rule IDs alone excuse their rules in any function."""
        return excused if isinstance(excused, Excusals) else cls(excused)

    def __bool__(self) -> bool:
        return bool(self.scopes)

    def in_compiled_run(self, boundary: Boundary, scenario: Scenario | None = None) -> Excusals:
        """These excusals for a compiled run (of ``scenario``) whose user code met the compiled
        function at ``boundary``: a scope naming one of its words (:data:`COMPILED_WORDS`, e.g.
        ``"outside compile"`` where set-up steps were entered outside the compiled function,
        ``"classmethod mode"`` where a mode's handler is a classmethod) covers its divergences
        wherever they show."""
        words = boundary.features
        if scenario is not None and any(m.classmethod_handler for m in scenario.modes):
            words = (*words, CLASSMETHOD_MODE)
        return Excusals(self.scopes, words, self.used)

    def covers(self, rules: Collection[str], funcs: Collection[str]) -> bool:
        """Whether every one of ``rules`` is excused where the divergence shows (``funcs``: the
        names of the function whose dispatch shows it, any of which a scope may use)."""
        if self.words:
            funcs = (*funcs, *self.words)
        covered = bool(rules) and all(
            rule in self.scopes and (not self.scopes[rule] or not self.scopes[rule].isdisjoint(funcs))
            for rule in rules)
        if covered:  # each scope element that took part in excusing it is used
            for rule in rules:
                if self.scopes[rule]:
                    self.used.setdefault(rule, set()).update(self.scopes[rule].intersection(funcs))
        return covered


#: Predicts the scenario again with the given overloaded types forced (spec.model.predict's
#: ``forced``); ``None`` when the rules do not say what follows.
Repredict = Callable[[Mapping[int, tuple[str, ...]]], "Trace | None"]


def repredictor(scenario: Scenario, version: str | None, release: str | None) -> Repredict:
    """The :data:`Repredict` of ``scenario`` under the model of ``version`` and ``release``."""

    def repredict(forced: Mapping[int, tuple[str, ...]]) -> Trace | None:
        try:
            return predict(scenario, version, release, forced)
        except (Unbounded, Unspecified):
            return None

    return repredict


def judge(scenario: Scenario, expected: Trace, observed: Trace, naming: Naming,
          excused: Excusals | Collection[str] = (), repredict: Repredict | None = None,
          first: Comparison | None = None) -> Judged:
    """Attribute every divergence up to the first one that ``excused`` does not cover.

    An excused divergence in the ``types`` a handler sees means the implementation overloads
    on other arguments than the rules say; with ``repredict`` the model predicts what follows
    from the observed ones (who runs after a ``NotImplemented``, and the outcome), so only
    what the excused rule does not explain is compared. So does an excused handler run where
    the model dispatches to no handler: the call is predicted again, dispatched with the types
    that handler saw. ``first``: the comparison of ``expected`` with ``observed``, where the
    caller has made it; each round after it compares the absorbed prediction once.
    """
    excusals = Excusals.of(excused)
    found: list[str] = []
    forced: dict[int, tuple[str, ...]] = {}
    comparison = first if first is not None else compare_traces(scenario, expected, observed, naming)
    for _ in range(_MAX_ROUNDS):
        rules = comparison.rules
        if not rules:
            return Judged((), tuple(dict.fromkeys(found)))
        if not excusals.covers(rules, _divergent_func(scenario, comparison)):
            return Judged(rules, tuple(dict.fromkeys(found)))
        found += rules
        runs, types = _forcing(comparison)
        if repredict is not None and types is not None and forced.get(runs) != types:
            forced[runs] = types
            following = repredict(forced)
        else:
            following = absorb(comparison)
        if following is None:
            return Judged((), tuple(dict.fromkeys(found)), cut_short=True)
        comparison = compare_traces(scenario, following, observed, naming)
    return Judged((), tuple(dict.fromkeys(found)), cut_short=True)


def _divergent_func(scenario: Scenario, comparison: Comparison) -> tuple[str, ...]:
    """The function whose dispatch shows the first divergence: the function a handler was
    handed that nobody but the implementation called, that of the first differing handler
    run, else the scenario's call; with the call's syntactic form too where the
    handler was handed one of the form's callables, and :data:`OWN_FUNCTION` where it is a
    function the scenario defines (a scope may name either)."""
    call = scenario.call.func if scenario.call is not None else None
    own = {f.name for f in scenario.functions}
    if comparison.unlisted is not None:  # the function the handler was handed
        return (comparison.unlisted.func,)
    event = comparison.event
    for side in (event.expected, event.observed) if event is not None else ():
        if isinstance(side, HandlerRun):
            form = FORMS.get(call or "")
            if form is not None and side.func in (form.handed, *form.also, *form.swapped):
                return (side.func, form.name)
            return (side.func, OWN_FUNCTION) if side.func in own else (side.func,)
    if call is None:
        return ()
    return (call, OWN_FUNCTION) if call in own else (call,)


def _forcing(comparison: Comparison) -> tuple[int, tuple[str, ...] | None]:
    """When the first divergence is in a handler run's ``types`` (its earlier fields agreeing),
    is another overloaded argument's handler with the types reordered alike, or is a handler
    run where another event (or none) is predicted: how many handler runs precede it, and the
    observed types; else ``(0, None)``."""
    event = comparison.event
    if event is not None and isinstance(event.observed, HandlerRun) and (
            not isinstance(event.expected, HandlerRun) or event.field == "types"
            or (event.field == "who" and reordered(event.expected, event.observed))):
        runs = sum(isinstance(e, HandlerRun) for e in comparison.observed.events[:event.index])
        return runs, event.observed.types
    return 0, None


def absorb(comparison: Comparison) -> Trace | None:
    """The compared prediction with its first divergence from the observation replaced by what
    was observed: one field of a handler run, one event of the same kind, a handler handed a
    function nobody but the implementation called (accepted from then on), or the outcome or
    final mode. ``None`` when the divergence is in the trace's shape (an event missing or
    added), or when there is none."""
    if not comparison:
        return None
    expected, first = comparison.expected, comparison.found[0]
    if first.place == "event":
        exp, obs = first.events()
        if exp is None or obs is None or type(obs) is not type(exp):
            return None
        name = first.field if isinstance(exp, HandlerRun) else None
        events = list(expected.events)
        events[first.index] = (replace(exp, **{name: getattr(obs, name)}) if name
                               else replace(obs, rules=exp.rules))
        return replace(expected, events=tuple(events))
    if first.place == "unlisted":
        assert isinstance(first.observed, Unlisted)
        return replace(expected, unlisted=(*expected.unlisted, first.observed))
    if first.place == "outcome":
        observed = comparison.observed.outcome
        if type(expected.outcome) is not type(observed):
            return None
        if isinstance(observed, Returned) and isinstance(expected.outcome, Returned):
            # The value as observed; the rules that decide it, and what it would raise
            # otherwise (``if_raised``), as predicted.
            return replace(expected, outcome=replace(expected.outcome, value=observed.value))
        return replace(expected, outcome=replace(observed, rules=expected.outcome.rules))
    return replace(expected, after=comparison.observed.after)
