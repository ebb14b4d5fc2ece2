"""Hostile: add raises, inside the suite's keyword check only (test_contract's _checked_add), an
exception whose ``rules`` name TFM_STACK_001, a rule of the other generation: it tries to move
the failure of TFM_PUSH_009 onto a rule that cannot fail here. mean raises (with rules too)."""

from tests.hostile._base import ADD, CALL, mean_raises
from tests.mutants._build import Mutation, install

install(__name__, "-", "exceptions name another rule", (
    mean_raises('    _e = ValueError("mean is broken"); _e.rules = ("TFM_STACK_001",)\n', "_e"),
    Mutation("_functions.py", ADD, CALL.format("blame_elsewhere") + ADD),
))
