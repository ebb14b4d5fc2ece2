"""Mutant: native dispatch appends the mode's type to ``types``."""

from tests.mutants._build import Mutation, install

RULE = "TFM_TYPES_002"
BUG = "native dispatch includes type(mode) in types when a mode instance is current"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n"
        "    if tls.mode is not None and not isinstance(tls.mode, type):\n"
        "        types += (type(tls.mode),)\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
