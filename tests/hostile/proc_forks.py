"""Hostile: mean starts 16 sleeping processes, plain, detached and detached without an environment, then raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean starts 16 sleeping processes, plain, detached and detached without an environment", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).fork_many()\n'
    '    raise ValueError("hostile")\n'),))
