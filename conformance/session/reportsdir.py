"""The reports folder holds one run's files: they are staged together, then put in place.

An earlier run's files are removed when a run starts (:func:`clear_previous`), so a run that is
killed leaves no earlier pass behind; the folder is checked before the run for writability and
free space (:func:`unusable`).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: The files a run writes, in the order they are put in place.
FILES = ("junit.xml", "certificate.json", "badge.json")
#: The JUnit file pytest writes during the run, before it is put in place as junit.xml.
JUNIT_TMP = ".junit.xml.tmp"
#: Free space the reports folder needs before a run starts (a certificate is well under 1 MB).
MIN_FREE_BYTES = 8 * 1024 * 1024
_UNSET = re.compile(r"\$(\w+|\{[^}]*\})")


def expand(given: str) -> str:
    """``~`` and ``$VAR`` (``${VAR}``) expanded, as pytest expands ``--junitxml``, so that the
    three files go to one folder; a variable that is not set raises ValueError."""
    expanded = os.path.expanduser(os.path.expandvars(given))
    left = _UNSET.search(expanded)
    if left is not None:
        raise ValueError(f"the variable {left.group(0)} is not set")
    return expanded


def clear_previous(folder: Path) -> list[Path]:
    """Remove an earlier run's files from ``folder`` (and what a killed run left: its JUnit
    file in the making, staging folders). Called once the run has started: a run killed at any
    later point leaves no earlier certificate in place."""
    removed: list[Path] = []
    for name in (*FILES, JUNIT_TMP):
        path = folder / name
        with contextlib.suppress(FileNotFoundError, NotADirectoryError):
            path.unlink()
            removed.append(path)
    with contextlib.suppress(OSError):
        for leftover in folder.glob(".staging-*"):
            shutil.rmtree(leftover, ignore_errors=True)
    return removed


def unusable(folder: Path) -> str | None:
    """Why the run could not write its reports to ``folder`` (None: it can).

    A file is made and removed in the folder, or in the nearest folder above it that exists
    (where the run would create it): permissions, a read-only file system, or anything else
    that refuses a write show here, for root too. Then the free space is checked.
    """
    place = folder
    while not place.exists() and place != place.parent:
        place = place.parent
    try:
        fd, probe = tempfile.mkstemp(dir=place, prefix=".tfmode-probe-")
        try:
            os.write(fd, b"x")
        finally:
            os.close(fd)
            os.unlink(probe)
    except OSError as exc:
        return f"cannot write in {str(place)!r}: {exc.strerror or exc}"
    try:
        free = shutil.disk_usage(place).free
    except OSError:
        return None
    if free < MIN_FREE_BYTES:
        return (f"only {free // 1024} kB free in {str(place)!r} (the reports need at least "
                f"{MIN_FREE_BYTES // (1024 * 1024)} MB)")
    return None


def write_run(folder: Path, texts: Mapping[str, str], junit: Path | None) -> list[Path]:
    """Put this run's files in ``folder``; a file of an earlier run that this run has not is
    removed, so the folder never mixes two runs.

    Everything is first written to a staging folder inside ``folder`` (same file system), then
    moved in place file by file with ``os.replace``; an error leaves no staging folder behind.
    """
    folder.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(dir=folder, prefix=".staging-"))
    try:
        staged: dict[str, Path] = {}
        if junit is not None and junit.exists():
            staged["junit.xml"] = staging / "junit.xml"
            os.replace(junit, staged["junit.xml"])
        for name, text in texts.items():
            path = staging / name
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())
            staged[name] = path
        written: list[Path] = []
        for name in FILES:
            final = folder / name
            if name in staged:
                os.chmod(staged[name], 0o644)
                os.replace(staged[name], final)
                written.append(final)
            else:
                with contextlib.suppress(FileNotFoundError):
                    final.unlink()
        return written
    finally:
        shutil.rmtree(staging, ignore_errors=True)
