"""Mutant: under a mode, has_torch_function of an empty sequence is True (a SHOULD-only bug)."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REACH_002"
BUG = "has_torch_function(()) returns True under a mode (the mode shortcut skips the per-element loop)"

MUTATIONS = (
    # iter() still refuses a non-iterable (TFM_REACH_008, a MUST): the bug stays SHOULD-only.
    Mutation("_C.py", "        return any(True for _ in relevant_args)\n",
             "        iter(relevant_args)\n        return True\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
