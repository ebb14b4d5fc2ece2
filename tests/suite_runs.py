"""Fails a session of the repository's tests that starts the same run of the suite twice.

Every run of the suite's command line that the tests start through ``tests.quality.cli``
(``run_suite``, and so ``shared_run`` and the real-mutant harness) notes what it runs in the
session's log: the command with its temporary folders written ``<tmp>``, what the files of its
``--impl-path`` folders hold, the folder it runs in, the environment it adds, and the test that
asked. When the session ends, the controller (the
pytest-xdist controller, or the one process of a serial session) reads the log; a run noted twice
is a certification the session paid for twice (two workers starting one module's pool, or two
tests asking for one run without ``shared_run``), and the session exits non-zero with one line
per repeat naming the tests that asked. A run that repeats another on purpose (the same seed
twice, to show it gives the same verdicts) says so with ``again=`` and is not counted.

The log is named by ``RUN_LOG`` in the environment, set by the controller before its workers
start (they inherit it); a session started from a test (tests/quality/test_shared_runs.py) is
handed an environment without it and keeps no log unless it loads this plugin itself.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

import pytest

#: The environment variable naming the session's log (one JSON object a line).
RUN_LOG = "TESTS_SUITE_RUN_LOG"
#: How a temporary folder is written in a run's key.
TMP = "<tmp>"


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
    return json.dumps({"command": [_plain(part) for part in parts],
                       "impl_path": [_contents(p) if Path(p).is_dir() else p for p in paths],
                       "cwd": _plain(str(cwd)),
                       "env": {k: _plain(v) for k, v in sorted(env_extra.items())}},
                      sort_keys=True)


def note(command: Sequence[str], cwd: Path | str, env_extra: Mapping[str, str],
         again: str | None = None) -> None:
    """Write the run about to start to the session's log, if the session keeps one."""
    path = os.environ.get(RUN_LOG)
    if not path:
        return
    line = json.dumps({"key": key_of(command, cwd, env_extra), "again": again,
                       "test": os.environ.get("PYTEST_CURRENT_TEST", "?").rsplit(" (", 1)[0],
                       "worker": os.environ.get("PYTEST_XDIST_WORKER", "main")})
    with open(path, "a", encoding="utf-8") as log:
        fcntl.flock(log, fcntl.LOCK_EX)
        log.write(line + "\n")


def repeats(lines: Iterable[str]) -> list[str]:
    """One line for each run the log notes more than once (``again`` runs not counted)."""
    seen: dict[str, list[str]] = {}
    for line in lines:
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("again"):
            continue
        seen.setdefault(entry["key"], []).append(f"{entry['test']} [{entry['worker']}]")
    found = []
    for key, askers in seen.items():
        if len(askers) > 1:
            command = " ".join(json.loads(key)["command"][1:])
            found.append(f"started {len(askers)} times: {command}; asked by {', '.join(askers)}")
    return found


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # a worker: it inherited the controller's log
    handle, path = tempfile.mkstemp(prefix="suite-runs-", suffix=".jsonl")
    os.close(handle)
    os.environ[RUN_LOG] = path
    config.stash[_LOG] = Path(path)


_LOG = pytest.StashKey[Path]()


def pytest_sessionfinish(session: pytest.Session) -> None:
    path = session.config.stash.get(_LOG, None)
    if path is None:
        return
    try:
        found = repeats(path.read_text(encoding="utf-8").splitlines())
    finally:
        path.unlink(missing_ok=True)
        os.environ.pop(RUN_LOG, None)
    if not found:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    for line in found:
        if reporter is not None:
            reporter.write_line(f"tests/suite_runs.py: a run of the suite was {line}", red=True)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
