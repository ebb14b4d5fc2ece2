"""A function the sweep writes in Python and decorates with the namespace's own
``overrides.wrap_torch_function`` (feature wrap-torch-function), in the implementation's sandbox.

The decorated function is checked as a listed callable is (:mod:`.probe`): under a mode its
handler runs once with the decorated function itself as ``func`` (TFM_ARGS_001) and the
arguments as written, and what it answers is the call's value; a duck-typed argument is
dispatched on; ``NotImplemented`` falls through; ``DisableTorchFunction`` turns it off. The
undecorated body calls nothing of the implementation, so a decorator that forgets to dispatch
shows as a call that reaches no handler (TFM_REACH_009).
"""

from __future__ import annotations

from typing import Any

from .listing import Listed

__all__ = ["NAME", "wrapped_entry"]

#: The name the certificate's surface table shows it under.
NAME = "overrides.wrap_torch_function(f)"


class Body:
    """What the undecorated function returns: a value no handler answers."""

    def __init__(self, input: Any, scale: Any) -> None:
        self.input, self.scale = input, scale

    def __repr__(self) -> str:
        return "<the undecorated body's value>"


def _dispatcher(input: Any, scale: Any = 2) -> tuple[Any, ...]:
    return (input,)


def _f(input: Any, scale: Any = 2) -> Body:
    return Body(input, scale)


def wrapped_entry(adapter: Any) -> Listed | None:
    """The decorated function as a listed callable; ``None`` without the feature."""
    ns = getattr(adapter, "ns", None)
    if ns is None or "wrap-torch-function" not in getattr(adapter, "features", ()):
        return None
    decorate = ns.overrides.wrap_torch_function
    return Listed(NAME, decorate(_dispatcher)(_f), None)
