"""Mutant: push_torch_function_mode restores the previous mode only on a normal exit."""

from tests.mutants._build import Mutation, install

RULE = "TFM_PUSH_003"
BUG = "push_torch_function_mode leaves its mode current when the block raises"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "    try:\n"
        "        yield mode\n"
        "    finally:\n"
        "        _set_torch_function_mode(old)\n",
        "    yield mode\n"
        "    _set_torch_function_mode(old)\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
