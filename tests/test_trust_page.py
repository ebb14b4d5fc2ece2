"""docs/trust.rst backs each promise with a named test: every test it names exists, and every
test of the hostile battery's modules (tests/quality/test_trust_*.py) is named there, so a
promise cannot lose its test, nor a new test its promise, without this failing."""

from __future__ import annotations

import ast
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PAGE = REPO / "docs" / "trust.rst"
NAMED = re.compile(r"``(tests/[\w/]+\.py)::(test_\w+)``")


def _tests_of(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")}


def _named() -> set[tuple[str, str]]:
    return set(NAMED.findall(PAGE.read_text(encoding="utf-8")))


def test_every_test_the_page_names_exists() -> None:
    named = _named()
    assert len(named) >= 20, sorted(named)
    missing = [f"{file}::{name}" for file, name in sorted(named)
               if not (REPO / file).is_file() or name not in _tests_of(REPO / file)]
    assert not missing, f"docs/trust.rst names tests that do not exist: {missing}"


def test_every_test_of_the_hostile_battery_is_named() -> None:
    named = _named()
    modules = sorted((REPO / "tests" / "quality").glob("test_trust_*.py"))
    assert len(modules) >= 5, modules
    unnamed = [f"{path.relative_to(REPO)}::{name}" for path in modules
               for name in sorted(_tests_of(path))
               if (str(path.relative_to(REPO)), name) not in named]
    assert not unnamed, f"tests of the hostile battery that docs/trust.rst does not name: {unnamed}"
