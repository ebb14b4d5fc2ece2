"""Hostile (time limits): ``mean`` is merely slow, not hung.

The first call of ``mean`` in a process sleeps 3 s (longer than a scenario's 2 s time limit,
within the limit of its re-run), as a slow machine or a slow first call (torch's first call
loads code) would make it; every call after it is reference_impl's. A fresh process sleeps
again on its first call. A correct implementation that is only slow must fail no rule.
"""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean sleeps 3 s on its first call in a process", (Mutation(
    "_functions.py", MEAN,
    '    if not getattr(mean, "slowed", False):\n'
    '        mean.slowed = True\n'
    '        import time\n'
    '        time.sleep(3.0)\n' + MEAN),))
