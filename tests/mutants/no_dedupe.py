"""Mutant: every argument is an overloaded argument, so a type can be tried twice."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ORDER_005"
BUG = "_append_overloaded_arg does not skip a type already collected"

MUTATIONS = (
    Mutation(
        "_C.py",
        "    for existing in overloaded:\n"
        "        if type(existing) is tp:\n"
        "            return\n",
        "",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
