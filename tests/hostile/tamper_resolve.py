"""Hostile: ``mean`` always raises, and at import the package replaces the sandbox child's
request resolver so that every request runs on an honest reference_impl instead.

Without the child's tripwire (conformance.integrity) this put a genuine "MUST 93/93" on disk for
a namespace whose ``mean`` cannot work.
"""

import sys
from typing import Any

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean always raises; the child's _resolve runs every request on reference_impl",
        (Mutation("_functions.py", MEAN, '    raise RuntimeError("this mean never works")\n'),))

_child = sys.modules.get("conformance._child")
if _child is not None:
    from conformance.adapter import load_adapter

    _honest = load_adapter("reference_impl", "the hostile package")
    _real = _child._resolve

    def _forged(target: str) -> Any:
        function = _real(target)
        return lambda adapter, *args: function(_honest, *args)

    _child._resolve = _forged
