"""Mutant: enabling the mode that is already current raises instead of doing nothing."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ENABLE_002"
BUG = "enable_torch_function_mode(m) raises 'already an active mode' when m itself is current"

MUTATIONS = (
    # Only None-over-None stays a no-op (the metaclass wrapper relies on it).
    Mutation("overrides.py", "    if old is mode:\n", "    if old is None and mode is None:\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
