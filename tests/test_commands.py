"""Every command README.md and docs/ show is exercised, so that none can rot.

``tests/commands/registry.toml`` lists each shown command and how it is exercised; these tests
fail when a shown command is not listed or a listed one is no longer shown, and run (or check)
every entry in a fresh copy of the checkout. Entries that need torch or sphinx are defined where
those are installed (``tox -e conformance-torch`` runs them:
``pytest tests/test_commands.py -k needing_modules``).
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from tests.commands.exercise import check_ci, exercise
from tests.commands.registry import Entry, chains, load_registry
from tests.commands.shown import shown_commands
from tests.commands.workspace import REPO, Workspace

REGISTRY_FILE = REPO / "tests" / "commands" / "registry.toml"
REGISTRY = load_registry(REGISTRY_FILE)
SHOWN = shown_commands(REPO)
CHAINS = chains(REGISTRY)


def _installed(chain: list[Entry]) -> bool:
    return all(importlib.util.find_spec(module) is not None for e in chain for module in e.needs)


def _param(chain: list[Entry]) -> object:
    return pytest.param(chain, id=chain[0].label())


def _run_chain(chain: list[Entry], tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    problems = [problem for entry in chain for problem in exercise(entry, ws)]
    assert not problems, "\n\n".join(problems)


# -- the registry and the docs agree ----------------------------------------------------------


def test_every_shown_command_is_in_the_registry() -> None:
    missing = {command: where for command, where in SHOWN.items() if command not in REGISTRY}
    assert not missing, (
        "commands shown but not in tests/commands/registry.toml (add one line each, under "
        "[run], [equivalent], [named] or [ci]):\n"
        + "\n".join(f"  {json.dumps(c)}  ({', '.join(w)})" for c, w in missing.items()))


def test_every_registry_entry_is_still_shown() -> None:
    gone = [entry.shown for entry in REGISTRY.values() if entry.shown not in SHOWN]
    assert not gone, ("in tests/commands/registry.toml but shown nowhere any more (remove or "
                      "update the line):\n" + "\n".join(f"  {json.dumps(c)}" for c in gone))


def test_the_registry_is_exercised_whole() -> None:
    """Every [run], [equivalent] and [named] entry is in exactly one chain."""
    in_chains = [entry.shown for chain in CHAINS for entry in chain]
    runnable = [e.shown for e in REGISTRY.values() if e.kind != "ci"]
    assert sorted(in_chains) == sorted(runnable)


# -- every command, exercised ----------------------------------------------------------------


@pytest.mark.parametrize("chain", [_param(c) for c in CHAINS if not any(e.needs for e in c)])
def test_command(chain: list[Entry], tmp_path: Path) -> None:
    _run_chain(chain, tmp_path)


NEEDING_MODULES = [_param(c) for c in CHAINS if any(e.needs for e in c) and _installed(c)]

if NEEDING_MODULES:  # defined only where torch or sphinx is installed

    @pytest.mark.parametrize("chain", NEEDING_MODULES)
    def test_command_needing_modules(chain: list[Entry], tmp_path: Path) -> None:
        _run_chain(chain, tmp_path)


@pytest.mark.parametrize("entry", [pytest.param(e, id=e.label()) for e in REGISTRY.values()
                                   if e.kind == "ci"])
def test_ci_command(entry: Entry, tmp_path: Path) -> None:
    problems = check_ci(entry, Workspace(tmp_path))
    assert not problems, "\n\n".join(problems)
