"""Mutant: the mode slot (and the enabled flag) is a process global, not per thread."""

from tests.mutants._build import Mutation, install

RULE = "TFM_THREAD_001"
BUG = "the mode slot is shared by all threads (no threading.local)"

MUTATIONS = (
    Mutation("_C.py", "class _TorchFunctionTLS(threading.local):\n",
             "class _TorchFunctionTLS:\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
