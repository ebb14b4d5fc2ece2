"""Which tests cover which rule: ``pytest.mark.rule(...)`` markers found with :mod:`ast`.

Nothing is imported or run: the test files are parsed. A marker counts where pytest
would apply it:

* on a function or method (``@pytest.mark.rule("TFM_ORDER_001")``), including markers
  nested in its other decorators (``pytest.param(..., marks=pytest.mark.rule(...))``);
* on a class, as a decorator or as ``pytestmark = ...`` in the class body;
* on a module, as ``pytestmark = ...`` at top level.

Each is listed under the pytest node ID of the thing it marks: ``path::func``,
``path::Class::method``, ``path::Class`` or ``path``.

Marker arguments are string constants, or module-level names bound to strings. A marker
inside a parametrization built by a comprehension, whose arguments come from the loop
variable, is read from the data it is drawn from::

    RULES = [pytest.param(r.id, marks=pytest.mark.rule(r.id), id=r.id)
             for r in load_catalogue().rules]

    @pytest.mark.parametrize("rule_id", RULES)
    def test_x(rule_id): ...

Only the test module's ``import`` statements are executed, to evaluate the comprehension's
iterable, filters, marker arguments and ``id=`` (the test module itself is never imported);
each element marks ``path::test_x[<id>]``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The files scanned, relative to the repository root, in this order.
PATTERNS = ("conformance/suite/*.py", "tests/*.py")


@dataclass(frozen=True)
class Marker:
    """One test (pytest node ID) marked with some rule IDs."""

    nodeid: str
    rules: tuple[str, ...]
    path: str
    line: int


def _is_rule_mark(node: ast.AST) -> bool:
    """``<anything>.mark.rule(...)`` (``pytest.mark.rule``, or ``mark.rule`` after an import)."""
    if not isinstance(node, ast.Call):
        return False
    func = node.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr == "rule"
        and isinstance(func.value, ast.Attribute)
        and func.value.attr == "mark"
    ) or (
        isinstance(func, ast.Attribute)
        and func.attr == "rule"
        and isinstance(func.value, ast.Name)
        and func.value.id == "mark"
    )


class _Module:
    """A test module as data: names bound to strings, every bound expression, its imports."""

    def __init__(self, module: ast.Module, path: Path) -> None:
        self.path = path
        self.values: dict[str, tuple[str, ...]] = {}
        self.exprs: dict[str, ast.expr] = {}
        self.imports = [s for s in module.body if isinstance(s, (ast.Import, ast.ImportFrom))]
        self._namespace: dict[str, Any] | None = None
        self.problems: list[tuple[int, str]] = []
        for stmt in module.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            if isinstance(target, ast.Name):
                self.exprs[target.id] = value
                strings = self._strings(value)
                if strings is not None:
                    self.values[target.id] = strings

    @staticmethod
    def _strings(value: ast.AST) -> tuple[str, ...] | None:
        if isinstance(value, ast.Constant) and isinstance(value.value, str):
            return (value.value,)
        if isinstance(value, (ast.Tuple, ast.List)) and all(
            isinstance(e, ast.Constant) and isinstance(e.value, str) for e in value.elts
        ):
            return tuple(e.value for e in value.elts)  # type: ignore[attr-defined]
        return None

    def arguments(self, call: ast.Call) -> Iterator[str]:
        for arg in call.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield arg.value
            elif isinstance(arg, ast.Name) and arg.id in self.values:
                yield from self.values[arg.id]
            elif isinstance(arg, ast.Starred) and isinstance(arg.value, ast.Name):
                yield from self.values.get(arg.value.id, ())

    def expand(self, exprs: Iterable[ast.AST]) -> list[ast.AST]:
        """The expressions, plus those of the module-level names they use (one level)."""
        out = list(exprs)
        for expr in list(out):
            for node in ast.walk(expr):
                if isinstance(node, ast.Name) and node.id in self.exprs:
                    value = self.exprs[node.id]
                    if value not in out:
                        out.append(value)
        return out

    def namespace(self) -> dict[str, Any]:
        """The names the module imports (its import statements run; nothing else does)."""
        if self._namespace is None:
            namespace: dict[str, Any] = {"__name__": f"tfmdocs_scan_{self.path.stem}"}
            code = compile(ast.Module(body=self.imports, type_ignores=[]), str(self.path), "exec")
            exec(code, namespace)
            self._namespace = namespace
        return self._namespace

    def evaluate(self, expr: ast.expr, bound: dict[str, Any]) -> Any:
        code = compile(ast.Expression(body=expr), str(self.path), "eval")
        return eval(code, self.namespace(), bound)


def _uses(node: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(node))


def _comprehension_rules(comp: ast.AST, module: _Module) -> tuple[list[tuple[str, str]], set[int]]:
    """``(rule, "[id]")`` pairs of a parametrizing comprehension; the marks it accounted for."""
    if not isinstance(comp, (ast.ListComp, ast.GeneratorExp, ast.SetComp)) or len(
            comp.generators) != 1:
        return [], set()
    gen = comp.generators[0]
    if not isinstance(gen.target, ast.Name):
        return [], set()
    var = gen.target.id
    marks = [n for n in ast.walk(comp.elt) if _is_rule_mark(n)
             and any(_uses(a, var) for a in n.args)]  # type: ignore[attr-defined]
    if not marks:
        return [], set()
    param = comp.elt if isinstance(comp.elt, ast.Call) else None
    id_expr = next((k.value for k in param.keywords if k.arg == "id"), None) if param else None
    found: list[tuple[str, str]] = []
    for item in module.evaluate(gen.iter, {}):
        bound = {var: item}
        if not all(module.evaluate(cond, bound) for cond in gen.ifs):
            continue
        suffix = f"[{module.evaluate(id_expr, bound)}]" if id_expr is not None else ""
        for mark in marks:
            assert isinstance(mark, ast.Call)
            for arg in mark.args:
                if isinstance(arg, ast.Starred):
                    values = list(module.evaluate(arg.value, bound))
                else:
                    values = [module.evaluate(arg, bound)]
                found.extend((str(v), suffix) for v in values if (str(v), suffix) not in found)
    return found, {id(m) for m in marks}


def _rules_in(exprs: Iterable[ast.AST], module: _Module) -> list[tuple[str, str]]:
    """``(rule ID, node-ID suffix)`` pairs; the suffix is ``[id]`` for a data-driven param."""
    found: list[tuple[str, str]] = []
    for expr in module.expand(exprs):
        handled: set[int] = set()
        for node in ast.walk(expr):
            try:
                pairs, marks = _comprehension_rules(node, module)
            except Exception as exc:  # the data could not be read: say so, keep scanning
                module.problems.append((getattr(node, "lineno", 1),
                                        f"cannot read the rule markers of this parametrization "
                                        f"({type(exc).__name__}: {exc})"))
                continue
            handled |= marks
            found.extend(p for p in pairs if p not in found)
        for node in ast.walk(expr):
            if _is_rule_mark(node) and id(node) not in handled:
                assert isinstance(node, ast.Call)
                found.extend((r, "") for r in module.arguments(node) if (r, "") not in found)
    return found


def _pytestmark(body: list[ast.stmt]) -> list[ast.AST]:
    values: list[ast.AST] = []
    for stmt in body:
        if (isinstance(stmt, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in stmt.targets
        )) or (
            isinstance(stmt, ast.AnnAssign)
            and isinstance(stmt.target, ast.Name)
            and stmt.target.id == "pytestmark"
            and stmt.value is not None
        ):
            values.append(stmt.value)
    return values


def scan_file(path: Path, display: str,
              problems: list[tuple[str, int, str]] | None = None) -> list[Marker]:
    """The rule markers of one test file (``display`` is its path as shown).

    What could not be read is appended to ``problems`` as ``(path, line, message)``.
    """
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    module = _Module(tree, path)
    out: list[Marker] = []

    def add(nodeid: str, pairs: list[tuple[str, str]], line: int) -> None:
        plain = tuple(r for r, suffix in pairs if not suffix)
        if plain:
            out.append(Marker(nodeid, plain, display, line))
        for rule, suffix in pairs:
            if suffix:
                out.append(Marker(nodeid + suffix, (rule,), display, line))

    add(display, _rules_in(_pytestmark(tree.body), module), 1)

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for stmt in body:
            if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
                add(f"{prefix}::{stmt.name}", _rules_in(stmt.decorator_list, module), stmt.lineno)
            elif isinstance(stmt, ast.ClassDef):
                nodeid = f"{prefix}::{stmt.name}"
                add(nodeid, _rules_in([*stmt.decorator_list, *_pytestmark(stmt.body)], module),
                    stmt.lineno)
                visit(stmt.body, nodeid)

    visit(tree.body, display)
    if problems is not None:
        problems.extend((display, line, message) for line, message in module.problems)
    return out


def scan(root: Path, patterns: Iterable[str] = PATTERNS,
         problems: list[tuple[str, int, str]] | None = None) -> list[Marker]:
    """Every rule marker in the test files under ``root``, file by file, in source order."""
    markers: list[Marker] = []
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file():
                markers.extend(scan_file(path, path.relative_to(root).as_posix(), problems))
    return markers


def by_rule(markers: Iterable[Marker]) -> dict[str, list[str]]:
    """Rule ID to the node IDs that cover it (each listed once, in scan order)."""
    out: dict[str, list[str]] = {}
    for marker in markers:
        for rule in marker.rules:
            ids = out.setdefault(rule, [])
            if marker.nodeid not in ids:
                ids.append(marker.nodeid)
    return out
