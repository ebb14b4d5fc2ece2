"""Hostile: ``mean`` always raises, and at import the package replaces the sandbox child's
request resolver so that every request runs on an honest reference_impl instead.

Without the child's tripwire (conformance.sandbox.integrity) this put a genuine "MUST 93/93" on disk for
a namespace whose ``mean`` cannot work.
"""

from tests.hostile._base import mean_raises
from tests.hostile._tamper import forge_resolver
from tests.mutants._build import install

install(__name__, "-", "mean always raises; the child's _resolve runs every request on reference_impl",
        (mean_raises(),))
forge_resolver()
