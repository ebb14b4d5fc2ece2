"""Timing helpers: timeit with a warm-up and several repeats, min and median; a line fit."""

from __future__ import annotations

import statistics
import time
import timeit
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Timing:
    """Seconds per call of one statement: the minimum and the median over the repeats."""

    best: float
    median: float
    number: int
    repeat: int

    @property
    def best_us(self) -> float:
        return self.best * 1e6

    @property
    def median_us(self) -> float:
        return self.median * 1e6


#: The clocks a measurement can use: the calling thread's CPU time (the default: on a shared
#: machine it leaves out the time other processes hold the CPU) or wall time.
CLOCKS = {"thread": time.thread_time, "wall": time.perf_counter}
clock = "thread"


def _calibrated(stmt: str, namespace: dict[str, Any], target: float) -> tuple[timeit.Timer, int]:
    """A timer for ``stmt`` and the loop count that makes one repeat last about ``target`` s."""
    timer = timeit.Timer(stmt, timer=CLOCKS[clock], globals=namespace)
    number = 1
    while True:  # like Timer.autorange, but towards ``target`` seconds
        elapsed = timer.timeit(number)
        if elapsed >= target / 5 or number >= 10_000_000:
            break
        number *= 10
    return timer, max(1, int(number * target / max(elapsed, 1e-9)))


def measure(*statements: tuple[str, dict[str, Any]], repeat: int = 7,
            target: float = 0.05) -> list[Timing]:
    """Time each ``(statement, namespace)`` per call, with timeit and the chosen ``clock``.

    Each statement's loop count makes one repeat last about ``target`` seconds; every
    statement gets a warm-up of that many calls, then the repeats run interleaved (a repeat
    of each statement in turn), so that statements compared with each other see the same
    conditions of a shared machine. The minimum of the repeats is the figure to compare.
    """
    timers = [_calibrated(stmt, namespace, target) for stmt, namespace in statements]
    for timer, number in timers:
        timer.timeit(number)  # warm-up
    runs: list[list[float]] = [[] for _ in timers]
    for _ in range(repeat):
        for (timer, number), seconds in zip(timers, runs, strict=True):
            seconds.append(timer.timeit(number) / number)
    return [Timing(min(r), statistics.median(r), number, repeat)
            for r, (_, number) in zip(runs, timers, strict=True)]


@dataclass(frozen=True)
class Line:
    """A least-squares line ``y = intercept + slope * x`` and its coefficient of determination."""

    slope: float
    intercept: float
    r_squared: float


def fit_line(xs: list[float], ys: list[float]) -> Line:
    """Ordinary least squares of ys on xs (at least two distinct xs)."""
    n = len(xs)
    mean_x, mean_y = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mean_x) ** 2 for x in xs)
    sxy = sum((x - mean_x) * (y - mean_y) for x, y in zip(xs, ys, strict=True))
    slope = sxy / sxx
    intercept = mean_y - slope * mean_x
    ss_tot = sum((y - mean_y) ** 2 for y in ys)
    ss_res = sum((y - intercept - slope * x) ** 2 for x, y in zip(xs, ys, strict=True))
    return Line(slope, intercept, 1.0 - ss_res / ss_tot if ss_tot else 1.0)
