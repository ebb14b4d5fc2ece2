"""Hostile: ``mean`` sends SIGTERM to the suite's process, then raises (so any pass would be a
lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean sends SIGTERM to the suite's process", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).terminate_parent()\n'
    '    raise ValueError("hostile")\n'),))
