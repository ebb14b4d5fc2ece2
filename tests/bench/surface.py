"""The surface sweep's cost: the listed callables and the syntactic forms, per implementation.

Runs :func:`conformance.surface.probe.sweep` and :func:`conformance.surface.syntax.syntax` in
this process (no sandbox) on reference_impl and, when it is installed, torch, and reports the
best of a few rounds: the time per checked callable, and the whole sweep's time, which is what
a certification adds (the sandbox's one round trip aside).
"""

from __future__ import annotations

import importlib
import importlib.util
import time
from dataclasses import dataclass

from tests.bench.rst import table


@dataclass
class SurfaceRow:
    implementation: str
    listed: int
    checked: int
    seconds: float

    @property
    def per_callable_us(self) -> float:
        return 1e6 * self.seconds / max(self.checked, 1)


def _measure(module: str, rounds: int) -> SurfaceRow:
    from conformance.adapter import NamespaceAdapter
    from conformance.surface.probe import sweep
    from conformance.surface.syntax import syntax

    adapter = NamespaceAdapter(importlib.import_module(module))
    best, listed, checked = float("inf"), 0, 0
    for _ in range(rounds):
        start = time.perf_counter()
        accounts = (sweep(adapter), syntax(adapter))
        best = min(best, time.perf_counter() - start)
        listed = sum(a["listed"] or 0 for a in accounts)
        checked = sum(len(a["checked"]) for a in accounts)
    return SurfaceRow(module, listed, checked, best)


def run(quick: bool) -> list[SurfaceRow]:
    rounds = 2 if quick else 5
    modules = ["reference_impl"] + (["torch"] if importlib.util.find_spec("torch") else [])
    return [_measure(m, rounds) for m in modules]


def render(rows: list[SurfaceRow]) -> str:
    body = [[r.implementation, str(r.listed), str(r.checked), f"{r.seconds:.3f}",
             f"{r.per_callable_us:.0f}"] for r in rows]
    return table("The surface sweep (best of the rounds, in this process)",
                 ["implementation", "listed and forms", "checked", "seconds", "µs per callable"],
                 body, [20, 20, 15, 15, 20])
