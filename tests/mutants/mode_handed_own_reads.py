"""Mutant: before a function written in Python reaches the mode, the implementation reads its
first argument's data through the mode (``Tensor.tolist``), as a tracer reading a tensor's
metadata would: the mode is handed a call the program never made."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REACH_010"
BUG = "handle_torch_function hands the mode Tensor.tolist of its first tensor argument first"

MUTATIONS = (
    Mutation("overrides.py",
             "            result = mode.__torch_function__(public_api, types, args, kwargs)\n",
             "            if args and isinstance(args[0], Tensor):\n"
             "                mode.__torch_function__(Tensor.tolist, types, (args[0],), {})\n"
             "            result = mode.__torch_function__(public_api, types, args, kwargs)\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
