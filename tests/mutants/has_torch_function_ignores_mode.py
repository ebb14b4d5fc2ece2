"""Mutant: has_torch_function ignores the current mode."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REACH_001"
BUG = "has_torch_function* return False for plain tensors and non-tensors under a mode"

MUTATIONS = (
    Mutation(
        "_C.py",
        "    if _tls.state.mode is not None:\n"
        "        return any(True for _ in relevant_args)\n",
        "",
    ),
    Mutation("_C.py", "    return _tls.state.mode is not None or _is_overloadable(obj)\n",
             "    return _is_overloadable(obj)\n"),
)

install(__name__, RULE, BUG, MUTATIONS)
