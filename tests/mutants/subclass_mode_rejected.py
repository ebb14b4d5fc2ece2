"""Mutant: enable_torch_function_mode rejects a Tensor subclass as the mode."""

from tests.mutants._build import Mutation, install

RULE = "TFM_SUBMODE_001"
BUG = "enable_torch_function_mode(TensorSubclass) raises 'expected to get TorchFunctionMode ...'"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "        or (isinstance(mode, type) and not issubclass(mode, TorchFunctionMode))\n",
        "",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
