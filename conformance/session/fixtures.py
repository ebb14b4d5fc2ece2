"""The suite's fixtures: the implementation under test and what the run knows about it."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest

from ..judge.check import Target
from ..judge.excusal import Excusals
from ..report.api import Certificate, certify
from ..sandbox import processes
from ..sandbox.parent import SandboxedImplementation
from .activation import load
from .runstate import DEFAULT_IMPL, DEFAULT_TIMEOUT, KEY, state_of

# -- fixtures --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def adapter(request: pytest.FixtureRequest) -> Target:
    """The implementation under test (``--impl``), in its sandbox process."""
    state = state_of(request.config)
    if state.adapter is None:
        spec = request.config.getoption("tfmode_impl") or os.environ.get("TFMODE_IMPL") \
            or DEFAULT_IMPL
        try:
            state.adapter = load(spec, state.timeout)
        except pytest.UsageError as exc:
            pytest.fail(str(exc), pytrace=False)
    return state.adapter


@pytest.fixture(scope="session")
def excused(request: pytest.FixtureRequest) -> Excusals:
    """The expected failures: each excuses exactly the divergences attributed to its rule (in
    the functions it is scoped to), and the rest of the same trace is still compared
    (conformance.judge.excusal)."""
    state = state_of(request.config)
    return Excusals({r: state.scopes.get(r, frozenset()) for r in state.expected},
                    used=state.scope_used)


@pytest.fixture(scope="session")
def exhaustive_scope(request: pytest.FixtureRequest) -> Any:
    """The scope of the run's exhaustive part (a conformance.exhaustive.scope.Scope); the
    tests that use it are collected only when the run has one."""
    return state_of(request.config).exhaustive


@pytest.fixture(scope="session")
def impl_spec(request: pytest.FixtureRequest) -> str:
    """``--impl`` as given (``MODULE`` or ``pkg.mod:ATTR``), for reproduction snippets."""
    state = state_of(request.config)
    return state.spec if state.active else (request.config.getoption("tfmode_impl")
                                            or os.environ.get("TFMODE_IMPL") or DEFAULT_IMPL)


@pytest.fixture(scope="session")
def rule_timeout(request: pytest.FixtureRequest) -> float:
    """The per-test time limit in seconds (``--rule-timeout``)."""
    state = state_of(request.config)
    return state.timeout if state.active else DEFAULT_TIMEOUT


@pytest.fixture(scope="session")
def rule_coverage(request: pytest.FixtureRequest) -> dict[str, list[str]]:
    """``{rule_id: [node IDs]}`` of every collected test carrying the rule."""
    return {k: list(v) for k, v in state_of(request.config).coverage.items()}


@pytest.fixture(scope="session")
def rule_generations(request: pytest.FixtureRequest) -> dict[str, tuple[str, ...]]:
    """``{node ID: generations of its generation marker}`` (empty: every generation)."""
    return dict(state_of(request.config).generations)


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(KEY, None)
    if state is not None and isinstance(state.adapter, SandboxedImplementation):
        state.adapter.close()  # kills the child: threads it left looping cannot hold the exit
    processes.deactivate()  # if sessionfinish did not (a usage error stopped the run)



@pytest.fixture(scope="session")
def tfmode_certify(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Certificate]:
    """:func:`conformance.certify` for a project's own tests: the same arguments, the reports in
    a temporary folder; each distinct call runs once per session and is then remembered."""
    done: dict[str, Certificate] = {}

    def run(impl: str, **options: Any) -> Certificate:
        key = json.dumps([impl, options], sort_keys=True, default=str)
        if key not in done:
            options.setdefault("reports_dir", tmp_path_factory.mktemp("tfmode-certify"))
            done[key] = certify(impl, **options)
        return done[key]

    return run
