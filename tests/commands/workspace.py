"""A fresh copy of the checkout to run shown commands in, as a user's shell would run them.

The copy leaves out what a run or a build leaves behind (``reports/``, ``docs/_build``,
``.hypothesis``, tools' caches) but keeps Python's compiled files, and commands write theirs
(whatever ``PYTHONDONTWRITEBYTECODE`` the tests were given: without them each process of a run
compiles the suite again, about 1 CPU-s of a 9 CPU-s run). Commands see a clean environment:
``PATH`` with ``python``, ``python3`` and ``pytest`` bound to the Python running the tests
(and a ``tox`` that refuses to run: a tox command is exercised through what tox would run,
never by creating a tox env), ``PYTHONPATH`` naming only the copy (it stands for the
installed package, so the code under test is the copy's), and none of the ``CI``,
``TFMODE_*`` or ``HYPOTHESIS_*`` settings of the calling process, so every run uses the
suite's own defaults.

``Workspace(parent, site=SITE)`` is a user's folder outside the repository instead, for the
package installed from the wheel into ``SITE``: the folder starts empty, and ``PYTHONPATH``
names ``SITE`` and, after it, a folder of the user's own packages: a copy of
``tests/mutants`` (the broken implementations the docs' examples certify, standing for a
user's own), nothing else of the repository.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

#: (``__pycache__`` is copied: its files are checked against their sources' times, which the
#: copy keeps, and each command's processes compile nothing their checkout compiled already;
#: not the ``*.pyc.NNN`` file a Python process writes before renaming it into place: under
#: ``tox p`` another env's processes compile into the checkout while it is copied, and such a
#: file listed a moment ago is gone when its turn comes)
_LEFT_OUT = shutil.ignore_patterns(
    ".git", ".tox", "*.egg-info", "build", "dist", "reports", "_build",
    ".hypothesis", ".mypy_cache", ".ruff_cache", ".pytest_cache", "*.pyc.*")
_KEPT = ("HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "USER", "LOGNAME", "SYSTEMROOT")
#: The programs a tox env's commands name, run with this Python (``python -m MODULE``).
MODULES = {"pytest": "pytest", "sphinx-build": "sphinx", "mypy": "mypy", "ruff": "ruff"}


@dataclass(frozen=True)
class Done:
    """One finished command: its exit status (None: stopped at its time limit) and output."""

    command: str
    status: int | None
    output: str
    seconds: float
    #: what the command wrote to stderr, where it was kept apart (``split``); else in ``output``
    errors: str | None = None

    def describe(self, lines: int = 30) -> str:
        tail = "\n".join(self.output.rstrip().splitlines()[-lines:])
        if self.errors:
            tail += "\n[stderr]\n" + "\n".join(self.errors.rstrip().splitlines()[-lines:])
        status = "timed out" if self.status is None else f"exit status {self.status}"
        return f"$ {self.command}\n[{status} after {self.seconds:.0f} s]\n{tail}"


def python_argv(argv: Sequence[str]) -> list[str]:
    """A tox command's arguments with its program bound to this Python."""
    program, *rest = argv
    if program in ("python", "python3"):
        return [sys.executable, *rest]
    if program in MODULES:
        return [sys.executable, "-m", MODULES[program], *rest]
    raise ValueError(f"no way to run {program!r} with this Python")


class Workspace:
    """A copy of the repository at ``root`` (inside ``parent``) and the environment to run in;
    with ``site``, an empty folder there and the package installed in ``site``."""

    def __init__(self, parent: Path, site: Path | None = None) -> None:
        if site is None:
            self.root = parent / "checkout"
            shutil.copytree(REPO, self.root, ignore=_LEFT_OUT, symlinks=True)
            python_path = str(self.root)
        else:
            self.root = parent / "work"
            self.root.mkdir(parents=True)
            own = parent / "own-packages"
            shutil.copytree(REPO / "tests" / "mutants", own / "tests" / "mutants", ignore=_LEFT_OUT)
            python_path = f"{site}{os.pathsep}{own}"
        bin_dir = parent / "bin"
        bin_dir.mkdir()
        shims = {"python": "", "python3": "", "pytest": " -m pytest"}
        for name, module in shims.items():
            (bin_dir / name).write_text(f'#!/bin/sh\nexec "{sys.executable}"{module} "$@"\n')
        (bin_dir / "tox").write_text(
            "#!/bin/sh\necho 'tests/test_commands.py runs what tox would run, never tox' >&2\nexit 97\n")
        for shim in bin_dir.iterdir():
            shim.chmod(0o755)
        self.env = {name: os.environ[name] for name in _KEPT if name in os.environ}
        self.env.update(PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}",
                        PYTHONPATH=python_path, COLUMNS="100")

    def shell(self, command: str, timeout: float, env: Mapping[str, str] | None = None,
              split: bool = False) -> Done:
        """Run ``command`` with bash in the copy's root, as a user types it; with ``split``,
        its stderr is kept apart (``Done.errors``)."""
        return self._run(["bash", "-c", command], command, timeout, env, split)

    def argv(self, argv: Sequence[str], timeout: float, env: Mapping[str, str] | None = None) -> Done:
        """Run one of a tox env's commands (already bound to this Python) in the copy's root."""
        shown = " ".join(["python" if argv[0] == sys.executable else argv[0], *argv[1:]])
        return self._run(list(argv), shown, timeout, env)

    def _run(self, argv: list[str], shown: str, timeout: float,
             env: Mapping[str, str] | None, split: bool = False) -> Done:
        start = time.monotonic()
        process = subprocess.Popen(argv, cwd=self.root, env={**self.env, **(env or {})},
                                   stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE if split else subprocess.STDOUT,
                                   text=True, errors="replace", start_new_session=True)
        try:
            output, errors = process.communicate(timeout=timeout)
            status: int | None = process.returncode
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            output, errors = process.communicate()
            status = None
        return Done(shown, status, output, time.monotonic() - start, errors if split else None)
