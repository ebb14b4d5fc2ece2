"""Running part of the suite: ``--rules``, and what a partial run may and may not say.

A rule's verdict comes from the tests marked with it. A run that leaves out some of those tests
(``--rules``, ``-k``, ``-m``, ``--deselect``, node IDs, a single module of the suite) cannot
give the rule a verdict: it is ``not_selected``, whatever its remaining tests did, unless one of
them failed (a failure is a failure in any selection). Such a run is *partial*: its certificate
names the rules it covered and certifies nothing.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass, field
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

from spec.catalogue import Catalogue

__all__ = ["Selection", "SelectionError", "parse_rules", "suite_modules"]


class SelectionError(ValueError):
    """A ``--rules`` value that names no rule."""


def parse_rules(text: str, catalogue: Catalogue) -> tuple[str, ...]:
    """The catalogue rules ``text`` names, in catalogue order.

    ``text`` holds patterns separated by commas or spaces; each is a rule ID
    (``TFM_ORDER_001``), a glob over IDs (``TFM_ORDER_*``, ``TFM_*_001``) or an area name
    (``ORDER``, in any case). Every pattern must name at least one rule.
    """
    patterns = [p for p in re.split(r"[,\s]+", text) if p]
    areas = sorted({rule.area for rule in catalogue.rules})
    hint = ("give rule IDs (TFM_ORDER_001), globs ('TFM_ORDER_*') or areas "
            f"({', '.join(areas)})")
    if not patterns:
        raise SelectionError(f"--rules is empty: {hint}")
    chosen: set[str] = set()
    for pattern in patterns:
        wanted = pattern.upper()
        if wanted in areas:
            found = {rule.id for rule in catalogue.rules if rule.area == wanted}
        else:
            found = {rule_id for rule_id in catalogue.ids() if fnmatchcase(rule_id, wanted)}
        if not found:
            raise SelectionError(f"--rules: {pattern!r} names no rule: {hint}")
        chosen |= found
    return tuple(rule_id for rule_id in catalogue.ids() if rule_id in chosen)


def suite_modules() -> frozenset[str]:
    """The file names of the suite's test modules (``test_examples.py``, ...)."""
    here = Path(__file__).parents[1] / "suite"
    return frozenset(path.name for path in here.glob("test_*.py"))


@dataclass
class Selection:
    """What the collecting process saw of the suite, before and after every deselection."""

    #: suite tests collected, and of those the ones left to run
    collected: int = 0
    selected: int = 0
    #: the rules ``--rules`` chose (None: no --rules)
    rules: list[str] | None = None
    #: how the run was narrowed, one phrase each (empty: the whole suite runs)
    reasons: list[str] = field(default_factory=list)
    #: rules some of whose collected tests were left out, and rules some test of which runs
    left_out: list[str] = field(default_factory=list)
    ran: list[str] = field(default_factory=list)
    #: True when tests that cover rules were never collected (a module or node IDs given), so
    #: no rule can be known to have all its tests in the run
    coverage_unknown: bool = False

    @property
    def partial(self) -> bool:
        return bool(self.reasons)

    def covers(self, rule_id: str) -> bool:
        """Whether the run has tests of ``rule_id``, and every test of it."""
        return not self.coverage_unknown and rule_id in self.ran and rule_id not in self.left_out

    def to_json(self) -> str:
        return json.dumps(asdict(self))

    @classmethod
    def from_json(cls, text: str) -> Selection:
        data: dict[str, Any] = json.loads(text)
        return cls(**data)


def describe(*, collected: dict[str, tuple[str, ...]], kept: set[str],
             modules: set[str], node_ids: bool, rules: tuple[str, ...] | None,
             rules_text: str | None, keyword: str, markexpr: str) -> Selection:
    """The selection, from ``{node ID: rules}`` of the tests collected (the suite's, and any
    other test marked with rules), the node IDs kept after every deselection, the suite modules
    collected (none: the run is of other rule-marked tests) and whether node IDs were given."""
    left_out = sorted({rule for nodeid, marked in collected.items() if nodeid not in kept
                       for rule in marked})
    ran = sorted({rule for nodeid, marked in collected.items() if nodeid in kept for rule in marked})
    reasons: list[str] = []
    dropped = len(collected) - len(kept & collected.keys())
    if dropped:
        how = [f"--rules {rules_text!r}" if rules_text else "", f"-k {keyword!r}" if keyword else "",
               f"-m {markexpr!r}" if markexpr else ""]
        named = ", ".join(h for h in how if h) or "a deselection"
        reasons.append(f"{dropped} of {len(collected)} collected tests deselected ({named})")
    missing = sorted(suite_modules() - modules) if modules else []
    if missing:
        reasons.append(f"suite modules not collected: {', '.join(missing)}")
    if node_ids:
        reasons.append("tests chosen by node ID")
    return Selection(collected=len(collected), selected=len(kept & collected.keys()),
                     rules=None if rules is None else list(rules), reasons=reasons,
                     left_out=left_out, ran=ran, coverage_unknown=bool(missing) or node_ids)
