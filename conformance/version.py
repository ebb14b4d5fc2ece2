"""The suite's version and where its package lives: what the certificate, the evidence and the
child processes the suite starts need of the package, without importing the package itself
(whose ``__init__`` re-exports the Python API, which imports them)."""

from __future__ import annotations

from pathlib import Path

__version__ = "0.1.0"
#: The directory of the installed ``conformance`` package.
PACKAGE_DIR = Path(__file__).resolve().parent
