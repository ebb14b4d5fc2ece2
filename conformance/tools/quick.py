"""A quick check without the suite: the scenarios that ship with the specification, run on an
implementation in this process and compared with the model's predictions."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import spec
from spec.model import load_scenario, predict

from ..judge.compare import differences
from ..target.adapter import AdapterError, load_adapter
from ..target.runner import execute

__all__ = ["quick_check", "shipped_scenarios"]


def shipped_scenarios() -> list[Path]:
    """The scenario files installed with the ``spec`` package (``spec/scenarios/*.toml``)."""
    return sorted((Path(spec.__file__).parent / "scenarios").glob("*.toml"))


def quick_check(impl: str, *,
                impl_path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None = None,
                ) -> list[str]:
    """Run every shipped scenario on ``impl`` (``MODULE`` or ``pkg.mod:Adapter``) in this
    process: one line per scenario where it does not do what the model predicts (empty: none).

    ``impl_path`` (a folder, or several) is where to import an implementation that is not
    installed from, as ``--impl-path`` is: each folder not on ``sys.path`` yet goes first on it
    while the check runs (a relative one read from the current folder) and leaves it
    afterwards; a folder that does not exist raises :class:`~conformance.adapter.AdapterError`
    before anything runs.

    No sandbox, no time limit and no generated scenarios: a smoke test for an adapter, not a
    certification (that is :func:`conformance.certify`).
    """
    added = _put_first(impl_path)
    try:
        return _check(impl)
    finally:
        for folder in added:
            if folder in sys.path:
                sys.path.remove(folder)


def _put_first(impl_path: str | os.PathLike[str] | Sequence[str | os.PathLike[str]] | None,
               ) -> list[str]:
    """Put the folders of ``impl_path`` first on ``sys.path``; those it was not on already."""
    if impl_path is None:
        return []
    given = [impl_path] if isinstance(impl_path, (str, os.PathLike)) else list(impl_path)
    folders = [Path(p).resolve() for p in given]
    for given_path, folder in zip(given, folders, strict=True):
        if not folder.is_dir():
            raise AdapterError(f"impl_path: {os.fspath(given_path)!r} is not a directory")
    added = [str(f) for f in dict.fromkeys(folders) if str(f) not in sys.path]
    sys.path[:0] = added
    return added


def _check(impl: str) -> list[str]:
    adapter = load_adapter(impl)
    found: list[str] = []
    for path in shipped_scenarios():
        scenario = load_scenario(path)
        observed, naming = execute(scenario, adapter)
        diverging = differences(predict(scenario), observed, naming)
        leaked = adapter.reset()
        if diverging:
            found.append(f"{path.stem}: {diverging[0]}")
        if leaked:
            found.append(f"{path.stem}: left state behind: {'; '.join(map(str, leaked))}")
    if not found and not shipped_scenarios():
        found.append("no scenario ships with this installation of spec")
    return found
