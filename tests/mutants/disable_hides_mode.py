"""Mutant: DisableTorchFunction also switches the mode off."""

from tests.mutants._build import Mutation, install

RULE = "TFM_DISABLE_002"
BUG = "inside DisableTorchFunction native dispatch ignores the current mode"

MUTATIONS = (
    Mutation("_dispatch.py", "    mode = tls.mode\n",
             "    mode = tls.mode if tls.enabled else None\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
