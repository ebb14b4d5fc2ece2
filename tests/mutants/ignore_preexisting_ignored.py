"""Mutant: enable_torch_function_mode ignores ``ignore_preexisting=True``."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ENABLE_007"
BUG = "enable_torch_function_mode(m, ignore_preexisting=True) still raises over another mode"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "    if old is not None and not ignore_preexisting and old is not replace:\n",
        "    if old is not None and old is not replace:\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
