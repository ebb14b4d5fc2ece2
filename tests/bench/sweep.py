"""Generated scenarios per second of ``conformance.search.sweep.run_sweep``, and where the time goes.

The sweep runs under the ``thorough`` hypothesis profile (only ``max_examples`` is lowered to
keep the benchmark short). The parts of ``conformance.judge.check.check`` are wrapped with timers:
model prediction (``predict``), execution on reference_impl (``execute``), judging
(``conclude``: the one comparison pass, attribution, excusal and description). What remains of
the wall time is hypothesis: drawing each scenario from
``conformance.generate.strategies.scenarios`` plus the engine's own book-keeping (choice sequences,
the data tree, mutations).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from tests.bench.rst import table

PARTS = ("predict", "execute", "judge")


@dataclass
class SweepResult:
    profile: str
    examples: int
    unspecified: int
    errors: int
    failures: int
    seconds: float
    parts: dict[str, float] = field(default_factory=dict)
    generation_only: float = 0.0  # seconds for the same number of scenarios, drawn and dropped
    choices: float = 0.0  # hypothesis choices (integers, booleans, ...) per scenario, on average
    floor: float = 0.0  # seconds for as many examples of a plain tuple of that many integers

    @property
    def rate(self) -> float:
        return self.examples / self.seconds

    @property
    def hypothesis(self) -> float:
        return self.seconds - sum(self.parts.values())


@contextmanager
def _timed(module: Any, name: str, key: str, totals: dict[str, float]) -> Iterator[None]:
    original = getattr(module, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        started = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            totals[key] += time.perf_counter() - started

    setattr(module, name, wrapper)
    try:
        yield
    finally:
        setattr(module, name, original)


def run(examples: int = 2000, profile: str = "thorough") -> SweepResult:
    from hypothesis import settings

    from conformance.adapter import load_adapter
    from conformance.judge import check as check_module
    from conformance.search.sweep import run_sweep
    from conformance.session import profiles

    profiles.register()
    settings.load_profile(profile)  # the benchmark is a script: the profile stays loaded
    adapter = load_adapter("reference_impl")
    run_sweep(adapter, adapter.generation, max_examples=20)  # warm-up: imports, caches
    totals = dict.fromkeys(PARTS, 0.0)
    with (_timed(check_module, "predict", "predict", totals),
          _timed(check_module, "execute", "execute", totals),
          _timed(check_module, "conclude", "judge", totals)):
        started = time.perf_counter()
        sweep = run_sweep(adapter, adapter.generation, max_examples=examples)
        seconds = time.perf_counter() - started
    generation, choices = _generation_only(adapter, examples)
    floor = _floor(round(choices), examples)
    failures = sum(len(r.failures) for r in sweep.rules.values())
    return SweepResult(profile, sweep.examples, sweep.unspecified, len(sweep.errors), failures,
                       seconds, totals, generation, choices, floor)


def _choices_so_far() -> int:
    """How many choices the example being generated has made (hypothesis internals)."""
    try:
        from hypothesis.control import current_build_context

        return len(current_build_context().data.choices)
    except Exception:  # an internal API: no figure rather than no benchmark
        return 0


def _generation_only(adapter: Any, examples: int) -> tuple[float, float]:
    """Seconds hypothesis takes to draw ``examples`` scenarios for a test that does nothing,
    and the choices a scenario takes on average."""
    from hypothesis import Phase, given, settings

    from conformance.generate.strategies import scenarios

    counts: list[int] = []

    @settings(settings(), max_examples=examples, database=None, phases=(Phase.generate,))
    @given(scenarios(adapter.generation, adapter.features))
    def drop(scenario: object) -> None:
        counts.append(_choices_so_far())

    started = time.perf_counter()
    drop()
    return time.perf_counter() - started, sum(counts) / max(1, len(counts))


def _floor(choices: int, examples: int) -> float:
    """Seconds hypothesis takes for ``examples`` examples of ``choices`` integers in a tuple:
    the engine's own cost for that many choices, whatever the strategy."""
    from hypothesis import Phase, given, settings
    from hypothesis import strategies as st

    @settings(settings(), max_examples=examples, database=None, phases=(Phase.generate,))
    @given(st.tuples(*[st.integers(0, 9)] * max(1, choices)))
    def drop(value: object) -> None:
        del value

    started = time.perf_counter()
    drop()
    return time.perf_counter() - started


def render(result: SweepResult) -> str:
    total = result.seconds
    n = result.examples

    def row(label: str, seconds: float) -> list[str]:
        return [label, f"{seconds:.2f}", f"{1e3 * seconds / n:.3f}", f"{100 * seconds / total:.1f}%"]

    rows = [
        row("hypothesis: drawing scenarios and the engine's book-keeping", result.hypothesis),
        row("model prediction (``spec.model.predict``)", result.parts["predict"]),
        row("execution on reference_impl (``conformance.target.runner.execute``)",
            result.parts["execute"]),
        row("judging (``conformance.judge.check.conclude``: one comparison pass)", result.parts["judge"]),
        row("whole sweep", total),
    ]
    head = (f"``run_sweep`` under the ``{result.profile}`` profile: {n} scenarios in "
            f"{total:.2f} s, **{result.rate:.0f} scenarios/s** ({result.unspecified} "
            f"unspecified, {result.errors} errors, {result.failures} failures recorded). "
            f"Drawing the same number of scenarios for a test that does nothing takes "
            f"{result.generation_only:.2f} s ({n / result.generation_only:.0f} scenarios/s): "
            "that is the ceiling hypothesis sets. A scenario takes "
            f"{result.choices:.1f} choices on average; {n} examples of a plain tuple of "
            f"{round(result.choices)} integers take {result.floor:.2f} s "
            f"({n / result.floor:.0f}/s, {1e6 * result.floor / n / max(1.0, result.choices):.0f} "
            "µs per choice): the engine's own cost for that many choices.\n")
    return head + "\n" + table("Where a sweep's time goes",
                               ["part", "seconds", "ms per scenario", "share"], rows,
                               [50, 10, 12, 10])
