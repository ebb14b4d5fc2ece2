"""Builds a mutant: a fresh, independent copy of reference_impl with source-level mutations.

Nothing of reference_impl is copied into this directory. ``build(name, mutations)`` reads
reference_impl's source files, applies each mutation (an exact snippet that must occur exactly
once, replaced by another), renames ``reference_impl`` to ``name`` in the text (imports and the
qualified names used in error messages), and executes every module under ``name`` with its own
module objects, so each copy has its own thread-local mode slot and its own Tensor class.

A mutant module ``tests/mutants/<bug>.py`` calls :func:`install` with its own ``__name__``; the
copy replaces it in ``sys.modules``, so ``import tests.mutants.<bug>`` gives the copy's package.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

__all__ = ["REFERENCE_DIR", "Mutation", "MutationError", "build", "install", "mutated_sources"]

_spec = importlib.util.find_spec("reference_impl")
assert _spec is not None and _spec.submodule_search_locations, "reference_impl is not importable"
#: The directory of the reference_impl package whose sources every mutant starts from.
REFERENCE_DIR = Path(next(iter(_spec.submodule_search_locations)))
del _spec


class MutationError(AssertionError):
    """A mutation no longer fits reference_impl's source (its snippet is gone or ambiguous)."""


@dataclass(frozen=True)
class Mutation:
    """Replace the one occurrence of ``old`` in reference_impl/``file`` by ``new``."""

    file: str
    old: str
    new: str


def _reference_sources() -> dict[str, str]:
    files = sorted(REFERENCE_DIR.glob("*.py"))
    assert files, f"no sources in {REFERENCE_DIR}"
    return {path.name: path.read_text(encoding="utf-8") for path in files}


def mutated_sources(name: str, mutations: Sequence[Mutation]) -> dict[str, str]:
    """reference_impl's sources with ``mutations`` applied and the package renamed to ``name``."""
    sources = _reference_sources()
    for mutation in mutations:
        if mutation.file not in sources:
            raise MutationError(f"{name}: reference_impl has no file {mutation.file!r}")
        if mutation.old == mutation.new:
            raise MutationError(f"{name}: a mutation of {mutation.file} changes nothing")
        # A snippet that starts with indentation must start a line: "    x" does not match
        # the end of "        x", whose block structure differs.
        anchored = mutation.old[:1] in (" ", "\t")
        prefix = "\n" if anchored else ""
        text = prefix + sources[mutation.file]
        count = text.count(prefix + mutation.old)
        if count != 1:
            raise MutationError(
                f"{name}: the snippet to mutate occurs {count} times in reference_impl/"
                f"{mutation.file} (expected exactly once); reference_impl changed, so update "
                f"the mutant:\n{mutation.old}"
            )
        text = text.replace(prefix + mutation.old, prefix + mutation.new)
        sources[mutation.file] = text[len(prefix):]
    for file, text in sources.items():
        try:
            compile(text, file, "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise MutationError(f"{name}: the mutated reference_impl/{file} does not compile "
                                f"({exc}); reference_impl changed, so update the mutant") from None
    # Rename the package: imports, and the qualified names in native error messages.
    pattern = re.compile(r"\breference_impl\b")
    return {file: pattern.sub(name, text) for file, text in sources.items()}


class _SourceLoader(importlib.abc.Loader):
    """Executes one module from a (mutated) source string; no bytecode is cached."""

    def __init__(self, fullname: str, source: str, path: Path) -> None:
        self.fullname, self.source, self.path = fullname, source, path

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        # The code's file name is not a real path, so tracebacks read the (mutated) source
        # through get_source rather than the original file's lines.
        code = compile(self.source, f"{self.path} [{self.fullname}]", "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname: str) -> str:
        return self.source


class _CopyFinder(importlib.abc.MetaPathFinder):
    """Finds the modules of every built copy (first on sys.meta_path, ahead of PathFinder)."""

    def __init__(self) -> None:
        self.modules: dict[str, tuple[str, Path, bool]] = {}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        entry = self.modules.get(fullname)
        if entry is None:
            return None
        source, file, is_package = entry
        return importlib.util.spec_from_file_location(
            fullname,
            file,
            loader=_SourceLoader(fullname, source, file),
            submodule_search_locations=[str(REFERENCE_DIR)] if is_package else None,
        )


_FINDER = _CopyFinder()


def _ensure_finder() -> None:
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    sys.meta_path.insert(0, _FINDER)


def build(name: str, mutations: Sequence[Mutation] = ()) -> ModuleType:
    """Load a fresh copy of reference_impl, mutated, as package ``name``; return the package.

    Any earlier copy under ``name`` (and its submodules) is discarded first; whatever
    ``sys.modules[name]`` held is restored if the build fails.
    """
    sources = mutated_sources(name, mutations)
    for file, source in sources.items():
        stem = file.removesuffix(".py")
        fullname = name if stem == "__init__" else f"{name}.{stem}"
        _FINDER.modules[fullname] = (source, REFERENCE_DIR / file, stem == "__init__")
    _ensure_finder()
    previous = sys.modules.get(name)
    for key in [k for k in sys.modules if k.startswith(name + ".")]:
        del sys.modules[key]
    spec = _FINDER.find_spec(name)
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules[name] = package
    try:
        spec.loader.exec_module(package)
    except BaseException:
        for key in [k for k in sys.modules if k.startswith(name + ".")]:
            del sys.modules[key]
        if previous is None:
            sys.modules.pop(name, None)
        else:
            sys.modules[name] = previous
        raise
    return package


def install(name: str, rule: str, bug: str, mutations: Sequence[Mutation]) -> ModuleType:
    """Build the mutant ``name`` and leave its copy in ``sys.modules[name]`` with RULE and BUG.

    Called by the mutant module itself with its ``__name__``: when its import finishes, the
    import system returns the copy (it reads ``sys.modules[name]`` back), not the module file.
    """
    if not mutations:
        raise MutationError(f"{name}: a mutant needs at least one mutation")
    package = build(name, mutations)
    package.RULE = rule  # type: ignore[attr-defined]
    package.BUG = bug  # type: ignore[attr-defined]
    package.MUTATIONS = tuple(mutations)  # type: ignore[attr-defined]
    package.__version__ = "mutant"  # type: ignore[attr-defined]
    return package
