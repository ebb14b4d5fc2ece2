"""Mutant: native handlers receive ``kwargs={}`` instead of no fourth argument."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ARGS_003"
BUG = "native dispatch always passes kwargs as a dict (never None) to mode and subclass handlers"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "            if kwargs:\n"
        "                result = mode.__torch_function__(func, types, args, kwargs)\n"
        "            else:\n"
        "                result = mode.__torch_function__(func, types, args)\n",
        "            result = mode.__torch_function__(func, types, args, kwargs)\n",
    ),
    Mutation(
        "_dispatch.py",
        "result = handler(func, types, args, kwargs) if kwargs else handler(func, types, args)",
        "result = handler(func, types, args, kwargs)",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
