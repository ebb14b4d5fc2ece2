"""Hostile (evid): a pytest plugin (``-p tests.hostile.evid_fill_disk``) that fills the disk of
the reports folder when the tests are done, before pytest writes its JUnit file.

EVID_FILL=real writes the file EVID_FILLER until the file system is full (a tiny tmpfs);
EVID_FILL=simulate (where no file system can be mounted) makes every write that pytest's JUnit
plugin and conformance.session.reportsdir make fail with ENOSPC after half of it is written. Either way
the run must end with one line, a non-zero status, and no half-written file.
"""

from __future__ import annotations

import builtins
import errno
import os
from typing import Any

import pytest


class _HalfWriter:
    """A text file that writes half of what it is given, then fails: the disk is full."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def write(self, text: str) -> int:
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)

    def __enter__(self) -> _HalfWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()


def _full_open(file: Any, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
    handle = builtins.open(file, mode, *args, **kwargs)  # noqa: SIM115 (the caller closes it)
    return _HalfWriter(handle) if "w" in mode else handle


def _fill(path: str) -> None:
    with builtins.open(path, "wb", buffering=0) as handle:
        for size in (1 << 20, 1 << 12, 1):
            try:
                while True:
                    handle.write(b"\0" * size)
            except OSError as exc:
                if exc.errno != errno.ENOSPC:
                    raise


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session) -> None:
    if os.environ.get("EVID_FILL") == "real":
        _fill(os.environ["EVID_FILLER"])
    else:
        import _pytest.junitxml

        import conformance.session.reportsdir

        _pytest.junitxml.open = _full_open  # type: ignore[attr-defined]
        conformance.session.reportsdir.open = _full_open  # type: ignore[attr-defined]
