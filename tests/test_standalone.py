"""The product stands alone: nothing it ships or documents points to material a user lacks.

A user who installs the package or reads the repository has the specification, the suite, the
reference implementation, the documentation and the committed certificates, and can look up
public sources (PyTorch's code, pull requests, issues and releases). Working notes kept outside
the repository, and paths of the machine the product was written on, are neither: no file of
the product may name them, and every repository file that evidence names must exist.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

from spec.catalogue import load_catalogue
from spec.texts import load_texts

ROOT = Path(__file__).resolve().parents[1]

#: What the product is: these directories (recursively) and these top-level files.
PRODUCT_DIRS = ("spec", "conformance", "reference_impl", "docs")
PRODUCT_FILES = ("README.md", "pyproject.toml", "tox.ini")

#: Build output and caches are not the product (compiled files embed absolute paths).
SKIPPED_DIRS = frozenset({"_build", "__pycache__"})

#: Names of material outside the product, matched case-insensitively.
FORBIDDEN = (
    "torch-real-behavior",
    "pr75154-semantics",
    "NAMESPACE.md",
    "STYLE.md",
    "../shared",
    "/work/",
)

#: Files that may still mention some of FORBIDDEN, and which of them.
KNOWN_EXCEPTIONS: dict[str, tuple[str, ...]] = {}

#: A path inside this repository, as evidence names it (docs/certificates/torch-2.13.0.json).
REPO_PATH = re.compile(r"(?<![\w./-])(?:docs|conformance|spec)/[\w./-]*\w\.(?:json|toml|rst|py|txt)")


def _skipped(path: Path) -> bool:
    parts = path.relative_to(ROOT).parts
    return any(part in SKIPPED_DIRS or part.startswith(".") or part.endswith(".egg-info")
               for part in parts)


def product_files() -> Iterator[Path]:
    for name in PRODUCT_DIRS:
        for path in sorted((ROOT / name).rglob("*")):
            if path.is_file() and not _skipped(path):
                yield path
    for name in PRODUCT_FILES:
        yield ROOT / name


def mentions(path: Path) -> set[str]:
    content = path.read_bytes().lower()
    return {needle for needle in FORBIDDEN if needle.lower().encode() in content}


def test_the_product_is_scanned() -> None:
    files = {path.relative_to(ROOT).as_posix() for path in product_files()}
    assert {"README.md", "spec/rules/order.toml", "spec/texts.toml", "docs/index.rst",
            "docs/certificates/torch-2.13.0.json", "conformance/plugin.py",
            "reference_impl/__init__.py"} <= files
    assert not any("/_build/" in name or "__pycache__" in name for name in files)
    assert set(KNOWN_EXCEPTIONS) <= files


def test_no_file_of_the_product_points_outside_it() -> None:
    found = {}
    for path in product_files():
        name = path.relative_to(ROOT).as_posix()
        bad = mentions(path) - set(KNOWN_EXCEPTIONS.get(name, ()))
        if bad:
            found[name] = sorted(bad)
    assert not found, f"files of the product name material a user does not have: {found}"


def test_known_exceptions_are_still_needed() -> None:
    # Once a file is clean its exception must go, so that it cannot regress unnoticed. (One test
    # over the whole table: with the table empty, as now, it checks nothing is left in it and is
    # not reported as skipped.)
    stale = sorted(name for name, allowed in KNOWN_EXCEPTIONS.items()
                   if not mentions(ROOT / name) & set(allowed))
    assert not stale, f"{stale} no longer mention what KNOWN_EXCEPTIONS allows: remove them"


def test_repository_files_named_by_evidence_exist() -> None:
    evidence = [(rule.id, e) for rule in load_catalogue() for e in rule.evidence]
    evidence += [(f"texts.toml {kind.name}", entry.evidence)
                 for kind in load_texts().kinds.values() for entry in kind.entries]
    named = [(where, path) for where, e in evidence for path in REPO_PATH.findall(f"{e.ref} {e.note}")]
    assert any(path.startswith("docs/certificates/") for _, path in named)
    missing = [(where, path) for where, path in named if not (ROOT / path).is_file()]
    assert not missing, f"evidence names files the repository does not have: {missing}"
