"""Running the suite's tests: applicability, time limits, leaks, and each test's outcome."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Generator
from typing import Any

import pytest
from hypothesis import settings

from ..judge.attribution import RESTORE_RULES
from ..report.verdicts import Failure, TestOutcome, normalise
from ..sandbox.parent import SandboxedImplementation
from ..target import noise
from .bodies import APPLICABLE, may_name
from .notcompiled import NotCompiled, is_not_compiled, settle
from .observed import Observed, read_settings
from .runstate import (
    CONTROLLER,
    NOISE_PROPERTY,
    OUTCOME_PROPERTY,
    SCOPE_PROPERTY,
    SETTINGS_PROPERTY,
    RunState,
    marker_args,
    one_line,
    shown_nodeid,
    state_of,
)

# -- running ---------------------------------------------------------------------------------


def _not_applicable(item: pytest.Item, state: RunState) -> str | None:
    ad = state.adapter
    assert ad is not None
    gens = state.generations.get(item.nodeid) or marker_args(item, "generation")
    if gens and ad.generation not in gens:
        return f"the test is for generation {'/'.join(gens)}; {ad.name} is of generation {ad.generation}"
    missing = [f for f in marker_args(item, "feature") if f not in ad.features]
    if missing:
        return f"{ad.name} does not declare feature {', '.join(missing)}"
    rules = marker_args(item, "rule")
    version = getattr(ad, "stack_version", None)
    if rules and not any(state.catalogue.by_id(r).applies_to(ad.generation, version) for r in rules):
        shown = ad.generation if version is None else f"{ad.generation}, torch {version} behaviour"
        return f"{', '.join(rules)} hold for no generation {ad.name} has ({shown})"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    state = state_of(item.config)
    if not state.active or state.adapter is None:
        return
    reason = _not_applicable(item, state)
    if reason is not None:
        state.not_applicable.add(item.nodeid)
        pytest.skip(reason=f"not applicable: {reason}")
    rules = marker_args(item, "rule")
    # A test of no rule (the suite's own checks of its markers) judges nothing compiled: it runs.
    if state.compile and rules and item.get_closest_marker("compiles") is None:
        raise NotCompiled(rules, "this test runs no user code inside torch.compile (under "
                                 "--compile, the explicit examples and the generated sweep do)")


def pytest_sessionstart(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state.active:
        current = settings.get_current_profile_name()
        if current.startswith(f"{state.profile}-with-"):  # hypothesis' --hypothesis-verbosity
            state.run_profile = current
    if state.junit_tmp is None:
        return
    for plugin in session.config.pluginmanager.get_plugins():
        if getattr(plugin, "logfile", None) == os.path.normpath(state.junit_tmp.resolve()):
            # xunit1 keeps record_property()'s properties (rules, scenarios) in the file.
            plugin.family = "xunit1"


class RuleTimeout(BaseException):
    """A test ran past --rule-timeout.

    A BaseException, so that hypothesis does not take it for a failing example and replay
    (and hang on) it while shrinking: the test fails at once and the run goes on.
    """


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> bool | None:
    """pytest-timeout's signal method, raising :class:`RuleTimeout` (conformance runs only)."""
    import threading

    if (not state_of(item.config).active or settings.method != "signal"
            or not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread()):
        return None  # pytest-timeout's own timer
    seconds = float(settings.timeout)

    def expire(signum: int, frame: object) -> None:
        raise RuleTimeout(f"Timeout (>{seconds:g}s) from pytest-timeout (--rule-timeout)")

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, before)  # ignored during a run (conformance.sandbox.processes)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # what pytest-timeout calls
    before = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return True


_OBSERVED_KEY = pytest.StashKey[Observed]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Load the chosen profile again (a conftest.py may have loaded another one since) and
    read back the settings the test runs with."""
    state = state_of(item.config)
    if state.active and state.run_profile:
        settings.load_profile(state.run_profile)
        item.stash[_OBSERVED_KEY] = read_settings()
    return (yield)


def _reset(state: RunState) -> list[str]:
    """Reset the implementation after a test; a child that is not running is not restarted
    here (a hang at restart must cost a test, never pytest's own hook)."""
    assert state.adapter is not None
    try:
        if isinstance(state.adapter, SandboxedImplementation):
            return [str(x) for x in state.adapter.reset(restart=False)]
        return [str(x) for x in state.adapter.reset()]
    except Exception as exc:
        return [f"adapter.reset() raised {type(exc).__name__}: {one_line(exc)}"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                         pytest.TestReport]:
    report = yield
    state = state_of(item.config)
    if not state.active or state.adapter is None:
        return report
    settle(item, call, report)
    if call.when == "call":
        leaked = _reset(state)
        if leaked:
            state.leaks[item.nodeid] = leaked
            state.leak_rules[item.nodeid] = (_leak_rules(item, state), not report.failed)
            text = f"implementation leaked state: {'; '.join(leaked)} (the state was reset)"
            if report.failed:
                report.sections.append(("tfmode-conformance", text))
            else:
                report.outcome, report.longrepr = "failed", text
    elif call.when == "teardown":
        _reset(state)  # whatever a fixture left behind must not reach the next test
    observed = item.stash.get(_OBSERVED_KEY, None)
    if call.when == "call" and observed is not None:
        if hasattr(item.config, "workerinput"):
            report.user_properties.append((SETTINGS_PROPERTY, observed.to_json()))
        else:
            state.observed[item.nodeid] = observed
    if call.when == "call":  # the implementation's own warnings, seen by this test's scenarios
        taken = noise.take()
        if hasattr(item.config, "workerinput"):
            report.user_properties.append((NOISE_PROPERTY, taken))
        else:
            noise.merge(state.noise, taken)
    if call.when == "call" and hasattr(item.config, "workerinput") and state.scope_used:
        report.user_properties.append((SCOPE_PROPERTY, json.dumps(
            {rule: sorted(used) for rule, used in state.scope_used.items()})))
        state.scope_used.clear()  # handed over: the controller gathers it
    outcome = state.outcomes.get(item.nodeid)
    if outcome is not None:
        _record(item, state, outcome, report)
        if hasattr(item.config, "workerinput"):  # pytest-xdist: the controller gathers verdicts
            report.user_properties.append((OUTCOME_PROPERTY, outcome.to_json()))
    return report



def _account(state: RunState, report: pytest.TestReport) -> None:
    """Whether ``report`` is a test's last word: its call, a setup that did not pass, or
    pytest-xdist's report for a test whose worker died (when "???")."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        state.reported.add(report.nodeid)
    elif report.when not in ("setup", "teardown"):
        state.reported.add(report.nodeid)
        state.lost.append(f"{report.nodeid}: {one_line(report.longreprtext)[:300]}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Account for each test; on the pytest-xdist controller, take its outcome from the workers."""
    state = CONTROLLER.get("state")
    if state is None or not state.active:
        return
    _account(state, report)
    for key, value in report.user_properties:
        if key == SETTINGS_PROPERTY and isinstance(value, str):
            state.observed[report.nodeid] = Observed.from_json(value)
        if key == NOISE_PROPERTY and isinstance(value, str):
            noise.merge(state.noise, value)
        if key == SCOPE_PROPERTY and isinstance(value, str):
            _gather_scope(state, value)
        if key == SURFACE_PROPERTY and isinstance(value, str) and report.when == "call":
            state.surface = _merged(state.surface, _surface_table(value))
        if key == OUTCOME_PROPERTY and isinstance(value, str):
            outcome = TestOutcome.from_json(value)
            state.outcomes[outcome.nodeid] = outcome
            for feature in outcome.features:
                state.feature_rules.setdefault(feature, set()).update(outcome.rules)


def _gather_scope(state: RunState, value: str) -> None:
    """Add a worker's used scope elements (``{rule ID: [elements]}``) to the run's."""
    try:
        used = json.loads(value)
    except ValueError:
        return
    if isinstance(used, dict):
        for rule, elements in used.items():
            if isinstance(elements, list):
                state.scope_used.setdefault(str(rule), set()).update(map(str, elements))


#: The property under which the surface test hands over its table (conformance.suite.test_surface).
SURFACE_PROPERTY = "surface"


def _surface_table(value: str) -> dict[str, Any] | None:
    try:
        table = json.loads(value)
    except ValueError:
        return None
    return table if isinstance(table, dict) else None


def _merged(table: dict[str, Any] | None, more: dict[str, Any] | None) -> dict[str, Any] | None:
    """The tables of the two surface tests as one: the listed callables and the syntax forms."""
    if table is None or more is None:
        return table or more
    try:
        return {"listed": (table["listed"] or 0) + (more["listed"] or 0),
                "checked": table["checked"] + more["checked"],
                "passed": table["passed"] + more["passed"],
                "functions": {**table["functions"], **more["functions"]},
                "not_called": {**table["not_called"], **more["not_called"]}}
    except (KeyError, TypeError):
        return table


def _properties(item: pytest.Item) -> dict[str, Any]:
    return {str(k): v for k, v in item.user_properties}


def _leak_rules(item: pytest.Item, state: RunState) -> tuple[str, ...]:
    """What a test's leak breaks: the rules that decide what is current once every block has
    exited (those of them the test is marked with, if any), never the test's other rules."""
    assert state.adapter is not None
    restore = RESTORE_RULES.get(state.adapter.generation, ())
    own = tuple(r for r in marker_args(item, "rule") if r in restore)
    return own or restore


def _may_fail(item: pytest.Item, state: RunState) -> set[str]:
    """The rules a test's failure may name: any of the catalogue's, for a test run here (its
    checks ran in this process); for a ``@sandboxed`` one, whose checks ran in the
    implementation's process, only its own rule marks and the rules its decorator names
    (``APPLICABLE``: those that apply to the implementation), whatever the child said."""
    known = set(state.catalogue.ids())
    names = may_name(getattr(item, "function", None))
    if names is None:
        return known
    ad = state.adapter
    if names == APPLICABLE and ad is not None:
        version = getattr(ad, "stack_version", None)
        return {r for r in known if state.catalogue.by_id(r).applies_to(ad.generation, version)}
    return known & {*marker_args(item, "rule"), *(names if isinstance(names, tuple) else ())}


def _concerned(item: pytest.Item, state: RunState, outcome: TestOutcome,
               props: dict[str, Any]) -> tuple[str, ...]:
    """The rules a failure counts against: those the test attributed it to (``failed_rules``),
    among those it may fail (:func:`_may_fail`); else a leak's rules, and the test's own unless
    the leak alone failed it."""
    named = props.get("failed_rules")
    if isinstance(named, str):
        named = [n.strip() for n in named.split(",")]
    if not isinstance(named, (list, tuple)):
        named = []
    allowed = _may_fail(item, state)
    chosen = tuple(dict.fromkeys(str(r) for r in named if str(r) in allowed))
    if chosen:
        return chosen
    leak, alone = state.leak_rules.get(item.nodeid, ((), False))
    return leak if alone else tuple(dict.fromkeys((*outcome.rules, *leak)))


def _failure(item: pytest.Item, report: pytest.TestReport, state: RunState,
             props: dict[str, Any]) -> Failure:
    crash = getattr(report.longrepr, "reprcrash", None)
    text = str(crash.message) if crash is not None else report.longreprtext
    if item.nodeid in state.leaks and not text.startswith("implementation leaked"):
        text = f"implementation leaked state: {'; '.join(state.leaks[item.nodeid])} " \
               f"(the state was reset)\n{text}"
    scenario = props.get("scenario")
    if isinstance(scenario, str):
        try:
            scenario = json.loads(scenario)
        except ValueError:
            pass
    snippet = props.get("snippet")
    examples = props.get("examples")
    return Failure(shown_nodeid(item), normalise(text), scenario,
                   None if snippet is None else str(snippet),
                   examples if isinstance(examples, int) and not isinstance(examples, bool) else None)


def _record(item: pytest.Item, state: RunState, outcome: TestOutcome,
            report: pytest.TestReport) -> None:
    if report.when == "setup" and report.skipped:
        outcome.status = ("not_applicable" if item.nodeid in state.not_applicable
                          else "not_compiled" if is_not_compiled(report) else "skipped")
        return
    compiled = _properties(item).get(COMPILATION_PROPERTY)
    if report.when == "call" and isinstance(compiled, str):
        outcome.compilation = json.loads(compiled)
    compiled_rules = _properties(item).get(COMPILED_RULES_PROPERTY)
    if report.when == "call" and isinstance(compiled_rules, str):
        outcome.compiled_rules = tuple(r for r in compiled_rules.split(",") if r)
    enumerated = _properties(item).get(EXHAUSTIVE_PROPERTY)
    if report.when == "call" and isinstance(enumerated, str):
        outcome.exhaustive = json.loads(enumerated)
    xfailed = report.skipped and hasattr(report, "wasxfail")
    if report.failed or xfailed:
        props = _properties(item)
        if outcome.status != "failed":
            outcome.status = "failed"
            outcome.failed_rules = _concerned(item, state, outcome, props)
            outcome.failure = _failure(item, report, state, props)
            excused = props.get("excused_rules")
            if isinstance(excused, str):
                outcome.excused_rules = tuple(r for r in excused.split(",") if r in outcome.failed_rules)
        expected = [r for r in outcome.failed_rules
                    if outcome.excused(r, state.expected, state.scoped_entries())]
        if report.failed and report.when == "call" and len(expected) == len(outcome.failed_rules):
            report.outcome = "skipped"
            report.wasxfail = "expected failure: " + "; ".join(
                f"{r}: {state.expected[r]}" for r in expected)
    elif report.when == "call":
        outcome.status = ("passed" if report.passed
                          else "not_compiled" if is_not_compiled(report) else "skipped")


#: The property under which a test hands over what it counted of compiled scenarios.
COMPILATION_PROPERTY = "compilation"
#: The property under which a test hands over the rules its compiled scenarios exercised
#: (comma-separated): each other rule it is marked with was not compiled by it.
COMPILED_RULES_PROPERTY = "compiled_rules"
#: The property under which a chunk of the exhaustive run hands over its tally
#: (conformance.exhaustive.report.EXHAUSTIVE_PROPERTY names the same).
EXHAUSTIVE_PROPERTY = "exhaustive"
