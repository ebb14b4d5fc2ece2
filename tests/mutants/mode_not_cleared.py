"""Mutant: the current mode stays in the slot while its own handler runs."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REENTRY_001"
BUG = "native dispatch does not clear the mode slot while the mode's handler runs"

MUTATIONS = (
    Mutation("_dispatch.py", "        tls.mode = None\n        try:\n", "        try:\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
