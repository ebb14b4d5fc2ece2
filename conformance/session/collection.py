"""Collection: the rule, generation and feature markers of the suite's tests."""

from __future__ import annotations

import signal
from typing import Any

import pytest

from ..report.verdicts import TestOutcome
from ..target.adapter import FEATURES
from .activation import activate
from .reportsdir import clear_previous
from .runstate import (
    CONTROLLER,
    GENERATIONS,
    PROCESSES_OUTPUT,
    TAMPERED_OUTPUT,
    RunState,
    from_suite,
    marker_args,
    shown_nodeid,
    state_of,
)
from .selection import Selection, describe


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config,
                                  items: list[pytest.Item]) -> None:
    state = state_of(config)
    if not state.active:
        if not any(from_suite(item) for item in items):
            return
        activate(config, state, early=False)
    if state.exhaustive is None:  # the exhaustive tests exist only where the run has a scope
        for item in items:
            if _exhaustive(item):
                state.modules.add(item.path.name)  # collected: the run is not partial for it
        items[:] = [item for item in items if not _exhaustive(item)]
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
        if from_suite(item) or rules:
            state.collected[item.nodeid] = rules
            if from_suite(item):
                state.modules.add(item.path.name)
            item.extra_keyword_matches.update(rules)  # -k TFM_ORDER matches the rule markers
        if rules:
            state.outcomes[item.nodeid] = TestOutcome(item.nodeid, rules, feats,
                                                      shown=shown_nodeid(item))
            for rule_id in rules:
                state.coverage.setdefault(rule_id, []).append(item.nodeid)
            for feature in feats:
                state.feature_rules.setdefault(feature, set()).update(rules)
        if add_timeout and item.get_closest_marker("timeout") is None:
            # func_only: the timer runs around the test body only, never in pytest's own hooks
            # (a reset, a report), where its exception would be an INTERNALERROR of the run.
            item.add_marker(pytest.mark.timeout(state.timeout, method=method, func_only=True))
    if problems:
        raise pytest.UsageError("bad conformance markers: " + "; ".join(problems))
    if state.rules is not None:
        _select_rules(config, items, set(state.rules))


def _exhaustive(item: pytest.Item) -> bool:
    """A test of the run's exhaustive part (marked ``exhaustive``), which needs a scope."""
    return from_suite(item) and item.get_closest_marker("exhaustive") is not None


def _select_rules(config: pytest.Config, items: list[pytest.Item], wanted: set[str]) -> None:
    """``--rules``: keep the tests marked with a chosen rule; deselect the rest."""
    kept = [item for item in items if wanted & set(marker_args(item, "rule"))]
    dropped = [item for item in items if not wanted & set(marker_args(item, "rule"))]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def pytest_deselected(items: list[pytest.Item]) -> None:
    if items:
        outcomes = state_of(items[0].config).outcomes
        for item in items:
            outcomes.pop(item.nodeid, None)  # not run: no verdict from it (coverage keeps it)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """What the run selected of the suite, after every deselection (on a pytest-xdist worker,
    sent to the controller with the worker's output)."""
    config = session.config
    state = state_of(config)
    if not state.active:
        return
    kept = {item.nodeid for item in session.items if item.nodeid in state.collected}
    state.selection = describe(
        collected=state.collected, kept=kept, modules=state.modules,
        node_ids=any("::" in str(arg) for arg in config.args), rules=state.rules,
        rules_text=config.getoption("tfmode_rules"), keyword=config.option.keyword,
        markexpr=config.option.markexpr)
    if hasattr(config, "workerinput"):
        config.workeroutput[SELECTION_OUTPUT] = state.selection.to_json()  # type: ignore[attr-defined]
    else:
        state.selected.update(item.nodeid for item in session.items if from_suite(item))


def start_of_run(state: RunState) -> None:
    """The run starts: remove the earlier run's files from the reports folder (once; on the
    controller, after every usage error could have stopped the run)."""
    if not state.cleared and state.adapter is not None:
        state.cleared = True
        clear_previous(state.reports_dir)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Without pytest-xdist, the tests run next: see :func:`start_of_run`."""
    config = session.config
    state = state_of(config)
    if (state.active and not hasattr(config, "workerinput") and not config.option.collectonly
            and not config.pluginmanager.hasplugin("dsession")
            and state.selection is not None and state.selection.selected):
        start_of_run(state)


#: The key of a pytest-xdist worker's output that carries its :class:`Selection`.
SELECTION_OUTPUT = "tfmode_selection"


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """On the pytest-xdist controller: what a worker selected (every worker selects alike)."""
    state = CONTROLLER.get("state")
    output = getattr(node, "workeroutput", None) or {}
    if state is not None and state.active and state.selection is None \
            and isinstance(output.get(SELECTION_OUTPUT), str):
        state.selection = Selection.from_json(output[SELECTION_OUTPUT])
    ended = output.get(PROCESSES_OUTPUT)
    if state is not None and state.active and isinstance(ended, int):
        state.processes_ended += ended
    tampered = output.get(TAMPERED_OUTPUT)
    if state is not None and state.active and isinstance(tampered, str):
        state.tampered.append(tampered)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    """On the pytest-xdist controller: every worker collects the same tests."""
    state = CONTROLLER.get("state")
    if state is not None and state.active:
        state.selected.update(ids)
        if ids:  # before the first test is scheduled
            start_of_run(state)

