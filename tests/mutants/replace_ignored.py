"""Mutant: enable_torch_function_mode ignores ``replace=``."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ENABLE_005"
BUG = "enable_torch_function_mode(m, replace=<current>) still raises 'already an active mode'"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "    if old is not None and not ignore_preexisting and old is not replace:\n",
        "    if old is not None and not ignore_preexisting:\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
