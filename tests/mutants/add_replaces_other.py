"""Mutant: ``add`` hands its handlers a copy of its second positional argument.

When the second positional argument is a plain tensor, the mode and the overloaded arguments'
handlers receive ``args == (input, copy)``: equal data, but not the object the caller passed
(TFM_ARGS_002: arguments untouched). A call nobody overrides computes as before, and a handler
that forwards computes the same value, so only a comparison of the arguments sees the bug.
"""

from tests.mutants._build import Mutation, install

RULE = "TFM_ARGS_002"
BUG = "add hands its handlers a copy of its second positional argument instead of the tensor itself"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n",
        "    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()\n"
        "    if qualname == \"reference_impl.add\" and len(args) == 2 and (\n"
        "            type(args[1]) is _C._tensor_class):\n"
        "        copy = _C._tensor_class.__new__(_C._tensor_class)\n"
        "        copy._data = list(args[1]._data)\n"
        "        args = (args[0], copy)\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
