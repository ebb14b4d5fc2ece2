"""The conformance suite: drive any torch-like namespace, compare with the model, certify.

From Python: :func:`certify` runs the suite on an implementation and returns its
:class:`Certificate`; :func:`load_certificate` reads one; :func:`quick_check` runs the shipped
scenarios in this process.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # what the names below are, for type checkers
    from .report.api import Certificate, CertifyError, FailureReport, RuleResult, certify, load_certificate
    from .tools.quick import quick_check

from .version import __version__

__all__ = ["Certificate", "CertifyError", "FailureReport", "RuleResult", "__version__", "certify",
           "load_certificate", "quick_check"]

_API = {"Certificate", "CertifyError", "FailureReport", "RuleResult", "certify", "load_certificate"}


def __getattr__(name: str) -> Any:
    # Imported on first use: the pytest plugin imports this package and needs none of it.
    if name in _API:
        from .report import api
        return getattr(api, name)
    if name == "quick_check":
        from .tools.quick import quick_check
        return quick_check
    raise AttributeError(f"module 'conformance' has no attribute {name!r}")
