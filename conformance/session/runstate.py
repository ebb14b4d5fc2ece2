"""What the conformance plugin knows about one pytest run, and where it keeps it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from spec.catalogue import Catalogue

from ..judge.check import Target
from ..report.verdicts import TestOutcome
from .observed import Observed
from .selection import Selection

SUITE = "conformance.suite"
DEFAULT_IMPL = "reference_impl"
DEFAULT_TIMEOUT = 60.0
GENERATIONS = ("2022", "stack")


@dataclass
class RunState:
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
    #: Where each excuses a divergence of the surface sweep: the callables (None: any).
    surface_scopes: dict[str, frozenset[str] | None] = field(default_factory=dict)
    #: The surface sweep's table (conformance.surface.judge), for the certificate.
    surface: dict[str, Any] | None = None
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
    #: the earlier run's files were removed from the reports folder (the run has started)
    cleared: bool = False
    #: why pytest's JUnit file could not be written (None: it was, or there is none)
    junit_error: str | None = None
    #: the certificate's evidence section (conformance.report.evidence), made before the run
    evidence: dict[str, Any] | None = None
    outcomes: dict[str, TestOutcome] = field(default_factory=dict)
    coverage: dict[str, list[str]] = field(default_factory=dict)
    #: ``--rules``: the rules chosen (None: not given)
    rules: tuple[str, ...] | None = None
    #: {node ID: rule markers} of every suite test collected, and the suite modules they are in
    collected: dict[str, tuple[str, ...]] = field(default_factory=dict)
    modules: set[str] = field(default_factory=set)
    #: what the run selected of the suite (on the controller: as a worker reported it)
    selection: Selection | None = None
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
    #: rule ID -> the elements of its expected failure's scope that excused a divergence (a
    #: worker hands over what its tests used and starts again; the controller gathers it all)
    scope_used: dict[str, set[str]] = field(default_factory=dict)
    lines: list[str] = field(default_factory=list)
    #: --compile: scenarios run inside torch.compile too; what the tests counted of them
    compile: bool = False
    #: --exhaustive (or a certification's default): the scope every scenario of which is
    #: checked (conformance.exhaustive); None: no exhaustive part in this run.
    exhaustive: Any = None
    compilation: Counter[str] = field(default_factory=Counter)
    #: processes of the implementation the run had to end (this process's and its workers')
    processes_ended: int = 0
    #: what the child's tripwire found changed in the suite's code (each worker's, once)
    tampered: list[str] = field(default_factory=list)

    def scoped_entries(self) -> frozenset[str]:
        """The expected failures scoped to functions or to the surface sweep: they excuse only a
        failure whose test says where it showed (see TestOutcome.excused)."""
        return frozenset(rule for rule, scope in self.scopes.items() if scope)


KEY = pytest.StashKey[RunState]()


def state_of(config: pytest.Config) -> RunState:
    state = config.stash.get(KEY, None)
    if state is None:
        state = config.stash[KEY] = RunState()
        if not hasattr(config, "workerinput"):
            CONTROLLER["state"] = state
    return state


def suite_active(config: pytest.Config) -> bool:
    """Whether this run is a conformance run (the plugin chooses the hypothesis profile)."""
    return state_of(config).active


#: The state of the process that writes the reports (pytest_runtest_logreport has no config).
CONTROLLER: dict[str, RunState] = {}


def one_line(text: object) -> str:
    return " ".join(str(text).split())


#: The name of this plugin's pytest11 entry point (pyproject.toml).

def names_suite(config: pytest.Config) -> bool:
    for arg in config.args:
        base = arg.split("::")[0]
        if base == SUITE or base.startswith(SUITE + "."):
            return True
        if in_suite_dir(Path(config.invocation_params.dir, base)):
            return True
    return False


def in_suite_dir(path: Path) -> bool:
    parts = path.resolve().parts
    return any(parts[i:i + 2] == ("conformance", "suite") for i in range(len(parts) - 1))


def from_suite(item: pytest.Item) -> bool:
    name = str(getattr(getattr(item, "module", None), "__name__", ""))
    return name == SUITE or name.startswith(SUITE + ".") or in_suite_dir(item.path)


# -- collection ------------------------------------------------------------------------------


def marker_args(item: pytest.Item, name: str) -> tuple[str, ...]:
    values = [str(a) for m in item.iter_markers(name) for a in m.args]
    return tuple(dict.fromkeys(values))


#: The user properties that carry a worker's test outcome and hypothesis settings to the controller.
OUTCOME_PROPERTY = "tfmode_outcome"
SETTINGS_PROPERTY = "tfmode_hypothesis"
NOISE_PROPERTY = "tfmode_noise"
SCOPE_PROPERTY = "tfmode_scope_used"
#: The pytest-xdist worker output that carries how many processes the worker had to end.
PROCESSES_OUTPUT = "tfmode_processes_ended"
#: The pytest-xdist worker output that says what the child's tripwire found (conformance.sandbox.integrity).
TAMPERED_OUTPUT = "tfmode_tampered"



def shown_nodeid(item: pytest.Item) -> str:
    """How reports name a test: a suite test from the suite's package on
    (``conformance/suite/test_examples.py::test_example[...]``), whatever folder pytest ran in
    and wherever the package is installed; any other test by its node ID."""
    if not from_suite(item) or "::" not in item.nodeid:
        return item.nodeid
    return f"conformance/suite/{item.path.name}::{item.nodeid.split('::', 1)[1]}"
