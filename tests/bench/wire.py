"""The sandbox's round trip per scenario: ``python -m tests.bench.wire [REPEATS]``.

Runs the example scenarios of reference_impl's generation in this process (the runner alone)
and through the sandbox (the request, the run in the child, the reply decoded and checked
here), and prints the mean time of each and their difference: what the pipe and its codec
cost per scenario. A script, not a test: timings belong in benchmarks.
"""

from __future__ import annotations

import sys
import time

from conformance.adapter import load_adapter
from conformance.judge.check import observe
from conformance.sandbox.parent import SandboxedImplementation
from conformance.target.runner import execute
from spec.examples import load_examples


def main(argv: list[str]) -> int:
    repeats = int(argv[0]) if argv else 5
    adapter = load_adapter("reference_impl")
    scenarios = [e.scenario for e in load_examples() if e.scenario.generation == adapter.generation]
    sandboxed = SandboxedImplementation("reference_impl")
    try:
        for s in scenarios:  # warm both sides up
            observe(s, sandboxed, 10.0)
            execute(s, adapter)
            adapter.reset()
        best_here, best_there = float("inf"), float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for s in scenarios:
                execute(s, adapter)
                adapter.reset()
            best_here = min(best_here, (time.perf_counter() - start) / len(scenarios))
            start = time.perf_counter()
            for s in scenarios:
                observe(s, sandboxed, 10.0)
            best_there = min(best_there, (time.perf_counter() - start) / len(scenarios))
    finally:
        sandboxed.close()
    print(f"{len(scenarios)} scenarios, best of {repeats}: in process {best_here * 1e3:.3f} ms, "
          f"through the sandbox {best_there * 1e3:.3f} ms, round trip "
          f"{(best_there - best_here) * 1e3:.3f} ms per scenario")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
