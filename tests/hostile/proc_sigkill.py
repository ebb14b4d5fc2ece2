"""Hostile: the first ``mean`` leaves two detached sleeping processes, then sends SIGKILL to the
suite's process (which no process can survive); ``mean`` raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean kills the suite's process after starting two detached processes", (
    Mutation("_functions.py", MEAN,
             '    __import__("tests.hostile._proc", fromlist=["_proc"]).kill_parent()\n'
             '    raise ValueError("hostile")\n'),))
