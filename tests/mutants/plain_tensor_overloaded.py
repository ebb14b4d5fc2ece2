"""Mutant: native dispatch collects exact Tensor arguments as overloaded arguments."""

from tests.mutants._build import Mutation, install

RULE = "TFM_TYPES_003"
BUG = "native dispatch does not skip exact Tensors, so plain tensors put Tensor in types"

MUTATIONS = (
    Mutation("_dispatch.py", "        tensor_class = _C._tensor_class\n",
             "        tensor_class = None\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
