"""Mutant: constructing a TorchFunctionMode without ``inner`` is not an error."""

from tests.mutants._build import Mutation, install

RULE = "TFM_PUSH_007"
BUG = "the metaclass __init__ wrapper accepts a missing inner keyword (no TypeError)"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "        if inner is _UNDEFINED:\n"
        "            raise TypeError(_MISSING_INNER_MESSAGE)\n",
        "",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
