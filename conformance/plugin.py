"""The pytest plugin of the conformance suite: options, the adapter fixture, verdicts and reports."""

from __future__ import annotations

import contextlib
import json
import math
import os
import signal
import sys
from collections import Counter
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.errors import InvalidArgument

import conformance
from spec.catalogue import Catalogue, CatalogueError, load_catalogue

from . import noise, profiles
from .adapter import FEATURES, AdapterError
from .attribution import RESTORE_RULES
from .certificate import build_certificate, dumps, spec_version
from .check import Target
from .excusal import Excusals
from .expectations import ExpectationsError, load_expectations, load_scopes, stale_entries
from .observed import Observed, expected_settings, hypothesis_section, read_settings
from .report import (
    MUST_LEVELS,
    Failure,
    RuleVerdict,
    TestOutcome,
    aggregate,
    badge,
    level_reached,
    normalise,
    rule_entries,
    summary,
    terminal_lines,
)
from .reportsdir import write_run
from .sandbox import ImplementationFault, SandboxedImplementation

SUITE = "conformance.suite"
DEFAULT_IMPL = "reference_impl"
DEFAULT_TIMEOUT = 60.0
_GENERATIONS = ("2022", "stack")


@dataclass
class _State:
    """Everything the plugin knows about one pytest run (kept in ``config.stash``)."""

    active: bool = False
    early: bool = False
    spec: str = DEFAULT_IMPL
    #: Where ``spec`` came from, as error messages and the header name it.
    origin: str = ""
    adapter: Target | None = None
    catalogue: Catalogue = field(default_factory=lambda: Catalogue(()))
    certify: bool = False
    expected: dict[str, str] = field(default_factory=dict)
    #: Where each expected failure excuses a divergence: the functions it is scoped to.
    scopes: dict[str, frozenset[str]] = field(default_factory=dict)
    expected_path: str | None = None
    reports_dir: Path = Path("reports")
    timeout: float = DEFAULT_TIMEOUT
    profile: str = ""
    #: The profile loaded for every test: ``profile``, or one hypothesis derived from it.
    run_profile: str = ""
    seed: str | None = None
    derandomize: bool = False
    #: What the chosen profile and seed mean, as they were when chosen.
    requested: Observed | None = None
    junit_tmp: Path | None = None
    outcomes: dict[str, TestOutcome] = field(default_factory=dict)
    coverage: dict[str, list[str]] = field(default_factory=dict)
    generations: dict[str, tuple[str, ...]] = field(default_factory=dict)
    feature_rules: dict[str, set[str]] = field(default_factory=dict)
    not_applicable: set[str] = field(default_factory=set)
    leaks: dict[str, list[str]] = field(default_factory=dict)
    #: Per leaking test: the rules its leak breaks, and whether the leak alone failed it.
    leak_rules: dict[str, tuple[tuple[str, ...], bool]] = field(default_factory=dict)
    #: node IDs of the suite's tests this run selected, and of those that reported a result
    selected: set[str] = field(default_factory=set)
    reported: set[str] = field(default_factory=set)
    #: tests lost without a result of their own (a pytest-xdist worker died), one line each
    lost: list[str] = field(default_factory=list)
    #: {node ID: the hypothesis settings the test ran with, as it read them back}
    observed: dict[str, Observed] = field(default_factory=dict)
    #: warnings the implementation raised for its own reasons: (category, first line) -> count
    noise: Counter[tuple[str, str]] = field(default_factory=Counter)
    lines: list[str] = field(default_factory=list)


_KEY = pytest.StashKey[_State]()


def _state(config: pytest.Config) -> _State:
    state = config.stash.get(_KEY, None)
    if state is None:
        state = config.stash[_KEY] = _State()
        if not hasattr(config, "workerinput"):
            _CONTROLLER["state"] = state
    return state


def suite_active(config: pytest.Config) -> bool:
    """Whether this run is a conformance run (the plugin chooses the hypothesis profile)."""
    return _state(config).active


#: The state of the process that writes the reports (pytest_runtest_logreport has no config).
_CONTROLLER: dict[str, _State] = {}


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


#: The name of this plugin's pytest11 entry point (pyproject.toml).
ENTRY_POINT = "conformance.plugin"


def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    """Loaded as ``-p conformance.plugin`` where the package is installed too: block the entry
    point, which would register this same module a second time (pluggy refuses that)."""
    if plugin is sys.modules.get(__name__) and manager.get_name(plugin) != ENTRY_POINT:
        manager.set_blocked(ENTRY_POINT)


# -- options and activation ------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("tfmode-conformance", "tfmode-conformance (certify a mode implementation)")
    group.addoption("--impl", dest="tfmode_impl", metavar="SPEC", default=None,
                    help="implementation under test: MODULE (a torch-like namespace) or "
                         f"pkg.mod:ATTR (an adapter); env TFMODE_IMPL; default {DEFAULT_IMPL}")
    group.addoption("--impl-path", dest="tfmode_impl_path", metavar="DIRS", default=None,
                    help="directories (separated by the OS path separator) to import the "
                         "implementation from, before any other; env TFMODE_IMPL_PATH")
    group.addoption("--certify", dest="tfmode_certify", action="store_true", default=False,
                    help="certification run: the certify hypothesis profile, no expected "
                         "failures on MUST rules, non-zero exit if a MUST rule fails or is untested")
    group.addoption("--expected-failures", dest="tfmode_expected", metavar="PATH", default=None,
                    help="TOML file of rules expected to fail, each with a reason; "
                         "env TFMODE_EXPECTED_FAILURES")
    group.addoption("--reports-dir", dest="tfmode_reports", metavar="DIR", default=None,
                    help="where certificate.json, badge.json and junit.xml go; env TFMODE_REPORTS; "
                         "default reports")
    group.addoption("--rule-timeout", dest="tfmode_timeout", metavar="SECONDS", type=float,
                    default=None, help=f"per-test time limit (default {DEFAULT_TIMEOUT:g})")


def _names_suite(config: pytest.Config) -> bool:
    for arg in config.args:
        base = arg.split("::")[0]
        if base == SUITE or base.startswith(SUITE + "."):
            return True
        if _in_suite_dir(Path(config.invocation_params.dir, base)):
            return True
    return False


def _in_suite_dir(path: Path) -> bool:
    parts = path.resolve().parts
    return any(parts[i:i + 2] == ("conformance", "suite") for i in range(len(parts) - 1))


def _from_suite(item: pytest.Item) -> bool:
    name = str(getattr(getattr(item, "module", None), "__name__", ""))
    return name == SUITE or name.startswith(SUITE + ".") or _in_suite_dir(item.path)


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the spec rule IDs a test checks")
    config.addinivalue_line("markers", "generation(name): the test is for one generation only")
    config.addinivalue_line("markers", "feature(*names): the test needs optional adapter features")
    state = _state(config)
    if (config.getoption("tfmode_impl") is not None or config.getoption("tfmode_certify")
            or _names_suite(config)):
        _activate(config, state, early=True)


def _impl_path(config: pytest.Config) -> None:
    """Put ``--impl-path`` (or TFMODE_IMPL_PATH) first on ``sys.path``, which the sandbox's
    process inherits: an implementation that is not installed (tox does not pass PYTHONPATH)."""
    given = config.getoption("tfmode_impl_path") or os.environ.get("TFMODE_IMPL_PATH")
    for part in reversed([p for p in str(given or "").split(os.pathsep) if p]):
        path = Path(config.invocation_params.dir, part).resolve()
        if not path.is_dir():
            raise pytest.UsageError(f"--impl-path: {part!r} is not a directory")
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))


def _activate(config: pytest.Config, state: _State, early: bool) -> None:
    """Load the implementation, the catalogue and the expectations; choose the profile."""
    state.active, state.early = True, early
    state.certify = bool(config.getoption("tfmode_certify"))
    state.spec, state.origin = _impl(config)
    state.timeout = _timeout(config)
    state.reports_dir = _reports_dir(config)
    _impl_path(config)
    state.adapter = _load(state.spec, state.timeout, state.origin)
    try:
        state.catalogue = load_catalogue()
    except CatalogueError as exc:
        raise pytest.UsageError(_one_line(exc)) from None
    path = config.getoption("tfmode_expected") or os.environ.get("TFMODE_EXPECTED_FAILURES")
    if path:
        state.expected_path = str(path)
        try:
            state.expected = load_expectations(path, state.catalogue.ids())
            state.scopes = load_scopes(path, state.catalogue.ids())
        except ExpectationsError as exc:
            raise pytest.UsageError(_one_line(exc)) from None
    if state.certify:
        must = [r for r in state.expected if state.catalogue.by_id(r).level in MUST_LEVELS]
        if must:
            raise pytest.UsageError(f"--certify refuses expected failures on MUST rules: "
                                    f"{', '.join(must)} (in {state.expected_path})")
    _choose_profile(config, state)
    worker = hasattr(config, "workerinput")
    if (early and not worker and hasattr(config.option, "xmlpath") and not config.option.xmlpath
            and not config.option.collectonly):
        state.junit_tmp = state.reports_dir / ".junit.xml.tmp"
        config.option.xmlpath = str(state.junit_tmp)


def _load(spec: str, timeout: float, origin: str | None = None) -> SandboxedImplementation:
    """The implementation, loaded in its sandbox process; a problem is one line."""
    try:
        implementation = SandboxedImplementation(spec, origin=origin)
    except (AdapterError, ImplementationFault) as exc:
        raise pytest.UsageError(_one_line(exc)) from None
    implementation.body_seconds = timeout + 30.0  # the per-test limit comes first
    return implementation


def _impl(config: pytest.Config) -> tuple[str, str]:
    """The implementation to load and where it was named (for messages)."""
    given = config.getoption("tfmode_impl")
    if given is not None:
        if not given.strip():
            raise pytest.UsageError("--impl is empty: give MODULE or pkg.mod:ATTR")
        return given, f"--impl {given!r}"
    from_env = os.environ.get("TFMODE_IMPL", "")
    if from_env.strip():
        return from_env, f"TFMODE_IMPL={from_env!r}"
    return DEFAULT_IMPL, f"--impl {DEFAULT_IMPL!r} (the default)"


def _timeout(config: pytest.Config) -> float:
    given = config.getoption("tfmode_timeout")
    if given is None:
        return DEFAULT_TIMEOUT
    if not math.isfinite(given) or given <= 0:
        raise pytest.UsageError(f"--rule-timeout must be a number of seconds > 0 (got {given:g})")
    return float(given)


def _reports_dir(config: pytest.Config) -> Path:
    """The reports folder; refused now if it cannot be one (a file of its name or above it)."""
    given = config.getoption("tfmode_reports")
    origin = f"--reports-dir {given!r}"
    if not given:
        given = os.environ.get("TFMODE_REPORTS") or "reports"
        origin = f"TFMODE_REPORTS={given!r}" if os.environ.get("TFMODE_REPORTS") else \
            f"the reports folder {given!r} (the default)"
    path = Path(config.invocation_params.dir, given)
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                what = "is a file" if place == path else f"lies under the file {str(place)!r}"
                raise pytest.UsageError(f"{origin}: not a folder for the reports: it {what}")
            break
    return path


def _explicit_database(profile: settings) -> bool:
    database = profile.database
    return database is not None and database != settings.get_profile("default").database


def _choose_profile(config: pytest.Config, state: _State) -> None:
    """``--hypothesis-profile`` wins; else ``certify`` under --certify; else the default profile."""
    profiles.register()
    given = config.getoption("hypothesis_profile", None)
    name = given or ("certify" if state.certify else profiles.default_profile())
    try:
        chosen = settings.get_profile(name)
    except InvalidArgument:
        raise pytest.UsageError(f"no hypothesis profile named {name!r}") from None
    if given and state.certify:
        if _explicit_database(chosen):
            raise pytest.UsageError(f"--certify refuses an explicitly configured example database "
                                    f"(hypothesis profile {given!r} sets one); certification runs "
                                    "with database=None")
        name = f"{given}-certify"
        settings.register_profile(name, parent=chosen, derandomize=True, database=None)
    if hasattr(config.option, "hypothesis_profile"):
        config.option.hypothesis_profile = name  # hypothesis' own plugin loads it after us
    settings.load_profile(name)
    state.profile = state.run_profile = name
    state.derandomize = bool(settings.get_profile(name).derandomize)
    seed = config.getoption("hypothesis_seed", None)
    state.seed = None if seed is None else _seed_text(seed)
    state.requested = expected_settings(name, state.seed)


def _seed_text(seed: object) -> str:
    """The seed as hypothesis uses it (an integer where the text is one), as text."""
    try:
        return str(int(str(seed)))
    except ValueError:
        return str(seed)


# -- collection ------------------------------------------------------------------------------


def _marker_args(item: pytest.Item, name: str) -> tuple[str, ...]:
    values = [str(a) for m in item.iter_markers(name) for a in m.args]
    return tuple(dict.fromkeys(values))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    state = _state(config)
    if not state.active:
        if not any(_from_suite(item) for item in items):
            return
        _activate(config, state, early=False)
    known = set(state.catalogue.ids())
    problems: list[str] = []
    add_timeout = config.pluginmanager.hasplugin("timeout") and (
        config.getoption("tfmode_timeout") is not None or config.getoption("timeout", None) is None)
    method = "signal" if hasattr(signal, "SIGALRM") else "thread"
    for item in items:
        rules = _marker_args(item, "rule")
        gens = _marker_args(item, "generation")
        feats = _marker_args(item, "feature")
        problems += [f"unknown rule ID {r} ({item.nodeid})" for r in rules if r not in known]
        problems += [f"unknown generation {g!r} ({item.nodeid})" for g in gens
                     if g not in _GENERATIONS]
        problems += [f"unknown feature {f!r} ({item.nodeid})" for f in feats if f not in FEATURES]
        state.generations[item.nodeid] = gens
        if rules:
            state.outcomes[item.nodeid] = TestOutcome(item.nodeid, rules, feats)
            for rule_id in rules:
                state.coverage.setdefault(rule_id, []).append(item.nodeid)
            for feature in feats:
                state.feature_rules.setdefault(feature, set()).update(rules)
        if add_timeout and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(state.timeout, method=method))
    if problems:
        raise pytest.UsageError("bad conformance markers: " + "; ".join(problems))


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        outcomes = _state(items[0].config).outcomes
        for item in items:
            outcomes.pop(item.nodeid, None)  # not run: no verdict from it (coverage keeps it)


# -- running ---------------------------------------------------------------------------------


def _not_applicable(item: pytest.Item, state: _State) -> str | None:
    ad = state.adapter
    assert ad is not None
    gens = state.generations.get(item.nodeid) or _marker_args(item, "generation")
    if gens and ad.generation not in gens:
        return f"the test is for generation {'/'.join(gens)}; {ad.name} is of generation {ad.generation}"
    missing = [f for f in _marker_args(item, "feature") if f not in ad.features]
    if missing:
        return f"{ad.name} does not declare feature {', '.join(missing)}"
    rules = _marker_args(item, "rule")
    version = getattr(ad, "stack_version", None)
    if rules and not any(state.catalogue.by_id(r).applies_to(ad.generation, version) for r in rules):
        shown = ad.generation if version is None else f"{ad.generation}, torch {version} behaviour"
        return f"{', '.join(rules)} hold for no generation {ad.name} has ({shown})"
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    state = _state(item.config)
    if not state.active or state.adapter is None:
        return
    reason = _not_applicable(item, state)
    if reason is not None:
        state.not_applicable.add(item.nodeid)
        pytest.skip(reason=f"not applicable: {reason}")


def pytest_sessionstart(session: pytest.Session) -> None:
    state = _state(session.config)
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

    if (not _state(item.config).active or settings.method != "signal"
            or not hasattr(signal, "SIGALRM") or threading.current_thread() is not threading.main_thread()):
        return None  # pytest-timeout's own timer
    seconds = float(settings.timeout)

    def expire(signum: int, frame: object) -> None:
        raise RuleTimeout(f"Timeout (>{seconds:g}s) from pytest-timeout (--rule-timeout)")

    def cancel() -> None:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, signal.SIG_DFL)

    item.cancel_timeout = cancel  # type: ignore[attr-defined]  # what pytest-timeout calls
    signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    return True


_OBSERVED_KEY = pytest.StashKey[Observed]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    """Load the chosen profile again (a conftest.py may have loaded another one since) and
    read back the settings the test runs with."""
    state = _state(item.config)
    if state.active and state.run_profile:
        settings.load_profile(state.run_profile)
        item.stash[_OBSERVED_KEY] = read_settings()
    return (yield)


def _reset(state: _State) -> list[str]:
    assert state.adapter is not None
    try:
        return [str(x) for x in state.adapter.reset()]
    except Exception as exc:
        return [f"adapter.reset() raised {type(exc).__name__}: {_one_line(exc)}"]


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item,
                              call: pytest.CallInfo[None]) -> Generator[None, pytest.TestReport,
                                                                         pytest.TestReport]:
    report = yield
    state = _state(item.config)
    if not state.active or state.adapter is None:
        return report
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
            report.user_properties.append((_SETTINGS, observed.to_json()))
        else:
            state.observed[item.nodeid] = observed
    if call.when == "call":  # the implementation's own warnings, seen by this test's scenarios
        taken = noise.take()
        if hasattr(item.config, "workerinput"):
            report.user_properties.append((_NOISE, taken))
        else:
            noise.merge(state.noise, taken)
    outcome = state.outcomes.get(item.nodeid)
    if outcome is not None:
        _record(item, state, outcome, report)
        if hasattr(item.config, "workerinput"):  # pytest-xdist: the controller gathers verdicts
            report.user_properties.append((_OUTCOME, outcome.to_json()))
    return report


#: The user properties that carry a worker's test outcome and hypothesis settings to the controller.
_OUTCOME = "tfmode_outcome"
_SETTINGS = "tfmode_hypothesis"
_NOISE = "tfmode_noise"


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    state = _state(session.config)
    if state.active and not hasattr(session.config, "workerinput"):
        state.selected.update(item.nodeid for item in session.items if _from_suite(item))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """On the pytest-xdist controller: every worker collects the same tests."""
    state = _CONTROLLER.get("state")
    if state is not None and state.active:
        state.selected.update(ids)


def _account(state: _State, report: pytest.TestReport) -> None:
    """Whether ``report`` is a test's last word: its call, a setup that did not pass, or
    pytest-xdist's report for a test whose worker died (when "???")."""
    if report.when == "call" or (report.when == "setup" and not report.passed):
        state.reported.add(report.nodeid)
    elif report.when not in ("setup", "teardown"):
        state.reported.add(report.nodeid)
        state.lost.append(f"{report.nodeid}: {_one_line(report.longreprtext)[:300]}")


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Account for each test; on the pytest-xdist controller, take its outcome from the workers."""
    state = _CONTROLLER.get("state")
    if state is None or not state.active:
        return
    _account(state, report)
    for key, value in report.user_properties:
        if key == _SETTINGS and isinstance(value, str):
            state.observed[report.nodeid] = Observed.from_json(value)
        if key == _NOISE and isinstance(value, str):
            noise.merge(state.noise, value)
        if key == _OUTCOME and isinstance(value, str):
            outcome = TestOutcome.from_json(value)
            state.outcomes[outcome.nodeid] = outcome
            for feature in outcome.features:
                state.feature_rules.setdefault(feature, set()).update(outcome.rules)


def _properties(item: pytest.Item) -> dict[str, Any]:
    return {str(k): v for k, v in item.user_properties}


def _leak_rules(item: pytest.Item, state: _State) -> tuple[str, ...]:
    """What a test's leak breaks: the rules that decide what is current once every block has
    exited (those of them the test is marked with, if any), never the test's other rules."""
    assert state.adapter is not None
    restore = RESTORE_RULES.get(state.adapter.generation, ())
    own = tuple(r for r in _marker_args(item, "rule") if r in restore)
    return own or restore


def _concerned(item: pytest.Item, state: _State, outcome: TestOutcome,
               props: dict[str, Any]) -> tuple[str, ...]:
    """The rules a failure counts against: those the test attributed it to (``failed_rules``),
    marked on the test or not; else a leak's rules, and the test's own unless the leak alone
    failed it."""
    named = props.get("failed_rules")
    if isinstance(named, str):
        named = [n.strip() for n in named.split(",")]
    if not isinstance(named, (list, tuple)):
        named = []
    known = set(state.catalogue.ids())
    chosen = tuple(dict.fromkeys(str(r) for r in named if str(r) in known))
    if chosen:
        return chosen
    leak, alone = state.leak_rules.get(item.nodeid, ((), False))
    return leak if alone else tuple(dict.fromkeys((*outcome.rules, *leak)))


def _failure(item: pytest.Item, report: pytest.TestReport, state: _State,
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
    return Failure(item.nodeid, normalise(text), scenario,
                   None if snippet is None else str(snippet),
                   examples if isinstance(examples, int) and not isinstance(examples, bool) else None)


def _record(item: pytest.Item, state: _State, outcome: TestOutcome,
            report: pytest.TestReport) -> None:
    if report.when == "setup" and report.skipped:
        outcome.status = "not_applicable" if item.nodeid in state.not_applicable else "skipped"
        return
    xfailed = report.skipped and hasattr(report, "wasxfail")
    if report.failed or xfailed:
        props = _properties(item)
        if outcome.status != "failed":
            outcome.status = "failed"
            outcome.failed_rules = _concerned(item, state, outcome, props)
            outcome.failure = _failure(item, report, state, props)
            excused = props.get("excused_rules")
            if isinstance(excused, str):
                outcome.excused_rules = tuple(r for r in excused.split(",") if r)
        expected = [r for r in outcome.failed_rules if outcome.excused(r, state.expected)]
        if report.failed and report.when == "call" and len(expected) == len(outcome.failed_rules):
            report.outcome = "skipped"
            report.wasxfail = "expected failure: " + "; ".join(
                f"{r}: {state.expected[r]}" for r in expected)
    elif report.when == "call":
        outcome.status = "passed" if report.passed else "skipped"


# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def adapter(request: pytest.FixtureRequest) -> Target:
    """The implementation under test (``--impl``), in its sandbox process."""
    state = _state(request.config)
    if state.adapter is None:
        spec = request.config.getoption("tfmode_impl") or os.environ.get("TFMODE_IMPL") \
            or DEFAULT_IMPL
        try:
            state.adapter = _load(spec, state.timeout)
        except pytest.UsageError as exc:
            pytest.fail(str(exc), pytrace=False)
    return state.adapter


@pytest.fixture(scope="session")
def excused(request: pytest.FixtureRequest) -> Excusals:
    """The expected failures: each excuses exactly the divergences attributed to its rule (in
    the functions it is scoped to), and the rest of the same trace is still compared
    (conformance.excusal)."""
    state = _state(request.config)
    return Excusals({r: state.scopes.get(r, frozenset()) for r in state.expected})


@pytest.fixture(scope="session")
def impl_spec(request: pytest.FixtureRequest) -> str:
    """``--impl`` as given (``MODULE`` or ``pkg.mod:ATTR``), for reproduction snippets."""
    state = _state(request.config)
    return state.spec if state.active else (request.config.getoption("tfmode_impl")
                                            or os.environ.get("TFMODE_IMPL") or DEFAULT_IMPL)


@pytest.fixture(scope="session")
def rule_timeout(request: pytest.FixtureRequest) -> float:
    """The per-test time limit in seconds (``--rule-timeout``)."""
    state = _state(request.config)
    return state.timeout if state.active else DEFAULT_TIMEOUT


@pytest.fixture(scope="session")
def rule_coverage(request: pytest.FixtureRequest) -> dict[str, list[str]]:
    """``{rule_id: [node IDs]}`` of every collected test carrying the rule."""
    return {k: list(v) for k, v in _state(request.config).coverage.items()}


@pytest.fixture(scope="session")
def rule_generations(request: pytest.FixtureRequest) -> dict[str, tuple[str, ...]]:
    """``{node ID: generations of its generation marker}`` (empty: every generation)."""
    return dict(_state(request.config).generations)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_KEY, None)
    if state is not None and isinstance(state.adapter, SandboxedImplementation):
        state.adapter.close()  # kills the child: threads it left looping cannot hold the exit


# -- reporting -------------------------------------------------------------------------------


def _header(state: _State) -> list[str]:
    ad = state.adapter
    assert ad is not None
    spec = spec_version(state.catalogue)
    seed = state.seed or ("derandomized" if state.derandomize else "random")
    source = f"{'TFMODE_IMPL=' if state.origin.startswith('TFMODE_IMPL') else '--impl '}{state.spec}"
    lines = [
        f"tfmode-conformance {conformance.__version__}: spec of {spec['rules']} rules "
        f"({spec['digest'][:19]}), certify: {'yes' if state.certify else 'no'}",
        f"implementation: {ad.name} {ad.version} ({source}), generation {ad.generation},"
        f" features: {', '.join(sorted(ad.features)) or 'none'}",
        f"hypothesis: profile {state.profile!r}, seed {seed}",
    ]
    if state.expected_path:
        lines.append(f"expected failures: {state.expected_path} ({len(state.expected)} entries)")
    lines += [f"{k}={v}" for k, v in sorted(os.environ.items()) if k.startswith("TFMODE_")]
    return lines


def pytest_report_header(config: pytest.Config) -> list[str]:
    state = _state(config)
    return _header(state) if state.active and state.adapter is not None else []


def _junit_logfile(config: pytest.Config, state: _State, final: Path | None) -> None:
    """Point pytest's JUnit plugin at the file's final name (its summary line shows it)."""
    if state.junit_tmp is None:
        return
    for plugin in config.pluginmanager.get_plugins():
        if getattr(plugin, "logfile", None) == os.path.normpath(state.junit_tmp.resolve()):
            plugin.logfile = str(final) if final is not None else plugin.logfile


def _discard_junit(state: _State) -> None:
    """A run that never started (a usage error): leave the reports folder as it was."""
    if state.junit_tmp is None:
        return
    with contextlib.suppress(OSError):
        state.junit_tmp.unlink(missing_ok=True)
        state.reports_dir.rmdir()  # only if the JUnit file was all it held


def _incomplete(session: pytest.Session, state: _State,
                exitstatus: int | pytest.ExitCode) -> list[str]:
    """Why this run does not account for every selected test (empty: it does)."""
    problems: list[str] = []
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        problems.append("the run was interrupted")
    elif exitstatus == pytest.ExitCode.INTERNAL_ERROR:
        problems.append("pytest stopped with an internal error")
    problems += state.lost
    missing = sorted(state.selected - state.reported)
    if missing:
        problems.append(f"{len(missing)} of {len(state.selected)} selected tests did not report "
                        f"a result (first: {missing[0]})")
    return problems


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int | pytest.ExitCode) -> None:
    config = session.config
    state = _state(config)
    if (not state.active or state.adapter is None or hasattr(config, "workerinput")
            or config.option.collectonly):
        return
    if exitstatus == pytest.ExitCode.USAGE_ERROR:
        _discard_junit(state)
        return
    ad = state.adapter
    problems = _incomplete(session, state, exitstatus)
    verdicts = aggregate(state.catalogue, ad.generation, state.outcomes.values(), state.expected,
                         getattr(ad, "stack_version", None), getattr(ad, "release", None))
    level = level_reached(verdicts, ad.features, state.feature_rules)
    shield = badge(verdicts, level)
    if problems:
        level = {"reached": "none", "features": []}
        shield = {**shield, "message": "incomplete run", "color": "red"}
    stale = [] if problems else stale_entries(state.expected, {k: v.verdict for k, v in verdicts.items()})
    requested = state.requested or expected_settings(state.profile, state.seed)
    hypothesis = hypothesis_section(requested, state.observed)
    certificate = build_certificate(
        catalogue=state.catalogue,
        implementation={"name": ad.name, "version": ad.version, "generation": ad.generation,
                        "features": sorted(ad.features), "release": getattr(ad, "release", None)},
        hypothesis_settings=hypothesis,
        run={"complete": not problems, "selected_tests": len(state.selected),
             "reported_tests": len(state.reported & state.selected), "problems": problems},
        certify=state.certify, level=level, summary=summary(verdicts),
        rules=rule_entries(verdicts), stale=stale, noise_warnings=noise.summary(state.noise))
    state.lines = [] if state.early else _header(state)  # the header came too early for it
    if problems:
        state.lines += [f"INCOMPLETE RUN: {p}" for p in problems]
        state.lines.append("INCOMPLETE RUN: this certificate certifies nothing (level none)")
    state.lines.append(f"{ad.name} {ad.version} (generation {ad.generation}): {shield['message']}")
    state.lines += terminal_lines(verdicts, level, stale, state.expected_path)
    state.lines += [f"{'ERROR' if state.certify else 'WARNING'}: hypothesis settings differ: {line}"
                    for line in hypothesis["disagreements"]]
    try:
        written = write_run(state.reports_dir, {"certificate.json": dumps(certificate),
                                                "badge.json": dumps(shield)}, state.junit_tmp)
        _junit_logfile(config, state, state.reports_dir / "junit.xml"
                       if state.reports_dir / "junit.xml" in written else None)
        state.lines.append(f"reports: {', '.join(str(p) for p in written)}")
    except OSError as exc:
        state.lines.append(f"ERROR: could not write the conformance reports: {_one_line(exc)}")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if problems and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if state.certify:
        _certify_status(session, state, verdicts, problems, len(hypothesis["disagreements"]))


def _certify_status(session: pytest.Session, state: _State, verdicts: dict[str, RuleVerdict],
                    problems: list[str], unsettled: int) -> None:
    bad = [k for k, v in verdicts.items()
           if v.rule.level in MUST_LEVELS and v.verdict in ("fail", "expected_failure", "untested")]
    if problems:
        state.lines.append("certification FAILED: the run is incomplete")
        if session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    if not bad and not unsettled:
        state.lines.append("certification: every MUST rule passes")
        return
    if bad:
        failing = sum(verdicts[k].verdict != "untested" for k in bad)
        state.lines.append(f"certification FAILED: {failing} MUST rule(s) fail, "
                           f"{len(bad) - failing} untested")
    if unsettled:
        state.lines.append(f"certification FAILED: tests ran with other hypothesis settings than "
                           f"profile {state.profile!r} ({unsettled} kind(s), listed above)")
    if session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter,
                            exitstatus: int | pytest.ExitCode, config: pytest.Config) -> None:
    state = _state(config)
    if not state.lines:
        return
    terminalreporter.write_sep("=", "tfmode conformance")
    for line in state.lines:
        terminalreporter.write_line(line, yellow=line.startswith("WARNING"),
                                    red=line.startswith(("ERROR", "certification FAILED",
                                                         "INCOMPLETE")))
