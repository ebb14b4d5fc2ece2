"""Hostile: the first ``mean`` starts 16 sleeping processes (plain children, detached ones, and
detached ones without an environment); ``mean`` raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean starts 16 processes that sleep for an hour", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).fork_many()\n'
    '    raise ValueError("hostile")\n'),))
