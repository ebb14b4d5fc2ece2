"""Mutant: the native plain-method UserWarning is issued before the handler runs, not after."""

from tests.mutants._build import Mutation, install

RULE = "TFM_SELF_002"
BUG = "native dispatch warns about a plain-method handler before calling it, not when the call is over"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "if getattr(handler, \"__self__\", None) is arg and handler is not disabled:\n"
        "                plain_methods += 1\n",
        "if getattr(handler, \"__self__\", None) is arg and handler is not disabled:\n"
        "                warnings.warn(PLAIN_METHOD_WARNING, UserWarning, stacklevel=3)\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
