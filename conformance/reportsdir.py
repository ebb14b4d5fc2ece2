"""The reports folder holds one run's files: they are staged together, then put in place."""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: The files a run writes, in the order they are put in place.
FILES = ("junit.xml", "certificate.json", "badge.json")


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
