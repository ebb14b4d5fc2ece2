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
not counted.

A run whose starter dropped the log's variable from its environment (a session started from a
test, tests/test_suite_runs.py) is not noted there; a session that loads this plugin keeps a
log of its own.
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
#: Set for a run that repeats another on purpose: why.
AGAIN = "TESTS_SUITE_RUN_AGAIN"
#: The test running in the process that started the run (set by each worker around each test).
ASKER = "TESTS_SUITE_RUN_ASKER"
#: How a temporary folder is written in a run's key.
TMP = "<tmp>"
_OWN = (RUN_LOG, AGAIN, ASKER)


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
    line = json.dumps({"key": key_of(command, cwd, env_extra), "again": again, "test": asker})
    with open(log, "a", encoding="utf-8") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.write(line + "\n")


def repeats(lines: Iterable[str]) -> list[str]:
    """One line for each run the log notes more than once (``again`` runs not counted)."""
    seen: dict[str, list[str]] = {}
    for line in lines:
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("again"):
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


def pytest_configure(config: pytest.Config) -> None:
    if hasattr(config, "workerinput"):
        return  # a worker: it inherited its controller's log
    if _is_suite_run(config):
        log = os.environ.get(RUN_LOG)
        if log and Path(log).exists():
            base = json.loads(Path(log + ".env").read_text(encoding="utf-8"))
            note(Path(log), config.invocation_params.args, config.invocation_params.dir,
                 added(base, os.environ), os.environ.get(ASKER, "?"), os.environ.get(AGAIN))
        return
    handle, path = tempfile.mkstemp(prefix="suite-runs-", suffix=".jsonl")
    os.close(handle)
    os.environ[RUN_LOG] = path
    Path(path + ".env").write_text(json.dumps(dict(os.environ)), encoding="utf-8")
    config.stash[_LOG] = Path(path)


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
        reporter.write_line(f"tests/suite_runs.py: {len(lines)} run(s) of the suite started, "
                            f"{len(found)} of them more than once")
    for line in found:
        if reporter is not None:
            reporter.write_line(f"tests/suite_runs.py: a run of the suite was {line}", red=True)
    if found:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
