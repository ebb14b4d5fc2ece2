"""What one chunk of an exhaustive run found, and the certificate's ``run.exhaustive``."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from spec.model import scenario_to_dict

from .batch import Outcome
from .scope import Scope

#: The property under which a chunk hands over its tally (see :meth:`Findings.tally`).
EXHAUSTIVE_PROPERTY = "exhaustive"


@dataclass
class Findings:
    """One chunk's count of scenarios and the first scenario that broke each rule."""

    chunk: int
    chunks: int
    scenarios: int = 0
    unspecified: int = 0
    faults: int = 0
    excused: int = 0
    cut_short: int = 0
    first: dict[str, Outcome] = field(default_factory=dict)
    unexcused: set[str] = field(default_factory=set)
    stopped: str | None = None

    def add(self, outcome: Outcome, applies: Callable[[str], bool]) -> None:
        self.scenarios += 1
        checked = outcome.checked
        if checked is None:
            self.unspecified += 1
            return
        self.faults += checked.fault is not None
        if checked.excused:
            self.excused += 1
            self.cut_short += checked.cut_short
        for rule_id in checked.rules:
            if not applies(rule_id):
                continue
            self.first.setdefault(rule_id, outcome)
            if rule_id not in checked.excused:
                self.unexcused.add(rule_id)

    def failing(self) -> list[str]:
        """The rules some scenario broke, an unexcused one first."""
        return sorted(self.first, key=lambda rule_id: (rule_id not in self.unexcused, rule_id))

    @staticmethod
    def scenario_json(outcome: Outcome) -> dict[str, Any]:
        return scenario_to_dict(outcome.scenario)

    def report(self, failing: Sequence[str]) -> str:
        parts = []
        for rule_id in failing:
            outcome = self.first[rule_id]
            details = list(outcome.checked.differences) if outcome.checked else []
            parts.append(f"{rule_id}: enumerated scenario of chunk {self.chunk} (the first of "
                         f"the chunk that breaks it):\n"
                         f"{json.dumps(self.scenario_json(outcome), sort_keys=True)}\n"
                         + "\n".join(details))
        if self.stopped:
            parts.append(f"chunk {self.chunk} {self.stopped}")
        if self.excused:
            parts.append(f"chunk {self.chunk}: {self.excused} of {self.scenarios} scenarios showed "
                         f"an excused divergence ({self.cut_short} of them cut short by it)")
        return "\n\n".join(parts)

    def tally(self, scope: Scope, seconds: float) -> dict[str, Any]:
        return {"scope": scope.name, "bounds": scope.describe(), "chunk": self.chunk,
                "chunks": self.chunks, "scenarios": self.scenarios,
                "unspecified": self.unspecified, "complete": self.stopped is None,
                "seconds": round(seconds, 3)}


def add_up_chunks(tallies: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The chunks' tallies added up: the certificate's ``run.exhaustive`` (None: no chunk
    reported). ``complete`` only when every chunk reported and enumerated its share whole."""
    if not tallies:
        return None
    first = tallies[0]
    chunks = {t["chunk"] for t in tallies}
    scenarios = sum(t["scenarios"] for t in tallies)
    # The chunks ran side by side on the workers: the time is the longest chunk's, and the
    # rate is per worker-second.
    busy = sum(t["seconds"] for t in tallies)
    return {"scope": first["scope"], "bounds": first["bounds"], "scenarios": scenarios,
            "unspecified": sum(t["unspecified"] for t in tallies),
            "complete": len(chunks) == first["chunks"] and all(t["complete"] for t in tallies),
            "seconds": round(busy, 1),
            "scenarios_per_second": round(scenarios / busy) if busy > 0 else 0}
