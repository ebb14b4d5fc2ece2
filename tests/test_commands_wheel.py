"""Every shown command a user of the installed package could type, run from the installed wheel
in a folder outside the repository: it works as in the checkout, or refuses in one line.

How each registry entry fares there is its ``wheel`` field (tests/commands/wheel.py); these
tests fail when a command of the installed package (one that starts with ``python`` or
``pytest``) says nothing about it, and run every entry that runs or refuses.
"""

from __future__ import annotations

import importlib.util
import textwrap
from pathlib import Path

import pytest

from tests.commands.registry import Entry, RegistryError, load_registry
from tests.commands.wheel import exercise_from_wheel, installed_wheel, refusal_problems, wheel_groups
from tests.commands.workspace import REPO, Workspace

REGISTRY = load_registry(REPO / "tests" / "commands" / "registry.toml")
GROUPS = wheel_groups(REGISTRY)


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return installed_wheel(tmp_path_factory)


def test_every_command_of_the_installed_package_says_how_it_fares_from_the_wheel() -> None:
    silent = [e.label() for e in REGISTRY.values()
              if e.after is None and e.kind != "equivalent" and e.wheel is None
              and e.shown.startswith(("python", "pytest"))]
    assert not silent, ("no wheel = \"run\", \"refuses\" or \"checkout\" in "
                        "tests/commands/registry.toml for:\n  " + "\n  ".join(silent))


def test_the_checkout_only_release_tools_are_among_the_refusals() -> None:
    refusing = {(e.check if e.kind == "ci" else e.command) for e in REGISTRY.values()
                if e.wheel == "refuses"}
    assert {"python -m conformance.matrix", "python -m conformance.release 2.0.1 --dry-run"} <= refusing


def test_a_refusal_is_one_line_on_stderr_and_nothing_else() -> None:
    assert refusal_problems(2, "", "error: needs a checkout\n") == []
    assert refusal_problems(0, "", "error: x\n") == ["exit status 0, not a refusal"]
    assert refusal_problems(1, "", "Traceback (most recent call last):\n  File ...\nKeyError: 1\n") \
        == ["3 lines on stderr, not one", "a traceback"]
    assert refusal_problems(2, "usage\n", "error: x\n") == ["output on stdout"]


def test_the_wheel_workspace_has_the_installed_package_and_nothing_of_the_repository(
        site: Path, tmp_path: Path) -> None:
    ws = Workspace(tmp_path, site=site)
    done = ws.shell("python -c 'import conformance, spec, reference_impl, tests.mutants; "
                    "print(conformance.__file__, spec.__file__, reference_impl.__file__)'", 60)
    assert done.status == 0, done.describe()
    assert all(path.startswith(str(site)) for path in done.output.split()), done.output
    assert ws.shell("python -c 'import tests.quality'", 60).status == 1
    assert not list(ws.root.iterdir())


def test_a_command_that_fares_otherwise_from_the_wheel_fails(site: Path, tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(textwrap.dedent("""\
        [run]
        "python -m spec explain mode_stack" = { output = "x", wheel = "refuses" }
        "python -m conformance.matrix" = { writes = ["docs/_generated/matrix.rst"], wheel = "run" }
        "python -m spec explain X" = { with = { X = "mode_stack" }, output = '^outcome:', wheel = "run" }
        "python -m spec explain Y" = { with = { Y = "mode_stack" }, output = '^no such line', wheel = "run" }
        """))
    groups = wheel_groups(load_registry(tmp_path / "registry.toml"))
    assert [len(g) for g in groups] == [1, 1, 2]  # X and Y make the same run, judged each
    problems = [exercise_from_wheel(g, Workspace(tmp_path / str(i), site=site))
                for i, g in enumerate(groups)]
    assert "exit status 0, not a refusal" in problems[0][0] and "output on stdout" in problems[0][0]
    assert "expected exit status 0" in problems[1][0] and "a checkout" in problems[1][0]
    assert len(problems[2]) == 1 and problems[2][0].startswith("python -m spec explain Y: ")


def test_nothing_runs_after_a_refusal(tmp_path: Path) -> None:
    (tmp_path / "registry.toml").write_text(textwrap.dedent("""\
        [run]
        "python -m conformance.matrix" = { writes = ["x"], wheel = "refuses" }
        "python -m json.tool x" = { output = "x", after = "python -m conformance.matrix" }
        """))
    with pytest.raises(RegistryError, match="nothing runs after it"):
        wheel_groups(load_registry(tmp_path / "registry.toml"))


def _param(group: list[Entry]) -> object:
    label = group[0].label() + (f" (+{len(group) - 1} alike)" if len(group) > 1
                                and group[1].after is None else "")
    return pytest.param(group, id=label)


def _run_group(group: list[Entry], site: Path, tmp_path: Path) -> None:
    problems = exercise_from_wheel(group, Workspace(tmp_path, site=site))
    assert not problems, "\n\n".join(problems)


@pytest.mark.parametrize("group", [_param(g) for g in GROUPS if not any(e.needs for e in g)])
def test_command_from_the_wheel(group: list[Entry], site: Path, tmp_path: Path) -> None:
    _run_group(group, site, tmp_path)


NEEDING_MODULES = [_param(g) for g in GROUPS if any(e.needs for e in g)
                   and all(importlib.util.find_spec(m) is not None for e in g for m in e.needs)]

if NEEDING_MODULES:  # defined only where torch is installed (tox -e conformance-torch)

    @pytest.mark.parametrize("group", NEEDING_MODULES)
    def test_command_from_the_wheel_needing_modules(group: list[Entry], site: Path,
                                                    tmp_path: Path) -> None:
        _run_group(group, site, tmp_path)
