"""Fails a session of the repository's tests that starts the same run of the suite twice.

The controller of a session (the pytest-xdist controller, or the one process of a serial
session) names a log in the environment before its workers start, with the environment it
started in beside it. Every run of the suite that a test starts, in a process of its own
(``python -m pytest --pyargs conformance.suite ...`` through ``tests.quality.cli``, ``python -m
conformance run``, ``conformance.certify()``, whatever started it), loads this plugin through
the repository's conftest.py and, being a run of the suite, notes itself in that log: its
command line with pytest's temporary folders written ``<tmp>``, what the files of its
``--impl-path`` folders hold, the folder it runs in, the environment variables its starter
added or changed, and the test that was running when it was started. When the session ends,
the controller reads the log; a run noted twice is one the session paid for twice (two workers
starting one module's pool, two tests asking for one run without ``shared_run``), and the
session exits non-zero with one line per repeat naming who asked. A run that repeats another on
purpose (the same seed twice, to show it gives the same verdicts) says so in ``AGAIN`` and is
not counted. Each run also notes, when it ends, the process time it and its children used; the
controller prints the session's total by the module that asked, so a slower session says where.

A run whose starter dropped the log's variable from its environment (a session started from a
test, tests/test_suite_runs.py) is not noted there; a session that loads this plugin keeps a
log of its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import resource
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

#: The environment variable naming the session's log (one JSON object a line).
RUN_LOG = "TESTS_SUITE_RUN_LOG"
#: Set for a run that repeats another on purpose: why.
AGAIN = "TESTS_SUITE_RUN_AGAIN"
#: The test running in the process that started the run (set by each worker around each test).
ASKER = "TESTS_SUITE_RUN_ASKER"
#: Marks every process of one run that tests.quality.launch started (a value of its own each).
LAUNCHED = "TESTS_LAUNCHED_RUN"
#: How a temporary folder is written in a run's key.
TMP = "<tmp>"
_OWN = (RUN_LOG, AGAIN, ASKER, LAUNCHED)
#: How many modules the session's summary of run costs names.
_SHOWN_COSTS = 12


def _plain(value: str) -> str:
    """``value`` written TMP where it is a folder of pytest's temporary files (a path of this
    session's temporary files differs between two asks of the same run); other paths, the
    repository's among them wherever it is checked out, stay as they are."""
    roots = {os.path.join(base, "pytest-of-")
             for base in (tempfile.gettempdir(), os.path.realpath(tempfile.gettempdir()))}
    return TMP if any(value.startswith(root) for root in roots) else value


def _contents(folder: str) -> str:
    """A digest of the files below ``folder`` (an implementation a test wrote and may edit)."""
    digest = hashlib.sha256()
    root = Path(folder)
    for path in sorted(p for p in root.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]


def key_of(command: Sequence[str], cwd: Path | str, env_extra: Mapping[str, str]) -> str:
    """What makes two runs the same run: the command, what its ``--impl-path`` folders hold,
    the folder it runs in and the added environment, temporary folders left out."""
    parts = [str(part) for part in command]
    paths = [parts[i + 1] for i, part in enumerate(parts[:-1]) if part == "--impl-path"]
    paths += [part.split("=", 1)[1] for part in parts if part.startswith("--impl-path=")]
    return json.dumps({"command": [_plain(part) for part in parts],
                       "impl_path": [_contents(p) if Path(p).is_dir() else p for p in paths],
                       "cwd": _plain(str(cwd)),
                       "env": {k: _plain(v) for k, v in sorted(env_extra.items())}},
                      sort_keys=True)


def added(base: Mapping[str, str], now: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``now`` that ``base`` lacks or holds otherwise (pytest's and this
    plugin's own left out)."""
    return {k: v for k, v in now.items()
            if base.get(k) != v and not k.startswith("PYTEST_") and k not in _OWN}


def note(log: Path, command: Sequence[str], cwd: Path | str, env_extra: Mapping[str, str],
         asker: str, again: str | None = None) -> None:
    """Write a run to ``log``."""
    _append(log, {"key": key_of(command, cwd, env_extra), "again": again, "test": asker})


def note_cost(log: Path, asker: str, seconds: float) -> None:
    """Write to ``log`` the process time (in ``seconds``) of a run that ``asker`` started."""
    _append(log, {"cost": round(seconds, 2), "test": asker})


def _append(log: Path, entry: dict[str, object]) -> None:
    with open(log, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(json.dumps(entry) + "\n")


def costs(lines: Iterable[str]) -> list[tuple[str, float, int]]:
    """The process time of the runs the log notes, by the test module that asked for them:
    ``(module, seconds, runs)``, the costliest first."""
    by_module: dict[str, tuple[float, int]] = {}
    for line in lines:
        entry = json.loads(line) if line.strip() else {}
        if "cost" in entry:
            module = str(entry["test"]).split("::", 1)[0]
            seconds, runs = by_module.get(module, (0.0, 0))
            by_module[module] = (seconds + float(entry["cost"]), runs + 1)
    return sorted(((m, s, n) for m, (s, n) in by_module.items()), key=lambda row: -row[1])


def _process_seconds() -> float:
    """The CPU time of this process and of the children it has waited for (its sandboxes)."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(
        resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def repeats(lines: Iterable[str]) -> list[str]:
    """One line for each run the log notes more than once (``again`` runs not counted)."""
    seen: dict[str, list[str]] = {}
    for line in lines:
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("again") or "cost" in entry:
            continue
        seen.setdefault(entry["key"], []).append(entry["test"])
    found = []
    for key, askers in seen.items():
        if len(askers) > 1:
            command = " ".join(json.loads(key)["command"])
            found.append(f"started {len(askers)} times: {command}; asked by {', '.join(askers)}")
    return found


def _is_suite_run(config: pytest.Config) -> bool:
    return any("conformance.suite" in str(arg) for arg in config.invocation_params.args)


_LOG = pytest.StashKey[Path]()
#: In a run of the suite: the log it noted itself in, and the test that started it.
_NOTED = pytest.StashKey[tuple[Path, str]]()


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # a worker: it inherited its controller's log
    if _is_suite_run(config):
        log = os.environ.get(RUN_LOG)
        if log and Path(log).exists():
            base = json.loads(Path(log + ".env").read_text(encoding="utf-8"))
            asker = os.environ.get(ASKER, "?")
            note(Path(log), config.invocation_params.args, config.invocation_params.dir,
                 added(base, os.environ), asker, os.environ.get(AGAIN))
            config.stash[_NOTED] = (Path(log), asker)
        return
    handle, path = tempfile.mkstemp(prefix="suite-runs-", suffix=".jsonl")
    os.close(handle)
    os.environ[RUN_LOG] = path
    Path(path + ".env").write_text(json.dumps(dict(os.environ)), encoding="utf-8")
    config.stash[_LOG] = Path(path)


def pytest_unconfigure(config: pytest.Config) -> None:
    noted = config.stash.get(_NOTED, None)
    if noted is not None and noted[0].exists():  # a run of the suite, ending (workers waited for)
        note_cost(noted[0], noted[1], _process_seconds())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> object:
    """Name the running test for the runs it starts (threads its fixtures start included)."""
    os.environ[ASKER] = item.nodeid
    return (yield)


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.stash.get(_LOG, None)
    if path is None:
        return
    try:
        lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    finally:
        path.unlink(missing_ok=True)
        Path(str(path) + ".env").unlink(missing_ok=True)
        os.environ.pop(RUN_LOG, None)
    found = repeats(lines)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and lines:
        started = sum("cost" not in json.loads(line) for line in lines)
        reporter.write_line(f"tests/suite_runs.py: {started} run(s) of the suite started, "
                            f"{len(found)} of them more than once")
    if reporter is not None:
        for module, seconds, runs in costs(lines)[:_SHOWN_COSTS]:
            reporter.write_line(f"tests/suite_runs.py: {seconds:7.0f} process-s in {runs:3d} "
                                f"run(s) asked by {module}")
    for line in found:
        if reporter is not None:
            reporter.write_line(f"tests/suite_runs.py: a run of the suite was {line}", red=True)
    if found:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
