"""Mutant: the metaclass wrapper runs the handler without making ``self.inner`` current."""

from tests.mutants._build import Mutation, install

RULE = "TFM_REENTRY_004"
BUG = "the TorchFunctionModeMeta wrapper does not install self.inner while the handler runs"

MUTATIONS = (
    Mutation(
        "overrides.py",
        "        inner = self.inner\n"
        "        tls = _tls.state\n",
        "        return handler(self, *args, **kwargs)\n"
        "        inner = self.inner\n"
        "        tls = _tls.state\n",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
