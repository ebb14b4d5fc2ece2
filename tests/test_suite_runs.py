"""The guard against paying for one run of the suite twice (tests/suite_runs.py).

A session whose tests start the same command line of the suite twice — on two pytest-xdist
workers, as a module's pool did when the worker grouping was lost, or from two tests that do
not share it — must fail, naming the run and who asked; the same tests sharing the run
(``cli.shared_run``) pass. The runs asked for only collect the suite's tests (``--collect-only``):
what is guarded is the starting, not what the run finds.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tests import suite_runs

REPO = Path(__file__).resolve().parents[1]

TWICE = '''
import pytest

from tests.quality.cli import {call}


@pytest.mark.parametrize("n", range(2))
def test_ask(tmp_path_factory, n):
    run = {call}({args})
    assert run.returncode == 0, run.output  # the suite's tests collected, none run
'''
RUN = "run_suite", '"reference_impl", tmp_path_factory.mktemp("r"), ("--collect-only",)'
SHARED = "shared_run", 'tmp_path_factory, "reference_impl", ("--collect-only",)'


def _session(folder: Path, call: str, args: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_twice.py").write_text(TWICE.format(call=call, args=args), encoding="utf-8")
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "TFMODE_")) and k != suite_runs.RUN_LOG}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "load", "-p", "tests.suite_runs",
         "-p", "no:cacheprovider", "-q", "--rootdir", str(folder), "--basetemp",
         str(folder / "base"), str(folder / "test_twice.py")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_session_that_starts_one_run_twice_fails(tmp_path: Path) -> None:
    done = _session(tmp_path, *RUN)
    output = done.stdout + done.stderr
    assert "2 passed" in output, output  # each test passed: the session fails after them
    assert done.returncode != 0, output
    assert "2 run(s) of the suite started, 1 of them more than once" in output, output
    assert "a run of the suite was started 2 times" in output, output
    assert "--impl reference_impl" in output and "test_twice.py::test_ask[0]" in output, output


def test_a_session_that_shares_the_run_passes(tmp_path: Path) -> None:
    done = _session(tmp_path, *SHARED)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 run(s) of the suite started, 0 of them more than once" in done.stdout, done.stdout
    # the run noted its process time when it ended, under the module that asked for it
    assert re.search(r"tests/suite_runs.py: +[0-9]+ process-s in +1 run\(s\) asked by "
                     r"test_twice.py\n", done.stdout), done.stdout


def test_the_costs_are_added_up_by_the_module_that_asked() -> None:
    lines = [json.dumps({"cost": 2.5, "test": "tests/a.py::t1"}),
             json.dumps({"key": "{}", "again": None, "test": "tests/a.py::t1"}),
             json.dumps({"cost": 1.0, "test": "tests/a.py::t2[x]"}),
             json.dumps({"cost": 9.0, "test": "tests/b.py::t"}), ""]
    assert suite_runs.costs(lines) == [("tests/b.py", 9.0, 1), ("tests/a.py", 3.5, 2)]
    assert suite_runs.repeats(lines) == []  # a cost is no run of its own


def test_the_key_leaves_out_temporary_folders_only() -> None:
    tmp = os.path.join(tempfile.gettempdir(), "pytest-of-someone", "pytest-7")
    one = suite_runs.key_of(["python", "--reports-dir", f"{tmp}/a/reports", "--impl", "m"],
                            f"{tmp}/a", {"PYTHONPATH": f"{tmp}/a/modules"})
    two = suite_runs.key_of(["python", "--reports-dir", f"{tmp}/b/reports", "--impl", "m"],
                            f"{tmp}/b", {"PYTHONPATH": f"{tmp}/b/modules"})
    assert one == two
    assert suite_runs.key_of(["python", "--impl", "m"], REPO, {}) != suite_runs.key_of(
        ["python", "--impl", "n"], REPO, {})
    # a checkout in the temporary folder (as CI clones it) is not a temporary folder of the tests
    checkout = os.path.join(tempfile.gettempdir(), "checkout")
    assert suite_runs.key_of(["python"], checkout, {}) != suite_runs.key_of(["python"], f"{tmp}/x", {})
    assert suite_runs.key_of(["python"], REPO, {}) != suite_runs.key_of(["python"], REPO, {"A": "1"})


def test_the_same_command_on_edited_implementation_files_is_another_run(tmp_path: Path) -> None:
    folder = tmp_path / "pkgs"
    (folder / "impl").mkdir(parents=True)
    (folder / "impl" / "__init__.py").write_text("x = 1\n", encoding="utf-8")
    command = ["python", "--impl", "impl", "--impl-path", str(folder)]
    before = suite_runs.key_of(command, REPO, {})
    assert suite_runs.key_of(command, REPO, {}) == before
    (folder / "impl" / "__init__.py").write_text("x = 2\n", encoding="utf-8")
    assert suite_runs.key_of(command, REPO, {}) != before


def test_a_deliberate_repeat_is_not_counted() -> None:
    def line(test: str, again: str | None = None) -> str:
        return json.dumps({"key": json.dumps({"command": ["-m", "pytest"]}), "again": again,
                           "test": test})

    assert suite_runs.repeats([line("t1"), line("t2", again="on purpose")]) == []
    found = suite_runs.repeats([line("t1"), line("t2"), ""])
    assert found == ["started 2 times: -m pytest; asked by t1, t2"]


def test_only_what_the_starter_added_or_changed_is_the_environment() -> None:
    base = {"HOME": "/root", "PATH": "/bin", "CI": "true"}
    now = {"HOME": "/root", "PATH": "/usr/bin", "EVID_OUT": "/x", "PYTEST_XDIST_WORKER": "gw1",
           suite_runs.ASKER: "t", suite_runs.RUN_LOG: "/log"}
    assert suite_runs.added(base, now) == {"PATH": "/usr/bin", "EVID_OUT": "/x"}
