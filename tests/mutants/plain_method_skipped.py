"""Mutant: a plain-method ``__torch_function__`` is skipped instead of warned about and called."""

from tests.mutants._build import Mutation, install

RULE = "TFM_SELF_001"
BUG = "native dispatch skips an argument whose __torch_function__ is a plain method"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "if getattr(handler, \"__self__\", None) is arg and handler is not disabled:\n"
        "                plain_methods += 1\n",
        "if getattr(handler, \"__self__\", None) is arg and handler is not disabled:\n"
        "                continue\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
