"""Mutant: push_torch_function_mode does not reject a mode instance."""

from tests.mutants._build import Mutation, install

RULE = "TFM_PUSH_005"
BUG = "push_torch_function_mode(instance) is not rejected with the ValueError"

MUTATIONS = (
    Mutation("overrides.py", "    if isinstance(ctor, TorchFunctionMode):\n",
             "    if False:\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
