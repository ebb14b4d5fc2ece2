"""Differential runs: the same generated scenarios on two implementations, minimal differences."""

from __future__ import annotations

import dataclasses
import json
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass

from hypothesis import HealthCheck, Phase, Verbosity, assume, given, seed, settings
from hypothesis import strategies as st

from spec.catalogue import load_catalogue
from spec.model import Unbounded, Unspecified, predict, scenario_to_dict
from spec.model.functions import FUNCS
from spec.model.scenario import (
    Action,
    Behaviour,
    Disable,
    EnableInside,
    Enter,
    ModeDecl,
    Push,
    PushInside,
    Scenario,
    Step,
)
from spec.model.trace import (
    ANY_DICT,
    NONE_PASSED,
    Constructed,
    Event,
    HandlerRun,
    Message,
    Raised,
    Returned,
    Trace,
)

if sys.version_info < (3, 11):  # Python 3.10
    from exceptiongroup import BaseExceptionGroup

from ..generate.shrink import shrink
from ..generate.strategies import scenarios
from ..judge.compare import values_equal
from ..snippet import describe
from ..target.adapter import Adapter, Generation
from ..target.runner import execute

__all__ = ["Finding", "compare_traces", "find_differences", "portable", "render", "translate"]

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
_FIELDS = ("who", "role", "func", "types", "kwargs", "args", "kwvalues", "current", "bound")


@dataclass(frozen=True)
class Finding:
    """A minimal scenario on which the two implementations behave differently."""

    base: Scenario
    scenario_a: Scenario
    scenario_b: Scenario
    trace_a: Trace
    trace_b: Trace
    where: str
    summary: str
    rules: tuple[str, ...]
    rules_note: str

    @property
    def signature(self) -> tuple[str, str]:
        """What kind of difference this is: where the traces part and, for a handler, which field."""
        kind, _, rest = self.where.partition(" ")
        return kind, rest.partition("(")[2].rstrip(")")


class _Difference(Exception):
    """Raised inside the search; one subclass per signature so hypothesis shrinks each apart."""

    def __init__(self, finding: Finding) -> None:
        super().__init__(finding.summary)
        self.finding = finding


# -- scenarios for two generations -------------------------------------------------------------


def _plain(action: Action) -> Action:
    """``action`` without enabling inside handlers (2022 only); pushes inside stay (both have)."""
    if isinstance(action, EnableInside):
        return _plain(action.then)
    if isinstance(action, PushInside):
        return dataclasses.replace(action, then=_plain(action.then))
    return action


def _plain_behaviour(b: Behaviour) -> Behaviour:
    return Behaviour(_plain(b.default), tuple((f, _plain(a)) for f, a in b.on))


def portable(sc: Scenario) -> Scenario:
    """Only what both generations have: pushes of a mode class (also inside handlers) and
    DisableTorchFunction; no enable, raw slot or constructing steps, and an enable inside a
    handler is replaced by what follows it."""
    setup = tuple(s for s in sc.setup
                  if (isinstance(s, Push) and s.how == "ctor")
                  or (isinstance(s, Disable) and not s.subclass_only))
    classes = tuple(dataclasses.replace(c, behaviour=None if c.behaviour is None
                                        else _plain_behaviour(c.behaviour)) for c in sc.classes)
    modes = tuple(ModeDecl(m.name, _plain_behaviour(m.behaviour), m.classmethod_handler)
                  for m in sc.modes)
    return dataclasses.replace(sc, classes=classes, modes=modes, setup=setup)


def translate(sc: Scenario, generation: Generation) -> Scenario:
    """A portable scenario for ``generation``: 2022 ``Push(M)`` is stack ``Enter(M)``."""
    steps: list[Step] = []
    for step in sc.setup:
        if generation == "stack" and isinstance(step, Push):
            steps.append(Enter(step.mode))
        elif generation == "2022" and isinstance(step, Enter):
            steps.append(Push(step.mode))
        else:
            steps.append(step)
    return dataclasses.replace(sc, generation=generation, setup=tuple(steps))


# -- running and comparing ---------------------------------------------------------------------


def _run(adapter: Adapter, sc: Scenario) -> Trace:
    try:
        trace, _ = execute(sc, adapter)
    except Exception as exc:  # the runner itself could not drive the implementation
        trace = Trace((), Raised(f"runner error {type(exc).__name__}", Message((str(exc),))), None)
    finally:
        adapter.reset()
    return trace


def _canon(text: str, names: tuple[str, ...]) -> str:
    text = _ADDRESS.sub("0x?", text)
    for name in names:
        text = re.sub(rf"\b{re.escape(name)}\b", "<impl>", text)
    return text


def _event_text(event: Event | None, names: tuple[str, ...]) -> str:
    if event is None:
        return "nothing"
    if isinstance(event, HandlerRun):
        event = dataclasses.replace(event, rules=(), why=())
        info = FUNCS.get(event.func)
        if info is not None and info.path == "python" and event.kwargs not in (None, NONE_PASSED):
            # The Python path's keywords are whatever the function passes on (TFM_ARGS_004);
            # a scenario's own function passes on exactly its keyword parameters.
            event = dataclasses.replace(event, kwargs=ANY_DICT, kwvalues=None)
    return _canon(repr(event), names)


def _outcome_text(trace: Trace) -> str:
    return describe(Trace((), trace.outcome, None))[0]


def _across_generations(trace: Trace) -> Trace:
    """What two generations can be compared on: no constructions, and the 2022 chain's end as none.

    A 2022 mode is built with ``inner`` and a pushed chain ends in a BaseTorchFunctionMode; a
    stack-generation mode has neither. Those differences are the generations', not a finding.
    """
    def plain(event: Event) -> Event:
        if isinstance(event, HandlerRun) and event.current == "<base>":
            return dataclasses.replace(event, current=None)
        return event

    events = tuple(plain(e) for e in trace.events if not isinstance(e, Constructed))
    return dataclasses.replace(trace, events=events)


def compare_traces(a: Trace, b: Trace, names: tuple[str, ...] = (),
                   across: bool = False) -> tuple[str, str] | None:
    """``(where, summary)`` of the first difference; ``None`` when they behave alike.

    Object addresses and the implementations' own module ``names`` are not differences; with
    ``across`` (two generations), neither are constructions and the end of the 2022 chain.
    """
    if across:
        a, b = _across_generations(a), _across_generations(b)
    for i in range(max(len(a.events), len(b.events))):
        ea = a.events[i] if i < len(a.events) else None
        eb = b.events[i] if i < len(b.events) else None
        if _event_text(ea, names) != _event_text(eb, names):
            field = ""
            if isinstance(ea, HandlerRun) and isinstance(eb, HandlerRun):
                field = next((f for f in _FIELDS if getattr(ea, f) != getattr(eb, f)), "")
            where = f"event {i}" + (f" ({field})" if field else "")
            return where, (f"{where}: A: {_show_event(ea)}; B: {_show_event(eb)}")
    oa, ob = a.outcome, b.outcome
    same = (values_equal(oa.value, ob.value) if isinstance(oa, Returned) and isinstance(ob, Returned)
            else isinstance(oa, Raised) and isinstance(ob, Raised) and oa.exc_type == ob.exc_type
            and _canon(oa.message.render(), names) == _canon(ob.message.render(), names))
    if not same:
        return "outcome", f"outcome: A {_outcome_text(a)}; B {_outcome_text(b)}"
    if _canon(repr(a.after), names) != _canon(repr(b.after), names):
        return "after", f"current mode afterwards: A {a.after!r}; B {b.after!r}"
    return None


def _show_event(event: Event | None) -> str:
    if event is None:
        return "nothing"
    return describe(Trace((event,), Returned(None), None))[0]


# -- which rules decide it ---------------------------------------------------------------------


def _rules_at(expected: Trace, where: str) -> tuple[str, ...]:
    if where.startswith("event "):
        index = int(where.split()[1])
        field = where.split("(")[1].rstrip(")") if "(" in where else "who"
        if index < len(expected.events):
            event = expected.events[index]
            if isinstance(event, HandlerRun) and hasattr(event, "rules_for"):
                return tuple(event.rules_for(field))
            return tuple(event.rules)
        return tuple(expected.outcome.rules)
    if where == "outcome":
        return tuple(expected.outcome.rules)
    found: list[str] = []
    for event in expected.events:
        if type(event).__name__ == "Installed":
            found += event.rules
    return tuple(dict.fromkeys(found))


class _Unmodelled(Exception):
    """The model bounds the scenario or leaves it unspecified: no verdict, so no comparison."""


def predictions(scenarios_by_gen: Mapping[str, Scenario]) -> tuple[dict[str, Trace], str]:
    """The model's trace per generation it has a model for, and a note on what it covered.

    Raises :class:`_Unmodelled` where a model exists but bounds the scenario or says that no
    rule specifies it (there two implementations may differ and both conform).
    """
    traces: dict[str, Trace] = {}
    notes: list[str] = []
    for gen, sc in scenarios_by_gen.items():
        try:
            traces[gen] = predict(sc)
        except Unbounded:
            raise _Unmodelled from None
        except Unspecified as exc:
            if gen != "stack":
                raise _Unmodelled from None
            notes.append(f"no stack-generation model yet ({exc})")
            continue
        notes.append(f"{gen} model")
    return traces, "; ".join(notes)


def deciding_rules(expected: Mapping[str, Trace], where: str) -> tuple[str, ...]:
    """The rules the model tags on the first differing step."""
    rules: list[str] = []
    for trace in expected.values():
        rules += _rules_at(trace, where)
    return tuple(dict.fromkeys(rules))


# -- the search --------------------------------------------------------------------------------


def _strategy(gen_a: Generation, gen_b: Generation) -> st.SearchStrategy[Scenario]:
    if gen_a == gen_b:
        return scenarios(gen_a)
    return scenarios("2022").map(portable)


def examine(a: Adapter, b: Adapter, sc: Scenario) -> Finding | None:
    """Run ``sc`` (translated per generation) on both; the difference, if any.

    Raises :class:`_Unmodelled` when the model does not cover ``sc``.
    """
    sa, sb = translate(sc, a.generation), translate(sc, b.generation)
    by_gen: dict[str, Scenario] = {a.generation: sa, b.generation: sb}
    expected, note = predictions(by_gen)
    ta, tb = _run(a, sa), _run(b, sb)
    found = compare_traces(ta, tb, tuple(sorted({a.name, b.name}, key=len, reverse=True)),
                           across=a.generation != b.generation)
    if found is None:
        return None
    where, text = found
    return Finding(sc, sa, sb, ta, tb, where, text, deciding_rules(expected, where), note)


def find_differences(a: Adapter, b: Adapter, examples: int = 300,
                     seed_value: int | None = None) -> list[Finding]:
    """Every distinct difference found in ``examples`` scenarios, each shrunk to a minimal one.

    Hypothesis shrinks each distinct kind of difference (where the traces first part) on its
    own; a greedy structural pass (conformance.generate.shrink) then removes what is left over.
    """
    kinds: dict[tuple[str, str], type[_Difference]] = {}

    def probe(sc: Scenario) -> None:
        try:
            finding = examine(a, b, sc)
        except _Unmodelled:
            assume(False)
            return
        if finding is not None:
            kind = kinds.setdefault(finding.signature, type("Difference", (_Difference,), {}))
            raise kind(finding)

    test = given(_strategy(a.generation, b.generation))(probe)
    if seed_value is not None:
        test = seed(seed_value)(test)
    test = settings(max_examples=examples, database=None, deadline=None, derandomize=False,
                    report_multiple_bugs=True, verbosity=Verbosity.quiet, print_blob=False,
                    phases=(Phase.generate, Phase.shrink),
                    suppress_health_check=list(HealthCheck))(test)
    found: list[Finding] = []
    try:
        test()
    except _Difference as exc:
        found = [exc.finding]
    except BaseExceptionGroup as group:
        found = [e.finding for e in _leaves(group) if isinstance(e, _Difference)]
        if not found:
            raise
    return sorted((_polish(a, b, f) for f in found), key=lambda f: f.signature)


def _polish(a: Adapter, b: Adapter, finding: Finding) -> Finding:
    def holds(sc: Scenario) -> bool:
        try:
            again = examine(a, b, sc)
        except _Unmodelled:
            return False
        return again is not None and again.signature == finding.signature

    smaller = shrink(finding.base, holds)
    if smaller == finding.base:
        return finding
    return examine(a, b, smaller) or finding


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    out: list[BaseException] = []
    for exc in group.exceptions:
        out += _leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]
    return out


# -- the report --------------------------------------------------------------------------------


def render(finding: Finding, index: int, total: int, spec_a: str, spec_b: str) -> str:
    """One difference: the scenario, what each side did, and the rules that decide it."""
    lines = [f"difference {index} of {total}: {finding.summary}",
             "scenario (JSON; `python -m spec explain FILE` shows the prediction):"]
    lines += ["  " + x for x in json.dumps(scenario_to_dict(finding.scenario_a), indent=2).splitlines()]
    if finding.scenario_b.generation != finding.scenario_a.generation:
        lines.append(f"B runs it as generation {finding.scenario_b.generation} "
                     "(each push of a mode class becomes `with mode:`)")
    for label, spec, sc, trace in (("A", spec_a, finding.scenario_a, finding.trace_a),
                                   ("B", spec_b, finding.scenario_b, finding.trace_b)):
        lines.append(f"{label} = {spec} (generation {sc.generation}):")
        lines += ["  " + x for x in describe(trace)]
    catalogue = load_catalogue()
    if finding.rules:
        lines.append(f"decided by ({finding.rules_note}):")
        for rule_id in finding.rules:
            try:
                title = catalogue.by_id(rule_id).title
            except KeyError:
                title = "?"
            lines.append(f"  {rule_id} {title}")
    else:
        lines.append(f"decided by: no rule known ({finding.rules_note})")
    return "\n".join(lines)
