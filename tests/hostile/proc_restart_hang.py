"""Hostile: the first ``mean`` crashes the process; the import that restarts the implementation
after that crash hangs (once); ``mean`` raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.hostile._proc import hang_after_crash
from tests.mutants._build import Mutation, install

hang_after_crash()

install(__name__, "-", "mean crashes once, and the import after the crash hangs", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).crash_once()\n'
    '    raise ValueError("hostile")\n'),))
