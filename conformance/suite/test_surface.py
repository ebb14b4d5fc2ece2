"""The whole overridable surface: every callable the implementation lists, checked one by one.

The scenarios reach a handful of functions; this test calls every callable the implementation
lists as overridable (``overrides.get_testing_overrides()``), with arguments built from its
signature, under a recording mode, with duck-typed arguments, with a declining and a raising
mode, and inside ``DisableTorchFunction`` (see :mod:`conformance.surface.probe`). Each callable
that diverges fails the rule it breaks, named in the message and in the certificate's surface
table; callables it cannot call are listed there with the reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from conformance.adapter import Adapter
from conformance.sandbox.faults import ImplementationFault, ImplementationTampered, RemoteError
from conformance.sandbox.parent import SandboxedImplementation
from conformance.session.runstate import one_line, state_of
from conformance.surface import judge
from conformance.surface.probe import sweep
from conformance.surface.syntax import parts, syntax

Record = Callable[[str, object], None]
#: The property under which the test hands the surface table to the certificate.
SURFACE_PROPERTY = "surface"
SWEEP = "conformance.surface.probe:sweep"
SYNTAX = "conformance.surface.syntax:syntax"


NAMES = "conformance.surface.probe:names"
#: Callables checked per request, and the seconds a request may take: a fault (a crash, a hang,
#: garbage) in one request is retried a callable at a time, so it costs only the callable in
#: flight (TFM_REACH_009 of that callable), and the rest of the sweep goes on in a new process.
#: As a scenario's time-out is (conformance.sandbox.timing), the one-callable retry has four times the limit.
#: Every limit is cut to what is left of the sweep's share of --rule-timeout (BUDGET_SHARE; the
#: rest is for restarts): a callable that hangs costs its own rule, never the whole test.
CHUNK, CHUNK_SECONDS, ONE_SECONDS, BUDGET_SHARE = 100, 20.0, 80.0, 0.75
#: Below this many seconds left, the callables not yet checked are listed as not called; a
#: one-callable retry may take ONE_SHARE of what is left, so one hang leaves time for the rest.
LEAST_SECONDS, ONE_SHARE = 1.0, 1 / 3
Account = tuple[int | None, list[tuple[str, list[tuple[str, str]]]], list[tuple[str, str]]]


def _account(adapter: Adapter, target: str = SWEEP, budget: float = 600.0) -> Account:
    if not isinstance(adapter, SandboxedImplementation):
        return judge.read((sweep if target == SWEEP else syntax)(adapter))
    if target != SWEEP:
        return _syntax(adapter, budget)
    names = adapter.call(NAMES, seconds=60.0, during="listing the overridable callables")
    if names is None:
        return None, [], []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise judge.SurfaceError("the names of the listed callables are not a list of texts")
    checked: list[tuple[str, list[tuple[str, str]]]] = []
    not_called: list[tuple[str, str]] = []
    deadline = time.monotonic() + budget * BUDGET_SHARE
    for start in range(0, len(names), CHUNK):
        chunk = names[start:start + CHUNK]
        try:
            parts = [_part(adapter, chunk, _left(deadline, CHUNK_SECONDS))]
        except _OutOfTime:
            parts = [_unchecked(chunk, budget)]
        except (ImplementationFault, RemoteError, judge.SurfaceError) as exc:
            if isinstance(exc, ImplementationTampered):
                raise
            parts = [_one(adapter, name, deadline, budget) for name in chunk]
        for _, more, fewer in parts:
            checked += more
            not_called += fewer
    if len(checked) + len(not_called) > len(names):
        raise judge.SurfaceError("the surface sweep accounts for more callables than it listed")
    return len(names), checked, not_called


def _syntax(adapter: SandboxedImplementation, budget: float) -> Account:
    """The syntax forms in one request; after a fault, part by part, so that a form that
    crashes or hangs fails its own check (a rule of that part) and the rest are still judged."""
    deadline = time.monotonic() + budget * BUDGET_SHARE
    try:
        return judge.read(adapter.call(SYNTAX, seconds=_left(deadline, CHUNK_SECONDS * 3),
                                       during="the syntax forms of the surface sweep"))
    except _OutOfTime:
        return 0, [], []
    except (ImplementationFault, RemoteError, judge.SurfaceError) as exc:
        if isinstance(exc, ImplementationTampered):
            raise
    listed, checked, not_called = 0, [], []
    for name, check in parts():
        try:
            more, found, fewer = judge.read(adapter.call(
                SYNTAX, [name], seconds=_left(deadline, ONE_SECONDS, ONE_SHARE),
                during=f"the syntax form {name} of the surface sweep"))
        except _OutOfTime:
            more, found, fewer = _unchecked([name], budget)
        except (ImplementationFault, RemoteError, judge.SurfaceError) as exc:
            if isinstance(exc, ImplementationTampered):
                raise
            problem = f"the implementation failed while {name} was checked: {one_line(exc)}"
            more, found, fewer = 1, [(name, [(check, problem[:400])])], []
        listed += more or 0
        checked += found
        not_called += fewer
    return listed, checked, not_called


def _part(adapter: SandboxedImplementation, chunk: list[str], seconds: float) -> Account:
    return judge.read(adapter.call(SWEEP, chunk, seconds=seconds,
                                   during=f"the surface sweep ({chunk[0]} ...)"))


class _OutOfTime(Exception):
    """The sweep's share of --rule-timeout is spent."""


def _left(deadline: float, seconds: float, share: float = 1.0) -> float:
    """``seconds``, cut to ``share`` of what is left before ``deadline``; _OutOfTime when that
    is too little."""
    left = deadline - time.monotonic()
    if left < LEAST_SECONDS:
        raise _OutOfTime
    return min(seconds, max(left * share, LEAST_SECONDS))


def _unchecked(names: list[str], budget: float) -> Account:
    reason = (f"not checked: the sweep's share of --rule-timeout ({budget:g} s) was spent on an "
              "earlier callable's fault")
    return len(names), [], [(name, reason) for name in names]


def _one(adapter: SandboxedImplementation, name: str, deadline: float, budget: float) -> Account:
    try:
        return _part(adapter, [name], _left(deadline, ONE_SECONDS, ONE_SHARE))
    except _OutOfTime:
        return _unchecked([name], budget)
    except (ImplementationFault, RemoteError, judge.SurfaceError) as exc:
        if isinstance(exc, ImplementationTampered):
            raise
        problem = f"the implementation failed while {name} was checked: {one_line(exc)}"[:400]
        return 1, [(name, [("reach", problem)])], []


@pytest.mark.rule("TFM_ARGS_001", "TFM_ARGS_002", "TFM_DISABLE_001", "TFM_DISABLE_002",
                  "TFM_ERROR_005", "TFM_NOTIMPL_001", "TFM_ORDER_002", "TFM_REACH_009",
                  "TFM_STACK_010", "TFM_STACK_011", "TFM_TYPES_006")
@pytest.mark.feature("surface")
def test_every_listed_callable_dispatches(adapter: Adapter, record_property: Record,
                                          request: pytest.FixtureRequest,
                                          rule_timeout: float) -> None:
    _judged(adapter, record_property, request, SWEEP, judge.RULES, rule_timeout)


@pytest.mark.rule("TFM_SYNTAX_001", "TFM_SYNTAX_002", "TFM_SYNTAX_003", "TFM_SYNTAX_004",
                  "TFM_ORDER_006", "TFM_TYPES_006")
def test_every_syntactic_form_dispatches(adapter: Adapter, record_property: Record,
                                         request: pytest.FixtureRequest,
                                         rule_timeout: float) -> None:
    _judged(adapter, record_property, request, SYNTAX, judge.SYNTAX_RULES, rule_timeout)


def _judged(adapter: Adapter, record_property: Record, request: pytest.FixtureRequest,
            target: str, rules_here: tuple[str, ...], budget: float) -> None:
    state = state_of(request.config)
    try:
        listed, checked, not_called = _account(adapter, target, budget)
        if any(rules_of_problem not in rules_here for rules_of_problem in _rules_named(
                checked, adapter)):
            raise judge.SurfaceError("a problem names a check of the other sweep")
    except judge.SurfaceError as exc:
        record_property("failed_rules", ",".join(rules_here))
        pytest.fail(f"the implementation misbehaved during the surface sweep: {exc}", pytrace=False)
    if listed is None:
        pytest.fail("the implementation declares the surface feature but lists no callables",
                    pytrace=False)
    verdict = judge.judge(listed, checked, not_called, adapter.generation,
                          getattr(adapter, "stack_version", None), state.surface_scopes,
                          state.expected)
    record_property(SURFACE_PROPERTY, json.dumps(verdict.table, sort_keys=True))
    rules = sorted({*verdict.failed, *verdict.excused})
    if not rules:
        return
    record_property("failed_rules", ",".join(rules))
    record_property("excused_rules", ",".join(sorted(set(verdict.excused) - set(verdict.failed))))
    record_property("snippet", _snippet(verdict))
    shown = verdict.message() or "\n".join(
        f"{rule}: {len(names)} listed callable(s), excused: {', '.join(names[:6])}"
        for rule, names in sorted(verdict.excused.items()))
    pytest.fail(shown, pytrace=False)


def _rules_named(checked: list[tuple[str, list[tuple[str, str]]]], adapter: Adapter) -> set[str]:
    return {judge.rules_of(check, adapter.generation, getattr(adapter, "stack_version", None))
            for _, problems in checked for check, _ in problems}


def _snippet(verdict: judge.Verdict) -> str:
    lines = ["# the surface sweep's first divergence of each rule (callable: what was seen)"]
    for rule, first in sorted(verdict.first.items()):
        lines.append(f"# {rule}: {first}")
    return "\n".join(lines)
