"""What a certificate records of what it was made from: digests of the implementation's files,
of the suite's and of the specification's, of the expected-failures file, and how the run was
invoked, so that ``python -m conformance verify`` can make the run again and compare.

Everything here runs in the suite's own process and never imports the implementation: its
top-level package is located with :func:`importlib.util.find_spec`, which finds a top-level
module without running it, and its files are read as bytes.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.metadata
import importlib.util
import os
import stat
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

from ..version import PACKAGE_DIR

__all__ = ["EVIDENCE_SCHEMA", "file_digest", "gather", "package_evidence", "tree_digest"]

_NULLABLE_DIGEST: Final[dict[str, Any]] = {"type": ["string", "null"],
                                           "pattern": r"^sha256:[0-9a-f]{64}$"}
_STR: Final[dict[str, Any]] = {"type": "string"}
#: Byte-code caches are rewritten by Python at will; they are not part of a package's files.
_SKIPPED_DIRS: Final = frozenset({"__pycache__"})
_SKIPPED_SUFFIXES: Final = (".pyc", ".pyo")


def _files(root: Path) -> Iterable[tuple[str, Path]]:
    """``(relative name, path)`` of every file under ``root`` (``root`` itself if a file)."""
    if root.is_file():
        yield root.name, root
        return
    for folder, dirs, names in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
        for name in sorted(names):
            if not name.endswith(_SKIPPED_SUFFIXES):
                path = Path(folder, name)
                yield path.relative_to(root).as_posix(), path


def _content(path: Path) -> bytes:
    """The sha256 of a regular file's content (a symbolic link to one is followed); for
    anything else (a device, a pipe, a link to a folder) what it is: reading ``/dev/zero``
    or a pipe would never end."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return f"not a regular file: {os.stat(path).st_mode:o}".encode()
        inner = hashlib.sha256()
        with open(path, "rb") as handle:
            for block in iter(lambda: handle.read(1 << 20), b""):
                inner.update(block)
        return inner.digest()
    except OSError as exc:
        return f"unreadable: {exc.strerror}".encode()


def tree_digest(roots: Sequence[Path]) -> tuple[str, int]:
    """One sha256 over the names and contents of every file under ``roots`` (byte-code caches
    left out), and how many files that is. A file that cannot be read counts by its name."""
    digest = hashlib.sha256()
    count = 0
    for index, root in enumerate(roots):
        for name, path in sorted(_files(root)):
            digest.update(f"{index}/{name}".encode("utf-8", "surrogateescape") + b"\0")
            digest.update(_content(path) + b"\x1e")
            count += 1
    return f"sha256:{digest.hexdigest()}", count


def file_digest(path: Path) -> str | None:
    """The sha256 of a regular file (None: it is not one, or cannot be read)."""
    content = _content(path)
    return f"sha256:{content.hex()}" if len(content) == 32 else None


def _roots(name: str) -> list[Path] | None:
    """Where the top-level module ``name`` would be imported from, without importing it."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError, AttributeError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:  # a package (or a namespace package: every part)
        return [Path(p).resolve() for p in spec.submodule_search_locations]
    if spec.origin and Path(spec.origin).is_file():
        return [Path(spec.origin).resolve()]
    return None


@functools.lru_cache(maxsize=4)
def _packages(path: tuple[str, ...]) -> Mapping[str, list[str]]:
    """Top-level package -> the distributions on ``path`` (``sys.path``) that provide it, read
    at most once a run: it reads every installed distribution's list of files (a quarter of a
    second here, more beside torch)."""
    return importlib.metadata.packages_distributions()


def _distribution(name: str, roots: list[Path]) -> dict[str, Any] | None:
    """The installed distribution that holds the files at ``roots``: its name, version and a
    digest of its RECORD (None: the package is not an installed distribution's)."""
    try:
        return _installed(name, roots)
    except Exception:  # broken metadata (of this or another distribution) names none
        return None


#: The distribution this suite is installed as: it provides ``conformance``, ``spec`` and
#: ``reference_impl``, three of the packages a certificate names.
OWN_DISTRIBUTION = "tfmode-conformance"


def _installed(name: str, roots: list[Path]) -> dict[str, Any] | None:
    # First the distributions that most often hold a package (one named like it, and this
    # suite's own): each reads its own list of files only. Then every distribution on the path
    # that says it provides the package (that read covers every installed distribution).
    for guesses in ((name, OWN_DISTRIBUTION), None):
        candidates = guesses if guesses is not None else _packages(tuple(sys.path)).get(name, [])
        for dist_name in dict.fromkeys(candidates):
            found = _holding(dist_name, name, roots)
            if found is not None:
                return found
    return None


def _holding(dist_name: str, name: str, roots: list[Path]) -> dict[str, Any] | None:
    """The distribution ``dist_name`` as the evidence names it, if it holds the files of the
    package ``name`` at ``roots`` (None: it is not installed, or holds none of them)."""
    try:
        dist = importlib.metadata.distribution(dist_name)
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        if entry.parts[:1] not in ((name,), (f"{name}.py",)):
            continue
        located = Path(str(dist.locate_file(entry))).resolve()
        if any(located == root or root in located.parents for root in roots):
            record = dist.read_text("RECORD")
            return {"name": str(dist.metadata["Name"]), "version": str(dist.version),
                    "record": None if record is None else
                    f"sha256:{hashlib.sha256(record.encode()).hexdigest()}"}
    return None


def package_evidence(name: str, roots: list[Path] | None = None) -> dict[str, Any]:
    """The files of the top-level package ``name`` (found as an import would find it, unless
    ``roots`` says where it is): their location, number and digest, and its distribution."""
    found = _roots(name) if roots is None else roots
    if not found:
        return {"package": name, "location": None, "files": 0, "digest": None,
                "distribution": None}
    digest, count = tree_digest(found)
    return {"package": name, "location": os.pathsep.join(str(p) for p in found),
            "files": count, "digest": digest, "distribution": _distribution(name, found)}


def gather(*, impl: str, invocation: Mapping[str, Any]) -> dict[str, Any]:
    """The certificate's ``evidence`` section, made in the suite's process before the
    implementation is loaded (``sys.path`` already holds ``--impl-path``)."""
    import spec

    top = impl.partition(":")[0].split(".")[0]
    expected = invocation.get("expected_failures")
    return {
        "implementation": package_evidence(top),
        "suite": package_evidence("conformance", [PACKAGE_DIR]),
        "spec": package_evidence("spec", [Path(spec.__file__).resolve().parent]),
        "expected_failures": None if expected is None else
        {"path": str(expected), "digest": file_digest(Path(expected))},
        "invocation": dict(invocation),
    }


_PACKAGE: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["package", "location", "files", "digest", "distribution"],
    "additionalProperties": False,
    "properties": {
        "package": {"type": "string", "description": "the top-level package (or module)"},
        "location": {"type": ["string", "null"],
                     "description": "where its files were found (null: not found)"},
        "files": {"type": "integer", "minimum": 0,
                  "description": "files digested (byte-code caches left out)"},
        "digest": {**_NULLABLE_DIGEST,
                   "description": "sha256 over every file's name and content"},
        "distribution": {
            "type": ["object", "null"],
            "description": "the installed distribution whose files these are (null: none)",
            "required": ["name", "version", "record"],
            "additionalProperties": False,
            "properties": {"name": _STR, "version": _STR,
                           "record": {**_NULLABLE_DIGEST,
                                      "description": "sha256 of its RECORD file"}},
        },
    },
}

#: The ``evidence`` section of a certificate (schema 5 on).
EVIDENCE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "description": "what the run was made from and how (schema 5 on): python -m conformance "
                   "verify makes the run again from it and compares",
    "required": ["implementation", "suite", "spec", "expected_failures", "invocation"],
    "additionalProperties": False,
    "properties": {
        "implementation": {**_PACKAGE, "description": "the implementation's top-level package, "
                                                      "located without importing it"},
        "suite": {**_PACKAGE, "description": "the conformance package that ran"},
        "spec": {**_PACKAGE, "description": "the spec package (rules, examples, scenarios)"},
        "expected_failures": {
            "type": ["object", "null"],
            "description": "the expected-failures file used (null: none)",
            "required": ["path", "digest"],
            "additionalProperties": False,
            "properties": {"path": _STR, "digest": _NULLABLE_DIGEST},
        },
        "invocation": {
            "type": "object",
            "description": "the run's options, as the run resolved them (environment "
                           "variables included)",
            "required": ["impl", "impl_path", "certify", "compile", "hypothesis_profile",
                         "seed", "rule_timeout", "rules", "keyword", "markexpr",
                         "expected_failures"],
            "additionalProperties": False,
            "properties": {
                "impl": _STR,
                "impl_path": {"type": "array", "items": _STR,
                              "description": "--impl-path folders, absolute"},
                "certify": {"type": "boolean"},
                "compile": {"type": "boolean"},
                "hypothesis_profile": {"type": ["string", "null"],
                                       "description": "--hypothesis-profile as given, or the "
                                                      "default profile (null: --certify's own)"},
                "seed": {"type": ["string", "null"], "description": "--hypothesis-seed"},
                "rule_timeout": {"type": ["number", "null"]},
                "rules": {"type": ["string", "null"], "description": "--rules as given"},
                "exhaustive": {"type": ["string", "null"],
                               "description": "--exhaustive as given (null: not given; a "
                                              "certification then checks the default scope); "
                                              "absent before schema 7"},
                "keyword": {"type": "string", "description": "-k"},
                "markexpr": {"type": "string", "description": "-m"},
                "expected_failures": {"type": ["string", "null"],
                                      "description": "absolute path"},
            },
        },
    },
}
