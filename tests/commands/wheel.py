"""The shown commands run from the installed wheel, in a folder outside the repository.

The wheel is built from a copy of the sources once per session (every pytest-xdist worker of
the session shares it) and installed with pip into a target folder, as ``pip install`` would
install it (byte-code compiled, nothing of the repository beside it). Each registry entry says
with ``wheel`` how it fares there (see registry.toml's header):

* ``run``: it runs as in the checkout and does what the entry states, with ``wheel_shorter``
  added to its ``before`` commands that run the suite, or else to its command;
* ``refuses``: it exits non-zero with exactly one line on stderr, nothing on stdout and no
  traceback (a command that needs a checkout, or names a file of one);
* ``checkout``: a command of the repository's, not of the installed package (``wheel_reason``).

An entry run ``after`` another runs after it from the wheel too. Entries whose runs from the
wheel are the same command (the same placeholders, files and set-up) are run once and each is
judged on that run.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .exercise import exercise_run, expect, judge
from .registry import Entry, RegistryError
from .workspace import REPO, Workspace

_SKIP = shutil.ignore_patterns(".git", ".tox", "build", "dist", "*.egg-info", "_build", "reports",
                               "__pycache__", ".hypothesis", ".mypy_cache", ".ruff_cache",
                               ".pytest_cache")
#: A command that runs the suite: ``wheel_shorter`` is added to it.
SUITE_RUN = re.compile(r"^(?:python -m )?pytest\s.*--pyargs conformance\.suite|"
                       r"^python -m conformance (?:run|certify)(?:\s|$)")


def session_root(factory: pytest.TempPathFactory) -> Path:
    """The folder of this session's temporary files, one for every pytest-xdist worker of it."""
    base = factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return base.parent if worker and base.name in (worker, f"popen-{worker}") else base


def installed_wheel(factory: pytest.TempPathFactory) -> Path:
    """The folder the wheel is installed in, built and installed by the first asker of the
    session (the others wait on its lock)."""
    folder = session_root(factory) / "wheel"
    folder.mkdir(exist_ok=True)
    site = folder / "site"
    with open(folder / "lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (folder / "installed").exists():
            shutil.rmtree(folder / "source", ignore_errors=True)
            shutil.rmtree(site, ignore_errors=True)
            shutil.copytree(REPO, folder / "source", ignore=_SKIP)
            build = ("import sys; from setuptools import build_meta; "
                     "print(build_meta.build_wheel(sys.argv[1]))")
            subprocess.run([sys.executable, "-c", build, str(folder / "dist")],
                           cwd=folder / "source", check=True, capture_output=True, text=True,
                           timeout=300)
            (wheel,) = (folder / "dist").glob("*.whl")
            subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
                            "--no-index", "--disable-pip-version-check", "--target", str(site),
                            str(wheel)], check=True, capture_output=True, text=True, timeout=300)
            (folder / "installed").write_text(str(wheel), encoding="utf-8")
    return site


def from_wheel(entry: Entry) -> Entry:
    """The entry as it is run from the wheel: ``wheel_shorter`` added to its ``before`` commands
    that run the suite, or else to its command (in place of ``shorter``)."""
    if not entry.wheel_shorter:
        return entry
    if any(SUITE_RUN.match(c) for c in entry.before):
        return dataclasses.replace(entry, before=tuple(
            f"{c} {entry.wheel_shorter}" if SUITE_RUN.match(c) else c for c in entry.before))
    return dataclasses.replace(entry, shorter=entry.wheel_shorter)


def _run_key(entry: Entry) -> str:
    e = from_wheel(entry)
    return repr((e.kind, e.command, e.shorter, sorted(e.files.items()), e.before))


def wheel_groups(entries: dict[str, Entry]) -> list[list[Entry]]:
    """What the wheel's tests run, each list in one folder: an entry and the entries run after
    it; or entries that make the same run (none run after them), judged on one run of it."""
    heads = [e for e in entries.values() if e.wheel in ("run", "refuses")]
    groups: list[list[Entry]] = []
    alike: dict[str, list[Entry]] = {}
    for head in heads:
        chain, i = [head], 0
        while i < len(chain):
            chain += [e for e in entries.values() if e.after == chain[i].shown]
            i += 1
        if head.wheel == "refuses" and len(chain) > 1:
            raise RegistryError(f"{head.label()!r} refuses from the wheel: nothing runs after it")
        if len(chain) > 1 or head.wheel != "run" or head.kind != "run":
            groups.append(chain)
        elif _run_key(head) in alike:
            alike[_run_key(head)].append(head)
        else:
            alike[_run_key(head)] = [head]
            groups.append(alike[_run_key(head)])
    return groups


def refusal_problems(done_status: int | None, stdout: str, stderr: str) -> list[str]:
    """Why a run is no refusal in one line: exit status non-zero, one line on stderr, nothing on
    stdout, no traceback."""
    problems = []
    if done_status in (0, None):
        problems.append(f"exit status {done_status}, not a refusal")
    lines = stderr.strip().splitlines()
    if len(lines) != 1:
        problems.append(f"{len(lines)} lines on stderr, not one")
    if "Traceback" in stderr + stdout:
        problems.append("a traceback")
    if stdout.strip():
        problems.append("output on stdout")
    return problems


def _refuses(entry: Entry, ws: Workspace) -> list[str]:
    command = entry.check if entry.kind == "ci" and entry.check else entry.command
    if entry.kind == "named":
        command += " --help"
    done = ws.shell(command, entry.timeout, split=True)
    problems = refusal_problems(done.status, done.output, done.errors or "")
    return [f"{entry.label()}: from the wheel, {'; '.join(problems)}:\n{done.describe()}"] \
        if problems else []


def exercise_from_wheel(group: list[Entry], ws: Workspace) -> list[str]:
    """Run a group of :func:`wheel_groups` in ``ws`` (a workspace of the installed wheel)."""
    head = group[0]
    if head.wheel == "refuses":
        return _refuses(head, ws)
    if head.kind == "ci":
        assert head.check is not None
        return [f"{head.label()}: {p}" for p in expect(head, ws.shell(head.check, head.timeout))]
    problems, done = exercise_run(from_wheel(head), ws, collect=False)
    if len(group) > 1 and group[1].after is None:  # entries that make the same run
        assert done is not None or problems
        if done is not None:
            problems += [f"{e.label()}: {p}" for e in group[1:] for p in judge(from_wheel(e), ws, done)]
        return problems
    for entry in group[1:]:
        problems += exercise_run(from_wheel(entry), ws, collect=False)[0]
    return problems
