"""The adapter contract at its documented path: ``conformance.adapter`` re-exports
:mod:`conformance.target.adapter` (where the suite's own modules import it from), so that the
adapters users write, ``--impl MODULE:CLASS`` and the reproduction scripts keep working.
"""

from __future__ import annotations

from .target.adapter import (
    FEATURES,
    OPTIONAL_MEMBERS,
    REQUIRED_EVERYWHERE,
    REQUIRED_STACK,
    Adapter,
    AdapterError,
    NamespaceAdapter,
    features_needed,
    load_adapter,
    put_impl_path,
    release_of,
)

__all__ = ["FEATURES", "OPTIONAL_MEMBERS", "REQUIRED_EVERYWHERE", "REQUIRED_STACK", "Adapter",
           "AdapterError", "NamespaceAdapter", "features_needed", "load_adapter", "put_impl_path",
           "release_of"]
