"""The shape of the code: no import cycle among the modules of ``spec`` and ``conformance`` (imports
made inside functions and under ``TYPE_CHECKING`` included), no module of 400 lines or more
there or in ``reference_impl`` (a torch-like namespace, whose package and submodules import each
other as torch's do), and ``conformance``'s subpackages in layers (:data:`LAYERS`, bottom to top:
docs/design.rst draws them) that import only the layers their docstrings allow.

The import graph is read from the source with :mod:`ast`, not by importing anything.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("spec", "conformance", "reference_impl")
MAX_LINES = 400


def modules(root: Path = ROOT, packages: tuple[str, ...] = PACKAGES) -> dict[str, Path]:
    """Every module of ``packages`` under ``root``, by dotted name (a package by its own)."""
    found: dict[str, Path] = {}
    for top in packages:
        for path in sorted((root / top).rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found[name] = path
    return found


def imports(mods: dict[str, Path]) -> dict[str, set[str]]:
    """For each module, the modules of ``mods`` it imports anywhere in its source."""
    graph: dict[str, set[str]] = {name: set() for name in mods}
    for name, path in mods.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[:len(package.split(".")) - node.level + 1]
                    source = ".".join([*base, *([node.module] if node.module else [])])
                else:
                    source = node.module or ""
                for alias in node.names:
                    sub = f"{source}.{alias.name}"
                    target = sub if sub in mods else source
                    if target in mods:
                        graph[name].add(target)
            elif isinstance(node, ast.Import):
                graph[name].update(alias.name for alias in node.names if alias.name in mods)
        graph[name].discard(name)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph[node]):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component: list[str] = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                component.append(top)
                if top == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle() -> None:
    found = cycles(imports(modules(packages=("spec", "conformance"))))
    assert not found, f"import cycles: {found}"


def test_no_module_of_400_lines_or_more() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) >= MAX_LINES}
    assert not long, f"modules of {MAX_LINES} lines or more: {long}"


@pytest.mark.parametrize("lazy", [False, True])
def test_a_cycle_is_found_however_it_is_imported(tmp_path: Path, lazy: bool) -> None:
    # The check itself: two modules that import each other, one of them inside a function.
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "a.py").write_text("from .b import g\n\ndef f() -> None:\n    g()\n")
    b = ("def g() -> None:\n    from .a import f\n" if lazy
         else "from pkg.a import f\n\ndef g() -> None:\n    f()\n")
    (package / "b.py").write_text(b)
    (package / "c.py").write_text("from . import a\n")
    assert cycles(imports(modules(tmp_path, ("pkg",)))) == [["pkg.a", "pkg.b"]]


# The layers of ``conformance``, bottom to top: each subpackage (or top-level module) and what it
# may import of the others; its package docstring says the same. A unit may only allow units
# listed before it, so that every import points down.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("version", ()),
    ("base", ()),
    ("generate", ()),
    ("snippet", ("generate",)),
    ("surface", ("base",)),
    ("target", ("base", "surface")),
    ("adapter", ("target",)),
    ("sandbox", ("base", "target")),
    ("judge", ("base", "generate", "snippet", "target", "sandbox")),
    ("search", ("base", "generate", "snippet", "target", "sandbox", "judge")),
    ("exhaustive", ("base", "target", "sandbox", "judge")),
    ("report", ("version",)),
    ("tools", ("base", "generate", "snippet", "surface", "target", "sandbox", "judge", "search")),
    ("conformance", ("version", "report", "tools")),
    ("matrix", ("tools", "report")),
    ("release", ()),
    ("__main__", ("version", "base", "generate", "snippet", "surface", "target", "adapter", "sandbox",
                  "judge", "search", "exhaustive", "report", "tools", "matrix", "release")),
    ("session", ("version", "base", "generate", "snippet", "surface", "target", "sandbox", "judge",
                 "search", "exhaustive", "report")),
    ("plugin", ("session",)),
    ("suite", ("version", "base", "generate", "snippet", "surface", "target", "adapter", "sandbox",
               "judge", "search", "exhaustive", "report", "session")),
)


def unit(module: str) -> str:
    """The layer a module of ``conformance`` belongs to: its subpackage, or the top-level module
    itself (``conformance`` for the package's ``__init__``)."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def test_the_layer_table_points_down() -> None:
    seen: set[str] = set()
    for name, allowed in LAYERS:
        assert set(allowed) <= seen, f"{name} allows a unit above it: {sorted(set(allowed) - seen)}"
        seen.add(name)


def test_every_unit_of_conformance_has_a_layer() -> None:
    units = {unit(name) for name in modules(packages=("conformance",))}
    placed = {name for name, _ in LAYERS}
    assert units == placed, f"without a layer: {sorted(units - placed)}; gone: {sorted(placed - units)}"


def test_each_layer_imports_only_what_it_allows() -> None:
    allowed = dict(LAYERS)
    upward = sorted(f"{source} -> {target}"
                    for source, targets in imports(modules(packages=("conformance",))).items()
                    for target in targets
                    if unit(source) != unit(target) and unit(target) not in allowed[unit(source)])
    assert not upward, f"imports the layer table does not allow: {upward}"


SUBPACKAGES = sorted(name.split(".")[1] for name, path in modules(packages=("conformance",)).items()
                     if name.count(".") == 1 and path.name == "__init__.py")


@pytest.mark.parametrize("name", [name for name in SUBPACKAGES if name != "suite"])
def test_each_subpackage_says_what_it_may_import(name: str) -> None:
    # The package docstring names every unit its layer may import (as conformance.NAME); the
    # suite's tests, at the top, may import every layer but the plugin's entry point.
    doc = ast.get_docstring(ast.parse((ROOT / "conformance" / name / "__init__.py").read_text("utf-8")))
    assert doc, f"conformance.{name} has no package docstring"
    missing = [u for u in dict(LAYERS)[name] if f"conformance.{u}" not in doc]
    assert not missing, f"conformance.{name}'s docstring does not name {missing}"


def test_an_upward_import_is_found(tmp_path: Path) -> None:
    # The check itself: a module of a lower layer importing one of a higher layer.
    for folder in ("conformance", "conformance/base", "conformance/judge"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "__init__.py").write_text("")
    (tmp_path / "conformance/judge/check.py").write_text("X = 1\n")
    (tmp_path / "conformance/base/safe.py").write_text("def f() -> int:\n    from ..judge.check import X\n"
                                                         "    return X\n")
    graph = imports(modules(tmp_path, ("conformance",)))
    assert graph["conformance.base.safe"] == {"conformance.judge.check"}
    assert "judge" not in dict(LAYERS)[unit("conformance.base.safe")]
