"""Hostile: mean a double-forked setsid grandchild waits until the suite has exited and rewrites certificate.json and badge.json with a pass, then raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean a double-forked setsid grandchild waits until the suite has exited and rewrites certificate.json and badge.json with a pass", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).forge_reports()\n'
    '    raise ValueError("hostile")\n'),))
