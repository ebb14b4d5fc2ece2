"""conformance.quick_check(impl, impl_path=...): an implementation that is not installed, in a
folder outside sys.path, is checked from there as ``--impl-path`` makes the suite do, and the
caller's sys.path is as it was afterwards."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance import quick_check
from conformance.adapter import AdapterError

#: A package that is reference_impl under another name (its own module, reference_impl's names).
INIT = textwrap.dedent('''
    from reference_impl import *  # noqa: F403
    from reference_impl import _C, overrides  # noqa: F401
    __version__ = "0.0.1"
''')


@pytest.fixture
def package(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[tuple[str, Path]]:
    """A package in a folder of its own, named after the test, not importable from sys.path."""
    name = f"tfm_quick_{request.node.name.removeprefix('test_')[:40]}"
    folder = tmp_path / "src"
    (folder / name).mkdir(parents=True)
    (folder / name / "__init__.py").write_text(INIT, encoding="utf-8")
    assert str(folder) not in sys.path
    yield name, folder
    for module in [m for m in sys.modules if m == name or m.startswith(f"{name}.")]:
        del sys.modules[module]


def test_a_package_outside_sys_path_is_checked_from_its_folder(package: tuple[str, Path]) -> None:
    name, folder = package
    before = list(sys.path)
    assert quick_check(name, impl_path=folder) == []
    assert sys.path == before
    assert sys.modules[name].__file__ == str(folder.resolve() / name / "__init__.py")


def test_without_impl_path_it_is_not_found(package: tuple[str, Path]) -> None:
    name, _ = package
    with pytest.raises(AdapterError, match=name):
        quick_check(name)


def test_several_folders_and_a_relative_one(package: tuple[str, Path], tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    name, folder = package
    (tmp_path / "empty").mkdir()
    monkeypatch.chdir(folder.parent)
    before = list(sys.path)
    assert quick_check(f"{name}", impl_path=[tmp_path / "empty", "src"]) == []
    assert sys.path == before


def test_a_folder_that_does_not_exist_is_refused_before_anything_runs(tmp_path: Path) -> None:
    before = list(sys.path)
    with pytest.raises(AdapterError, match=r"impl_path: '.*nowhere' is not a directory"):
        quick_check("reference_impl", impl_path=[tmp_path, tmp_path / "nowhere"])
    assert sys.path == before


def test_impl_path_is_keyword_only() -> None:
    with pytest.raises(TypeError):
        quick_check("reference_impl", ".")  # type: ignore[misc]
