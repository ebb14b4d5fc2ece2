"""Hostile: the first three calls of ``mean`` send SIGSTOP to the suite's process; ``mean``
raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean stops the suite's process", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).stop_parent()\n'
    '    raise ValueError("hostile")\n'),))
