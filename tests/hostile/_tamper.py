"""What the ``tamper_*`` implementations share: the forgery of the sandbox child's resolver."""

from __future__ import annotations

import sys
from typing import Any

_done: list[bool] = []


def forge_resolver() -> None:
    """Replace ``conformance.sandbox._child._resolve`` (once) so that every later request runs on an
    honest reference_impl instead of the implementation under test."""
    child = sys.modules.get("conformance.sandbox._child")
    if child is None or _done:
        return
    _done.append(True)
    from conformance.adapter import load_adapter

    honest = load_adapter("reference_impl", "the hostile package")
    real = child._resolve

    def forged(target: str) -> Any:
        function = real(target)
        return lambda adapter, *args: function(honest, *args)

    child._resolve = forged
