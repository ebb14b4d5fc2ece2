"""Prints where a session of the repository's tests spent its process time, by test module.

Each process that runs tests (every pytest-xdist worker, or the one process of a serial
session) notes, after each test, the CPU time it and the children it waited for used while the
test ran: the runs of the suite a test starts, their sandboxes and the commands it runs count
with it; a module's pool of runs counts with whichever of its tests was running when a run
ended. When the session ends, its controller prints the total and the costliest modules, so a
slower session says where (tests/suite_runs.py prints the same for the runs of the suite alone).
The figures are measurements, never asserted: a loaded machine adds to them.
"""

from __future__ import annotations

import fcntl
import json
import os
import tempfile
from collections.abc import Iterable
from pathlib import Path

import pytest

from tests.suite_runs import _is_suite_run, _process_seconds

#: The environment variable naming the session's log (one JSON object a line).
COST_LOG = "TESTS_MODULE_COST_LOG"
#: How many modules the summary names.
_SHOWN = 12

_LOG = pytest.StashKey[Path]()
_BEFORE = pytest.StashKey[str | None]()


def by_module(lines: Iterable[str]) -> list[tuple[str, float, int]]:
    """``(module, seconds, tests)`` for the log's lines, the costliest module first."""
    totals: dict[str, tuple[float, int]] = {}
    for line in lines:
        if not line.strip():
            continue
        entry = json.loads(line)
        seconds, tests = totals.get(entry["module"], (0.0, 0))
        totals[entry["module"]] = (seconds + float(entry["seconds"]), tests + 1)
    return sorted(((m, s, n) for m, (s, n) in totals.items()), key=lambda row: (-row[1], row[0]))


def pytest_configure(config: pytest.Config) -> None:
    # a worker inherits its controller's log; a run of the suite is counted by its starter
    if hasattr(config, "workerinput") or _is_suite_run(config):
        return
    handle, path = tempfile.mkstemp(prefix="module-costs-", suffix=".jsonl")
    os.close(handle)
    config.stash[_BEFORE] = os.environ.get(COST_LOG)  # a session started inside a test's
    os.environ[COST_LOG] = path
    config.stash[_LOG] = Path(path)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> object:
    # a run of the suite inside a test's process counts with that test
    log = None if _is_suite_run(item.config) else os.environ.get(COST_LOG)
    before = _process_seconds()
    try:
        return (yield)
    finally:
        if log and Path(log).exists():
            entry = {"module": item.nodeid.split("::", 1)[0],
                     "seconds": round(_process_seconds() - before, 3)}
            with open(log, "a", encoding="utf-8") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX)
                handle.write(json.dumps(entry) + "\n")


_ROWS = pytest.StashKey[list[tuple[str, float, int]]]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.stash.get(_LOG, None)
    if path is None:
        return
    try:
        session.config.stash[_ROWS] = by_module(path.read_text(encoding="utf-8").splitlines())
    finally:
        path.unlink(missing_ok=True)
        before = session.config.stash.get(_BEFORE, None)
        if before is None:
            os.environ.pop(COST_LOG, None)
        else:
            os.environ[COST_LOG] = before


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    rows = terminalreporter.config.stash.get(_ROWS, [])
    if not rows:
        return
    terminalreporter.write_line(f"tests/session_costs.py: {sum(s for _, s, _ in rows):.0f} "
                                f"process-s in {sum(n for _, _, n in rows)} tests of "
                                f"{len(rows)} modules")
    for module, seconds, tests in rows[:_SHOWN]:
        terminalreporter.write_line(f"tests/session_costs.py: {seconds:7.1f} process-s in "
                                    f"{tests:4d} test(s) of {module}")
