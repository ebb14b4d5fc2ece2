"""The shape of the code: no import cycle among the modules of ``spec`` and ``conformance`` (imports
made inside functions and under ``TYPE_CHECKING`` included), and no module of 400 lines or more
there or in ``reference_impl`` (a torch-like namespace, whose package and submodules import each
other as torch's do).

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
