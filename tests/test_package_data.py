"""The wheel ships every data file of the packages: the docs name them as shipped (the adapter
page runs the scenarios of ``spec/scenarios`` from the installed ``spec``; the expected-failures
files of torch are passed to ``--expected-failures``)."""

from __future__ import annotations

import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_DATA: dict[str, list[str]] = tomllib.loads(
    (ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["package-data"]


@pytest.mark.parametrize("package", ["spec", "conformance", "reference_impl"])
def test_every_data_file_of_a_package_is_package_data(package: str) -> None:
    base = ROOT / package
    data = [p.relative_to(base).as_posix() for p in sorted(base.rglob("*"))
            if p.is_file() and p.suffix in (".toml", ".json", ".typed")
            and "__pycache__" not in p.parts]
    assert data or package == "reference_impl"
    patterns = PACKAGE_DATA.get(package, [])
    unshipped = [name for name in data if not any(fnmatch(name, pat) for pat in patterns)]
    assert not unshipped, f"{package}: not in the wheel: {unshipped}"


def test_the_scenarios_the_adapter_page_runs_are_shipped() -> None:
    assert any(fnmatch("scenarios/mode_stack.toml", pat) for pat in PACKAGE_DATA["spec"])
    assert (ROOT / "spec" / "scenarios" / "mode_stack.toml").is_file()
