"""Mutant: only top-level positional arguments are scanned for overloaded arguments."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ORDER_006"
BUG = "native dispatch collects no tensors from keyword arguments or inside lists/tuples"

MUTATIONS = (
    Mutation("_dispatch.py", "        for arg in (*args, *kwargs.values()) if kwargs else args:\n",
             "        for arg in args:\n"),
    Mutation("_dispatch.py",
             "            for item in arg if isinstance(arg, _SEQUENCE_TYPES) else (arg,):\n",
             "            for item in (arg,):\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
