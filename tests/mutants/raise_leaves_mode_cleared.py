"""Mutant: when the mode's handler raises, native dispatch does not put the mode back."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REENTRY_003"
BUG = "native dispatch restores the mode slot only when the mode's handler returns"

MUTATIONS = (
    Mutation(
        "_dispatch.py",
        "        finally:\n"
        "            tls.mode = mode\n",
        "        except BaseException:\n"
        "            raise\n"
        "        tls.mode = mode\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
