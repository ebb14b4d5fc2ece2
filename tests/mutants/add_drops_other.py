"""Mutant: ``add`` drops its second positional argument from what the handlers receive.

The kernel still gets every argument (a call nobody overrides computes as before); only the
``args`` handed to the mode and to the overloaded arguments' handlers lose ``other``.
"""

from tests.mutants._build import Mutation, install

RULE = "TFM_ARGS_002"
BUG = "add hands its handlers args without the second positional argument"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n"
        "    if qualname == \"reference_impl.add\" and len(args) == 2:\n"
        "        args = args[:1]\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
