"""Enumerated scenarios per second: the default exhaustive scope's first scenarios checked the
way a certification checks them (batched and pipelined through the sandbox,
``conformance.exhaustive.batch.check_all``) against one ``conformance.judge.check.check`` per
scenario (the generated sweep's way, without hypothesis), on reference_impl and on torch, in the
same run. Both processes' CPU time is measured too: the rate per CPU-second does not depend on
what else the machine is doing."""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass

from tests.bench.rst import table


@dataclass
class Rate:
    impl: str
    how: str
    scenarios: int
    seconds: float
    cpu: float  # the suite's process and the implementation's, added up

    @property
    def per_second(self) -> float:
        return self.scenarios / self.seconds

    @property
    def per_cpu_second(self) -> float:
        return self.scenarios / self.cpu if self.cpu else 0.0


def _measure(impl: str, how: str, n: int) -> Rate:
    from conformance.exhaustive.batch import check_all
    from conformance.exhaustive.enumeration import scenarios
    from conformance.exhaustive.scope import default_scope
    from conformance.judge.check import check
    from conformance.sandbox.parent import SandboxedImplementation

    target = SandboxedImplementation(impl)
    try:
        todo = list(itertools.islice(scenarios(default_scope(target.generation), target.generation,
                                               target.features), n))
        for scenario in todo[:20]:  # warm-up: the first calls import and compile
            check(scenario, target)
        child = target.sandbox.cpu_seconds() or 0.0
        own, started = time.process_time(), time.perf_counter()
        if how == "batched":
            for _ in check_all(todo, target):
                pass
        else:
            for scenario in todo:
                check(scenario, target)
        seconds = time.perf_counter() - started
        cpu = time.process_time() - own + (target.sandbox.cpu_seconds() or 0.0) - child
    finally:
        target.close()
    return Rate(impl, how, len(todo), seconds, cpu)


def run(n: int, with_torch: bool) -> list[Rate]:
    impls = ["reference_impl", *(["torch"] if with_torch else [])]
    return [_measure(impl, how, n) for impl in impls for how in ("one by one", "batched")]


def render(rates: list[Rate]) -> str:
    rows = []
    for rate in rates:
        base = next(r for r in rates if r.impl == rate.impl and r.how == "one by one")
        rows.append([rate.impl, rate.how, str(rate.scenarios), f"{rate.seconds:.2f}",
                     f"{rate.per_second:.0f}", f"{rate.per_cpu_second:.0f}",
                     f"{rate.per_second / base.per_second:.2f}"])
    head = ("The default exhaustive scope's first scenarios (of the implementation's generation), "
            "each checked against the model, one ``check()`` per scenario as the generated sweep "
            "checks them (hypothesis left out) and batched as an exhaustive run checks them. "
            "*per CPU-second* counts both processes' CPU time; *ratio* is against one by one, "
            "in the same run.\n")
    return head + "\n" + table("Enumerated scenarios per second",
                               ["implementation", "checked", "scenarios", "seconds",
                                "per second", "per CPU-second", "ratio"],
                               rows, [16, 12, 10, 10, 12, 14, 8])
