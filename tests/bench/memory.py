"""Resident memory over many dispatches through five nested modes (reference_impl).

The dispatches run in a fresh interpreter (``python -m tests.bench.memory CALLS``), so that
nothing else the benchmark loaded (torch) is in the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from tests.bench.rst import table

_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def rss_bytes() -> int:
    """The resident set size now, from /proc/self/statm (falls back to ru_maxrss)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * _PAGE
    except OSError:
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


@dataclass
class MemoryResult:
    calls: int
    depth: int
    samples: list[tuple[int, int]]  # (calls made, RSS bytes)
    seconds: float

    @property
    def start(self) -> int:
        return self.samples[0][1]

    @property
    def end(self) -> int:
        return self.samples[-1][1]

    @property
    def max_drift(self) -> int:
        return max(rss for _, rss in self.samples) - self.start


def run(calls: int = 1_000_000) -> MemoryResult:
    """Measure in a fresh interpreter."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(root), *filter(None, [os.environ.get("PYTHONPATH")])]))
    proc = subprocess.run([sys.executable, "-m", "tests.bench.memory", str(calls)], cwd=root,
                          env=env, capture_output=True, text=True, check=True)
    return MemoryResult(**json.loads(proc.stdout))


def measure(calls: int = 1_000_000, depth: int = 5, interval: int = 50_000) -> MemoryResult:
    """Dispatch ``calls`` times through ``depth`` modes here, sampling RSS every ``interval``."""
    import reference_impl as ri
    from tests.bench.dispatch import Reference

    backend = Reference()
    add, x, y = ri.add, ri.tensor([1.0, 2.0]), ri.tensor([3.0, 4.0])
    samples: list[tuple[int, int]] = []
    with backend.modes(depth):
        for _ in range(10_000):  # warm-up: the first calls allocate the interpreter's caches
            add(x, y)
        samples.append((0, rss_bytes()))
        started = time.perf_counter()
        done = 0
        while done < calls:
            for _ in range(min(interval, calls - done)):
                add(x, y)
            done += min(interval, calls - done)
            samples.append((done, rss_bytes()))
        seconds = time.perf_counter() - started
    return MemoryResult(calls, depth, samples, seconds)


def render(result: MemoryResult) -> str:
    mib = 1024 * 1024
    rows = [
        ["dispatches", f"{result.calls:,} of ``add(x, y)`` through {result.depth} nested modes "
                       f"({result.seconds:.1f} s)"],
        ["RSS at the start (after 10,000 warm-up calls)", f"{result.start / mib:.2f} MiB"],
        ["RSS at the end", f"{result.end / mib:.2f} MiB"],
        ["largest drift above the start", f"{result.max_drift / 1024:.0f} KiB "
                                          f"({len(result.samples)} samples)"],
        ["end minus start", f"{(result.end - result.start) / 1024:.0f} KiB"],
    ]
    return table("Resident memory (/proc/self/statm) of reference_impl", ["measure", "value"],
                 rows, [40, 40])


if __name__ == "__main__":
    result = measure(int(sys.argv[1]) if len(sys.argv) > 1 else 1_000_000)
    print(json.dumps(asdict(result)))
