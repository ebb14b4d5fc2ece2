"""The plugin's options, and activation: the implementation, the catalogue, the expected
failures and the hypothesis profile of a conformance run."""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings
from hypothesis.errors import InvalidArgument

from spec.catalogue import CatalogueError, load_catalogue

from ..report import evidence
from ..report.verdicts import MUST_LEVELS
from ..sandbox import processes
from ..sandbox.parent import ImplementationFault, RemoteError, SandboxedImplementation
from ..target.adapter import AdapterError, put_impl_path
from . import profiles, reportsdir
from .expectations import ExpectationsError, load_expectations, load_scopes, load_surface_scopes
from .observed import expected_settings
from .runstate import DEFAULT_IMPL, DEFAULT_TIMEOUT, RunState, names_suite, one_line, state_of
from .selection import SelectionError, parse_rules

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
                    help="where certificate.json, badge.json and junit.xml go (~ and $VAR "
                         "expanded); env TFMODE_REPORTS; default reports")
    group.addoption("--rules", dest="tfmode_rules", metavar="PATTERNS", default=None,
                    help="run only the tests of these rules: IDs, globs ('TFM_ORDER_*') or areas "
                         "(ORDER), separated by commas; the run is partial and certifies nothing "
                         "(refused with --certify)")
    group.addoption("--compile", dest="tfmode_compile", action="store_true", default=False,
                    help="run each scenario's user code inside torch.compile(backend='eager') "
                         "too, and certify the compiled runs against the eager ones (torch 2.x)")
    group.addoption("--exhaustive", dest="tfmode_exhaustive", metavar="SCOPE", default=None,
                    help="check every scenario of a bounded scope too: default, large, or "
                         "bounds such as modes=2,classes=1,setup=2 (see the docs); a "
                         "certification checks the default scope unless given another "
                         "(none: no scope, which its certificate says); env TFMODE_EXHAUSTIVE")
    group.addoption("--rule-timeout", dest="tfmode_timeout", metavar="SECONDS", default=None,
                    help=f"per-test time limit, at least {MIN_TIMEOUT:g} s "
                         f"(default {DEFAULT_TIMEOUT:g})")



@pytest.hookimpl(tryfirst=True)
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "rule(*ids): the spec rule IDs a test checks")
    config.addinivalue_line("markers", "generation(name): the test is for one generation only")
    config.addinivalue_line("markers", "feature(*names): the test needs optional adapter features")
    config.addinivalue_line("markers", "exhaustive: the test checks the run's exhaustive scope "
                            "(collected only when the run has one)")
    config.addinivalue_line("markers", "compiles: under --compile, the test runs its scenarios "
                                       "inside torch.compile too")
    state = state_of(config)
    if (config.getoption("tfmode_impl") is not None or config.getoption("tfmode_certify")
            or names_suite(config)):
        activate(config, state, early=True)


def _exhaustive_given(config: pytest.Config) -> str | None:
    """The scope text the run was given (--exhaustive, else TFMODE_EXHAUSTIVE), as given."""
    given = config.getoption("tfmode_exhaustive") or os.environ.get("TFMODE_EXHAUSTIVE")
    return None if given is None else str(given)


def _exhaustive(config: pytest.Config, state: RunState) -> Any:
    """The scope of the run's exhaustive part (None: none): --exhaustive's, else under
    --certify the default scope."""
    from ..exhaustive.scope import ScopeError, default_scope, parse_scope

    assert state.adapter is not None
    generation = state.adapter.generation
    given = _exhaustive_given(config)
    if given is None:
        return default_scope(generation) if state.certify and not state.compile else None
    if given.strip() == "none":
        return None
    try:
        return parse_scope(given, generation)
    except ScopeError as exc:
        raise pytest.UsageError(f"--exhaustive: {one_line(exc)}") from None


def _impl_path(config: pytest.Config) -> list[str]:
    """Put ``--impl-path`` first on ``sys.path`` (adapter.put_impl_path; tox does not pass
    PYTHONPATH). The folders, absolute."""
    try:
        return put_impl_path(config.getoption("tfmode_impl_path"), Path(config.invocation_params.dir))
    except AdapterError as error:
        raise pytest.UsageError(str(error)) from None


def _invocation(config: pytest.Config, state: RunState, impl_path: list[str]) -> dict[str, Any]:
    """The run's options as resolved (see conformance.report.evidence): what verify runs again."""
    given = config.getoption("hypothesis_profile", None)
    seed = config.getoption("hypothesis_seed", None)
    expected = config.getoption("tfmode_expected") or os.environ.get("TFMODE_EXPECTED_FAILURES")
    return {
        "impl": state.spec, "impl_path": impl_path, "certify": state.certify,
        "compile": bool(config.getoption("tfmode_compile")),
        "hypothesis_profile": given or (None if state.certify else profiles.default_profile()),
        "seed": None if seed is None else _seed_text(seed),
        "rule_timeout": None if config.getoption("tfmode_timeout") is None else _timeout(config),
        "rules": config.getoption("tfmode_rules"),
        "exhaustive": _exhaustive_given(config),
        "keyword": str(getattr(config.option, "keyword", "") or ""),
        "markexpr": str(getattr(config.option, "markexpr", "") or ""),
        "expected_failures": str(Path(config.invocation_params.dir, expected).resolve())
        if expected else None,
    }


def activate(config: pytest.Config, state: RunState, early: bool) -> None:
    """Load the implementation, the catalogue and the expectations; choose the profile."""
    state.active, state.early = True, early
    state.certify = bool(config.getoption("tfmode_certify"))
    state.spec, state.origin = _impl(config)
    state.timeout = _timeout(config)
    state.reports_dir = _reports_dir(config)
    impl_path = _impl_path(config)
    if not hasattr(config, "workerinput"):  # before the implementation runs at all
        state.evidence = evidence.gather(impl=state.spec,
                                         invocation=_invocation(config, state, impl_path))
    given = _exhaustive_given(config)
    if given is not None and given.strip() != "none" and config.getoption("tfmode_compile"):
        raise pytest.UsageError("--exhaustive cannot be combined with --compile (a compiled "
                                "scenario takes a second or more: run --exhaustive without it)")
    processes.activate()  # before the child starts: nothing it starts may outlive the run
    state.adapter = load(state.spec, state.timeout, state.origin)
    state.compile = bool(config.getoption("tfmode_compile"))
    if state.compile:
        _enable_compile(state.adapter)
    try:
        state.catalogue = load_catalogue()
    except CatalogueError as exc:
        raise pytest.UsageError(one_line(exc)) from None
    given = config.getoption("tfmode_rules")
    if given is not None and state.certify:
        raise pytest.UsageError("--certify runs the whole suite: --rules makes a partial run, "
                                "which certifies nothing (run --rules without --certify)")
    if given is not None:
        try:
            state.rules = parse_rules(given, state.catalogue)
        except SelectionError as exc:
            raise pytest.UsageError(one_line(exc)) from None
    path = config.getoption("tfmode_expected") or os.environ.get("TFMODE_EXPECTED_FAILURES")
    if path:
        state.expected_path = str(path)
        try:
            state.expected = load_expectations(path, state.catalogue.ids())
            state.scopes = load_scopes(path, state.catalogue.ids())
            state.surface_scopes = load_surface_scopes(path, state.catalogue.ids())
        except ExpectationsError as exc:
            raise pytest.UsageError(one_line(exc)) from None
    if state.certify:
        must = [r for r in state.expected if state.catalogue.by_id(r).level in MUST_LEVELS]
        if must:
            raise pytest.UsageError(f"--certify refuses expected failures on MUST rules: "
                                    f"{', '.join(must)} (in {state.expected_path})")
    state.exhaustive = _exhaustive(config, state)
    _choose_profile(config, state)
    worker = hasattr(config, "workerinput")
    if (early and not worker and hasattr(config.option, "xmlpath") and not config.option.xmlpath
            and not config.option.collectonly):
        state.junit_tmp = state.reports_dir / ".junit.xml.tmp"
        config.option.xmlpath = str(state.junit_tmp)


def load(spec: str, timeout: float, origin: str | None = None) -> SandboxedImplementation:
    """The implementation, loaded in its sandbox process; a problem is one line."""
    try:
        implementation = SandboxedImplementation(spec, origin=origin)
    except (AdapterError, ImplementationFault) as exc:
        text = one_line(exc)
        top = spec.partition(":")[0].split(".")[0]
        if text.endswith(f"no module named {top!r}"):
            text += (" (not installed? --impl-path DIR, TFMODE_IMPL_PATH=DIR or "
                     "certify(impl_path=DIR) imports it from the folder DIR that holds it)")
        raise pytest.UsageError(text) from None
    implementation.body_seconds = timeout + 30.0  # the per-test limit comes first
    implementation.sandbox.restart_seconds = timeout + 30.0  # a restart: within its test
    return implementation


def _enable_compile(implementation: SandboxedImplementation) -> None:
    """--compile: the implementation must have torch.compile; its scenarios then run both ways."""
    try:
        implementation.call("conformance.target.compiled:check_available", seconds=120.0,
                            during="looking for torch.compile")
    except RemoteError as exc:
        raise pytest.UsageError(f"--compile: {one_line(exc.message)}") from None
    except ImplementationFault as exc:
        raise pytest.UsageError(f"--compile: {one_line(exc)}") from None
    implementation.compile = True
    implementation.body_seconds += 600.0


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


#: The shortest --rule-timeout: below it no test (nor a restart of the implementation) could end.
MIN_TIMEOUT = 1.0


def _timeout(config: pytest.Config) -> float:
    given = config.getoption("tfmode_timeout")
    if given is None:
        return DEFAULT_TIMEOUT
    try:
        seconds = float(given)
    except (TypeError, ValueError):
        seconds = math.nan
    if not math.isfinite(seconds) or seconds < MIN_TIMEOUT:
        raise pytest.UsageError(f"--rule-timeout must be a number of seconds, at least "
                                f"{MIN_TIMEOUT:g} (got {str(given)!r})")
    return seconds


def _reports_dir(config: pytest.Config) -> Path:
    """The reports folder; refused now if it cannot be one (a file of its name or above it)."""
    given = config.getoption("tfmode_reports")
    origin = f"--reports-dir {given!r}"
    if not given:
        given = os.environ.get("TFMODE_REPORTS") or "reports"
        origin = f"TFMODE_REPORTS={given!r}" if os.environ.get("TFMODE_REPORTS") else \
            f"the reports folder {given!r} (the default)"
    try:
        path = Path(config.invocation_params.dir, reportsdir.expand(given))
    except ValueError as exc:
        raise pytest.UsageError(f"{origin}: {exc}") from None
    for place in (path, *path.parents):
        if place.exists():
            if not place.is_dir():
                what = "is a file" if place == path else f"lies under the file {str(place)!r}"
                raise pytest.UsageError(f"{origin}: not a folder for the reports: it {what}")
            break
    if not hasattr(config, "workerinput") and not config.option.collectonly:
        problem = reportsdir.unusable(path)
        if problem is not None:
            raise pytest.UsageError(f"{origin}: the reports cannot be written: {problem}")
    return path


def _explicit_database(profile: settings) -> bool:
    database = profile.database
    return database is not None and database != settings.get_profile("default").database


def _choose_profile(config: pytest.Config, state: RunState) -> None:
    """``--hypothesis-profile`` wins; else ``certify`` under --certify; else the default profile."""
    profiles.register()
    given = config.getoption("hypothesis_profile", None)
    name = given or ("certify" if state.certify else profiles.default_profile())
    try:
        chosen = settings.get_profile(name)
    except InvalidArgument:
        origin = ("--hypothesis-profile" if given else
                  "TFMODE_PROFILE" if os.environ.get("TFMODE_PROFILE") else "the default profile")
        raise pytest.UsageError(f"{origin}: no hypothesis profile named {name!r} (the suite's: "
                                f"{', '.join(profiles.PROFILES)})") from None
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

