"""Hostile: the first ``mean`` starts a double-forked, ``setsid`` grandchild that waits until the
suite's process has exited, then rewrites certificate.json and badge.json with a pass; ``mean``
raises (so any pass would be a lie)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "a detached grandchild rewrites the reports with a pass after the run", (Mutation(
    "_functions.py", MEAN,
    '    __import__("tests.hostile._proc", fromlist=["_proc"]).forge_reports()\n'
    '    raise ValueError("hostile")\n'),))
