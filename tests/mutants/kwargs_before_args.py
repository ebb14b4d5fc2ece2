"""Mutant: keyword arguments are scanned before the positional ones."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ORDER_004"
BUG = "native dispatch collects keyword-argument tensors before positional ones"

MUTATIONS = (
    Mutation("_dispatch.py", "        for arg in (*args, *kwargs.values()) if kwargs else args:\n",
             "        for arg in (*kwargs.values(), *args) if kwargs else args:\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
