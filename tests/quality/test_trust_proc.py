"""Nothing the implementation starts outlives the run, and no signal it sends hangs or silently
ends the run (docs/trust.rst). Each hostile implementation of tests/hostile/proc_*.py is certified
through the real command line: the run ends within its bound with a non-zero status, no process
the implementation started is alive afterwards (each wrote its pid to a file), none rewrites the
reports after the run, the certificate counts the processes the run ended, a SIGTERM leaves an
incomplete certificate, and a hang at a restart of the implementation costs one test.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from tests.hostile._proc import FORGED

from .cli import REPO, SuiteRun, run_suite, suite_command
from .conftest import SUMMARY_KEY

pytestmark = pytest.mark.xdist_group("test_trust_proc")

#: Seconds a hostile run may take (a clean dev run takes about 5 s; the restart that hangs
#: costs --rule-timeout, 20 s here, or 35 s where pytest-timeout is missing). The rule timeout
#: is not lower because, beside a loaded CI worker, the stateful test alone took over 5 s.
BOUND = 120.0
#: (hostile module, extra options) of every run.
RUNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "grandchild": ("proc_grandchild", ()),
    "grandchild-n2": ("proc_grandchild", ("-n", "2")),
    "forks": ("proc_forks", ()),
    "sigstop": ("proc_sigstop", ()),
    "sigterm": ("proc_sigterm", ()),
    "restart_hang": ("proc_restart_hang", ("--rule-timeout", "20")),
    "sigkill": ("proc_sigkill", ()),
}


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        try:
            os.kill(pid, 0)
        except OSError:
            return False
        return not os.path.isdir("/proc")


class _Runs:
    """Every hostile run, started together (two at a time) when the first is needed."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.pool: ThreadPoolExecutor | None = None
        self.futures: dict[str, Future[tuple[SuiteRun, Path]]] = {}

    def _one(self, name: str) -> tuple[SuiteRun, Path]:
        module, extra = RUNS[name]
        workdir = self.factory.mktemp(name)
        hostile = workdir / "hostile"
        hostile.mkdir()
        env = {"PROC_HOSTILE_DIR": str(hostile), "PROC_HOSTILE_REPORTS": str(workdir / "reports")}
        run = run_suite(f"tests.hostile.{module}", workdir, extra, BOUND + 30, env_extra=env)
        return run, hostile

    def get(self, name: str) -> tuple[SuiteRun, Path]:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
            for key in RUNS:
                self.futures[key] = self.pool.submit(self._one, key)
        return self.futures[name].result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
        for future in self.futures.values():  # whatever a failing run left: not for an hour
            if future.done() and future.exception() is None:
                for pid in _pids(future.result()[1]):
                    try:
                        os.kill(pid, signal.SIGKILL)
                    except OSError:
                        pass


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    pool = _Runs(tmp_path_factory)
    yield pool
    pool.close()


def _pids(hostile: Path) -> list[int]:
    path = hostile / "pids"
    return [int(x) for x in path.read_text().split()] if path.exists() else []


def _survivors(hostile: Path, wait: float = 3.0) -> list[int]:
    """The implementation's processes still alive ``wait`` seconds after the run."""
    deadline = time.monotonic() + wait
    while True:
        alive = [pid for pid in _pids(hostile) if _alive(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def _ended(run: SuiteRun) -> int:
    assert run.certificate is not None, run.tail()
    ended: int = run.certificate["run"]["processes_ended"]
    return ended


@pytest.mark.parametrize("name", ["grandchild", "grandchild-n2"])
def test_a_detached_grandchild_cannot_rewrite_the_reports(
        name: str, runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run, hostile = runs.get(name)
    record_property(SUMMARY_KEY, f"hostile {name:14} ended in {run.seconds:6.1f}s, exit {run.returncode}")
    assert run.seconds < BOUND and run.returncode not in (0, -1), run.tail()
    assert _pids(hostile), f"the grandchild never started\n{run.tail()}"
    time.sleep(2.0)  # the grandchild would write 0.3 s after the suite's process has exited
    for report in ("certificate.json", "badge.json"):
        text = (run.reports / report).read_text(encoding="utf-8")
        assert FORGED not in text, f"{report} was rewritten after the run"
    certificate = json.loads((run.reports / "certificate.json").read_text(encoding="utf-8"))
    assert certificate["level"]["reached"] == "none"
    assert not _survivors(hostile, 0.0)
    assert _ended(run) >= 1
    assert "process(es) running; the run ended them" in run.output


def test_processes_the_implementation_starts_are_ended_and_counted(runs: _Runs) -> None:
    run, hostile = runs.get("forks")
    assert run.seconds < BOUND and run.returncode not in (0, -1), run.tail()
    assert len(_pids(hostile)) == 16, run.tail()
    alive = _survivors(hostile)
    assert not alive, f"{len(alive)} of the implementation's 16 processes outlived the run"
    assert _ended(run) >= 16, run.certificate["run"] if run.certificate else run.tail()
    assert f"the implementation left {_ended(run)} process(es) running" in run.output


def test_a_stopped_suite_is_continued(runs: _Runs) -> None:
    run, _ = runs.get("sigstop")
    assert run.returncode not in (0, -1), f"exit {run.returncode} after {run.seconds:.0f}s\n{run.tail()}"
    assert run.seconds < BOUND
    assert run.certificate is not None and run.certificate["run"]["complete"], run.tail()
    assert run.certificate["level"]["reached"] == "none"


def test_sigterm_from_the_implementation_leaves_an_incomplete_certificate(runs: _Runs) -> None:
    run, _ = runs.get("sigterm")
    assert run.returncode not in (0, -1) and run.seconds < BOUND, run.tail()
    assert run.certificate is not None, f"no certificate\n{run.tail()}"
    assert run.certificate["run"]["complete"] is False
    assert run.certificate["level"]["reached"] == "none"
    assert any("interrupted by SIGTERM" in p for p in run.certificate["run"]["problems"])
    badge = json.loads((run.reports / "badge.json").read_text(encoding="utf-8"))
    assert badge["message"] == "incomplete run"


def test_a_killed_suite_leaves_no_process_of_the_implementation(runs: _Runs) -> None:
    """SIGKILL of the suite's process cannot be caught: the run ends with no new certificate,
    and the watchdog ends what the implementation left (the processes carrying the run's
    token; one that also dropped its environment could survive, see conformance.sandbox.processes)."""
    run, hostile = runs.get("sigkill")
    assert run.returncode == -signal.SIGKILL, f"exit {run.returncode}\n{run.tail()}"
    assert run.certificate is None
    assert len(_pids(hostile)) == 2, run.tail()
    alive = _survivors(hostile)
    assert not alive, f"{len(alive)} of the implementation's processes outlived the killed run"


def _failures_by_test(certificate: dict[str, Any]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for entry in certificate["rules"].values():
        for failure in entry.get("failures", []):
            found.setdefault(failure["test"], []).append(failure["message"] or "")
    return found


def test_a_hang_at_restart_costs_one_test(runs: _Runs) -> None:
    run, hostile = runs.get("restart_hang")
    assert (hostile / "restart").read_text() == "hung", "the restart did not hang"
    assert run.returncode == 1 and run.seconds < BOUND, f"exit {run.returncode}\n{run.tail()}"
    assert "INTERNALERROR" not in run.output, run.tail()
    assert run.certificate is not None and run.certificate["run"]["complete"], run.tail()
    hung = {test for test, messages in _failures_by_test(run.certificate).items()
            if any("Timeout (>" in m or "while loading the implementation" in m for m in messages)}
    assert len(hung) == 1, hung


@pytest.mark.parametrize("given", ["0.001", "abc", "nan", "-5"])
def test_an_absurd_rule_timeout_is_refused(given: str, tmp_path: Path) -> None:
    command = suite_command("reference_impl", tmp_path / "reports", ("--rule-timeout", given))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env["PYTHONPATH"] = str(REPO)
    proc = subprocess.run(command, cwd=REPO, env=env, text=True, capture_output=True, timeout=120,
                          check=False)
    assert proc.returncode == 4, proc.stdout + proc.stderr
    errors = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    refusal = f"ERROR: --rule-timeout must be a number of seconds, at least 1 (got {given!r})"
    assert errors == [refusal], errors
    assert not (tmp_path / "reports").exists()
