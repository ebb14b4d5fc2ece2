"""The pytest plugin of the conformance suite (the ``pytest11`` entry point ``conformance.plugin``).

This module only gathers the hooks and fixtures; each concern lives in its own module:
:mod:`conformance.session.activation` (options, loading the implementation, the hypothesis profile),
:mod:`conformance.session.collection` (markers and rule selection), :mod:`conformance.session.recording`
(running each test and recording its outcome), :mod:`conformance.session.fixtures` and
:mod:`conformance.session.finish` (verdicts, the certificate and the terminal summary),
:mod:`conformance.session.nodeids` (the suite's test IDs, wherever it is installed).
"""

from __future__ import annotations

import sys

import pytest

from .session.activation import pytest_addoption, pytest_configure
from .session.collection import (
    pytest_collection_finish,
    pytest_collection_modifyitems,
    pytest_deselected,
    pytest_runtestloop,
    pytest_testnodedown,
    pytest_xdist_node_collection_finished,
)
from .session.finish import pytest_report_header, pytest_sessionfinish, pytest_terminal_summary
from .session.fixtures import (
    adapter,
    excused,
    exhaustive_scope,
    impl_spec,
    pytest_unconfigure,
    rule_coverage,
    rule_generations,
    rule_timeout,
    tfmode_certify,
)
from .session.nodeids import pytest_pycollect_makemodule
from .session.notcompiled import pytest_report_teststatus
from .session.recording import (
    RuleTimeout,
    pytest_runtest_call,
    pytest_runtest_logreport,
    pytest_runtest_makereport,
    pytest_runtest_setup,
    pytest_sessionstart,
    pytest_timeout_set_timer,
)
from .session.runstate import suite_active

__all__ = [
    "ENTRY_POINT",
    "RuleTimeout",
    "adapter",
    "excused",
    "exhaustive_scope",
    "impl_spec",
    "pytest_addoption",
    "pytest_collection_finish",
    "pytest_collection_modifyitems",
    "pytest_configure",
    "pytest_deselected",
    "pytest_plugin_registered",
    "pytest_pycollect_makemodule",
    "pytest_report_header",
    "pytest_report_teststatus",
    "pytest_runtest_call",
    "pytest_runtest_logreport",
    "pytest_runtest_makereport",
    "pytest_runtest_setup",
    "pytest_runtestloop",
    "pytest_sessionfinish",
    "pytest_sessionstart",
    "pytest_terminal_summary",
    "pytest_testnodedown",
    "pytest_timeout_set_timer",
    "pytest_unconfigure",
    "pytest_xdist_node_collection_finished",
    "rule_coverage",
    "rule_generations",
    "rule_timeout",
    "suite_active",
    "tfmode_certify",
]

#: The name of this plugin's pytest11 entry point (pyproject.toml).
ENTRY_POINT = "conformance.plugin"


def pytest_plugin_registered(plugin: object, manager: pytest.PytestPluginManager) -> None:
    """Loaded as ``-p conformance.plugin`` where the package is installed too: block the entry
    point, which would register this same module a second time (pluggy refuses that)."""
    if plugin is sys.modules.get(__name__) and manager.get_name(plugin) != ENTRY_POINT:
        manager.set_blocked(ENTRY_POINT)
