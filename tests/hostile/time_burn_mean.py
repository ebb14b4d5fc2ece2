"""Hostile (time limits): ``mean`` is merely slow, and busy: a CPU-bound slow call.

The first call of ``mean`` in a process computes for 2.5 s of its own CPU time (longer than a
scenario's 2 s time limit, within the limit of its re-run), as a starved or slow machine makes
a correct implementation do; every call after it is reference_impl's. Unlike a sleep, it uses
the CPU all along, so the child's CPU time cannot tell it from a loop: only the re-run can.
A fresh process computes again on its first call. It must fail no rule.
"""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean computes for 2.5 s of CPU time on its first call in a process", (
    Mutation("_functions.py", MEAN,
             '    if not getattr(mean, "slowed", False):\n'
             '        mean.slowed = True\n'
             '        import time\n'
             '        start = time.process_time()\n'
             '        while time.process_time() - start < 2.5:\n'
             '            pass\n' + MEAN),))
