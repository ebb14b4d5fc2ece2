"""Mutant: a mode's NotImplemented ends the dispatch instead of falling through."""

from tests.mutants._build import Mutation, install

RULE = "TFM_NOTIMPL_001"
BUG = "native dispatch raises TypeError when the mode returns NotImplemented, skipping subclasses"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "            tls.mode = mode\n"
        "        if result is not NotImplemented:\n"
        "            return result\n",
        "            tls.mode = mode\n"
        "        if result is not NotImplemented:\n"
        "            return result\n"
        "        overloaded = []\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
