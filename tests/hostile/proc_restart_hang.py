"""Hostile: mean crashes on its first mean; the import after that crash hangs, then raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install
from tests.hostile._proc import hang_after_crash

hang_after_crash()

install(__name__, "-", "mean crashes on its first mean; the import after that crash hangs", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).crash_once()\n'
    '    raise ValueError("hostile")\n'),))
