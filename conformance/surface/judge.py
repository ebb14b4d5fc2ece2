"""The surface sweep judged in the suite's process: its account checked, each check a rule.

The sweep's account (:func:`conformance.surface.probe.sweep`) comes from the implementation's
process, so it is read as untrusted data: its shape is checked, every name and detail is a
bounded text, and a check it names must be one the sweep makes. Each callable's problems become
the rules they break (:data:`CHECK_RULES`); an expected failure whose entry lists the callable
under ``surface`` excuses that rule there, and nowhere else.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

__all__ = ["CHECK_RULES", "RULES", "SYNTAX_RULES", "SurfaceError", "Verdict", "judge", "read",
           "rules_of"]

#: The rule each check of the sweep stands for (``disable_mode``: see :func:`rules_of`).
CHECK_RULES: Mapping[str, str] = {
    "reach": "TFM_REACH_009", "func": "TFM_ARGS_001", "args": "TFM_ARGS_002",
    "result": "TFM_ORDER_002", "raise": "TFM_ERROR_005", "duck": "TFM_TYPES_006",
    "duck_alone": "TFM_TYPES_006",
    "notimpl": "TFM_NOTIMPL_001", "disable": "TFM_DISABLE_001",
    "disable_mode": "TFM_STACK_010", "disable_subclass": "TFM_STACK_011",
    # the syntactic entry points (conformance.surface.syntax)
    "syntax": "TFM_SYNTAX_001", "syntax_raise": "TFM_SYNTAX_002", "operand": "TFM_SYNTAX_003",
    "property": "TFM_SYNTAX_004", "index_duck": "TFM_ORDER_006", "tensor_like": "TFM_TYPES_006",
    "iteration": "TFM_TYPES_006",
}
_SYNTAX_CHECKS = ("syntax", "syntax_raise", "operand", "property", "index_duck", "tensor_like",
                  "iteration")
#: Every rule the sweep of listed callables may fail, and those of the syntactic forms.
RULES = tuple(sorted({*(r for c, r in CHECK_RULES.items() if c not in _SYNTAX_CHECKS),
                      "TFM_DISABLE_002"}))
SYNTAX_RULES = tuple(sorted({CHECK_RULES[c] for c in _SYNTAX_CHECKS}))
_MAX_TEXT = 400
_MAX_ENTRIES = 20_000


class SurfaceError(ValueError):
    """The sweep's account is malformed: the implementation's process misbehaved."""


def rules_of(check: str, generation: str, stack_version: str | None) -> str:
    """The rule a failed ``check`` breaks for an implementation of that generation."""
    if check == "disable_mode" and (generation == "2022" or stack_version == "1.13"):
        return "TFM_DISABLE_002"  # there the mode still runs inside DisableTorchFunction
    return CHECK_RULES[check]


def _text(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise SurfaceError(f"the surface sweep's {where} is not a text")
    return value[:_MAX_TEXT]


def read(data: Any) -> tuple[int | None, list[tuple[str, list[tuple[str, str]]]], list[tuple[str, str]]]:
    """``(listed, checked, not_called)`` from the sweep's account; SurfaceError if malformed."""
    if not isinstance(data, dict) or set(data) != {"listed", "checked", "not_called"}:
        raise SurfaceError("the surface sweep's account does not have its three fields")
    listed = data["listed"]
    if listed is not None and (type(listed) is not int or not 0 <= listed <= _MAX_ENTRIES):
        raise SurfaceError("the surface sweep's count of listed callables is not a count")
    checked: list[tuple[str, list[tuple[str, str]]]] = []
    for entry in _items(data["checked"], "checked callables"):
        if not isinstance(entry, list) or len(entry) != 2:
            raise SurfaceError("a checked callable is not [name, problems]")
        problems = []
        for problem in _items(entry[1], "problems"):
            if not isinstance(problem, list) or len(problem) != 2 or problem[0] not in CHECK_RULES:
                raise SurfaceError("a problem is not [check, detail] with a known check")
            problems.append((str(problem[0]), _text(problem[1], "detail")))
        checked.append((_text(entry[0], "callable name"), problems))
    not_called = []
    for entry in _items(data["not_called"], "callables not called"):
        if not isinstance(entry, list) or len(entry) != 2:
            raise SurfaceError("a callable not called is not [name, reason]")
        not_called.append((_text(entry[0], "callable name"), _text(entry[1], "reason")))
    if listed is not None and len(checked) + len(not_called) > listed:
        raise SurfaceError("the surface sweep accounts for more callables than it listed")
    return listed, checked, not_called


def _items(value: Any, where: str) -> list[Any]:
    if not isinstance(value, list) or len(value) > _MAX_ENTRIES:
        raise SurfaceError(f"the surface sweep's {where} are not a list")
    return value


@dataclass
class Verdict:
    """The sweep judged: rules failed and excused, the first problem of each, and the table."""

    failed: dict[str, list[str]] = field(default_factory=dict)    # rule -> callables
    excused: dict[str, list[str]] = field(default_factory=dict)   # rule -> callables
    first: dict[str, str] = field(default_factory=dict)           # rule -> "name: detail"
    # (a rule's first unexcused problem where it has one, else its first excused one)
    table: dict[str, Any] = field(default_factory=dict)

    def message(self) -> str:
        lines = []
        for rule, names in sorted(self.failed.items()):
            shown = ", ".join(names[:6]) + (f" and {len(names) - 6} more" if len(names) > 6 else "")
            lines.append(f"{rule}: {len(names)} listed callable(s) diverge: {shown}; first: "
                         f"{self.first[rule]}")
        return "\n".join(lines)


def judge(listed: int | None, checked: list[tuple[str, list[tuple[str, str]]]],
          not_called: list[tuple[str, str]], generation: str, stack_version: str | None,
          scopes: Mapping[str, frozenset[str] | None], expected: Mapping[str, str]) -> Verdict:
    """Each callable's problems as rules; ``scopes``: rule -> the callables its expected
    failure excuses (``None``: any)."""
    verdict = Verdict()
    functions: dict[str, Any] = {}
    for name, problems in checked:
        rules: dict[str, str] = {}
        for check, detail in problems:
            rules.setdefault(rules_of(check, generation, stack_version), detail)
        excused = [r for r in rules if r in expected and (scopes.get(r) is None
                                                         or name in (scopes.get(r) or ()))]
        for rule, detail in rules.items():
            failed = rule not in excused
            # a rule's first problem is its first unexcused one where it has any
            if rule not in verdict.first or (failed and rule not in verdict.failed):
                verdict.first[rule] = f"{name}: {detail}"
            (verdict.failed if failed else verdict.excused).setdefault(rule, []).append(name)
        status = "pass" if not rules else "expected_failure" if len(excused) == len(rules) else "fail"
        functions[name] = {"verdict": status, "rules": sorted(rules),
                           "detail": next(iter(rules.values()), "")}
    verdict.table = {
        "listed": listed, "checked": len(checked),
        "passed": sum(f["verdict"] == "pass" for f in functions.values()),
        "functions": functions, "not_called": dict(not_called),
    }
    return verdict
