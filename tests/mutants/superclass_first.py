"""Mutant: NEP-18 insertion is inverted, so superclasses are tried before their subclasses."""

from tests.mutants._build import Mutation, install

RULE = "TFM_ORDER_003"
BUG = "_append_overloaded_arg places a type before its subclasses instead of after them"

MUTATIONS = (
    Mutation("_C.py", "        if issubclass(tp, type(existing)):\n",
             "        if issubclass(type(existing), tp):\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
