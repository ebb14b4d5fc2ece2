"""Mutant: push_torch_function_mode restores the previous mode only on a normal exit."""

from tests.mutants._build import Mutation, install

RULE = "TFM_PUSH_003"
BUG = "push_torch_function_mode leaves its mode current when the block raises"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.\n"
        "        _set_torch_function_mode(self._old)\n",
        "        if exc_info[0] is None:\n"
        "            _set_torch_function_mode(self._old)\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
