"""Mutant: the native TypeError's text is worded differently."""

from tests.mutants._build import Mutation, install

RULE = "TFM_TEXT_007"
BUG = "native TypeError says 'types implementing' instead of 'types that implement'"

MUTATIONS = (
    Mutation("_dispatch.py", "\"' on types that implement __torch_function__: [\"",
             "\"' on types implementing __torch_function__: [\""),
)

install(__name__, RULE, BUG, MUTATIONS)
