"""Where the model stops: scenarios it bounds or that no rule specifies (a generator rejects them)."""

from __future__ import annotations


class Unbounded(Exception):
    """The scenario recurses past the model's depth bound (a generator rejects it)."""


class Unspecified(Exception):
    """The scenario reaches behaviour that no rule specifies (a generator rejects it)."""
