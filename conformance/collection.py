"""Collection: the rule, generation and feature markers of the suite's tests."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from .activation import activate
from .adapter import FEATURES
from .report import TestOutcome
from .runstate import CONTROLLER, GENERATIONS, from_suite, marker_args, state_of


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    state = state_of(config)
    if not state.active:
        if not any(from_suite(item) for item in items):
            return
        activate(config, state, early=False)
    known = set(state.catalogue.ids())
    problems: list[str] = []
    add_timeout = config.pluginmanager.hasplugin("timeout") and (
        config.getoption("tfmode_timeout") is not None or config.getoption("timeout", None) is None)
    method = "signal" if hasattr(signal, "SIGALRM") else "thread"
    for item in items:
        rules = marker_args(item, "rule")
        gens = marker_args(item, "generation")
        feats = marker_args(item, "feature")
        problems += [f"unknown rule ID {r} ({item.nodeid})" for r in rules if r not in known]
        problems += [f"unknown generation {g!r} ({item.nodeid})" for g in gens
                     if g not in GENERATIONS]
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
        outcomes = state_of(items[0].config).outcomes
        for item in items:
            outcomes.pop(item.nodeid, None)  # not run: no verdict from it (coverage keeps it)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    state = state_of(session.config)
    if state.active and not hasattr(session.config, "workerinput"):
        state.selected.update(item.nodeid for item in session.items if from_suite(item))


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """On the pytest-xdist controller: every worker collects the same tests."""
    state = CONTROLLER.get("state")
    if state is not None and state.active:
        state.selected.update(ids)

