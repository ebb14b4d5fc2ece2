"""Mutant: the factory ``ones`` computes directly, without dispatch."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REACH_004"
BUG = "ones() never reaches the mode (it calls its kernel without dispatching)"

MUTATIONS = (
    Mutation("_functions.py",
             "    return dispatch(ones, \"reference_impl.ones\", _ones_kernel, args, kwargs)\n",
             "    return _ones_kernel(*args, **kwargs)\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
