"""``wrap_torch_function``: a decorator that makes a function written in Python dispatch.

``wrap_torch_function(dispatcher)(f)`` is a function of ``f``'s parameters that asks
``dispatcher`` (called with the same arguments) which of them to dispatch on; when any of those
has a handler, or a mode is current, the call goes to ``handle_torch_function`` with the
decorated function itself as the public callable, and otherwise ``f`` computes it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["wrap_torch_function"]


def wrap_torch_function(
    dispatcher: Callable[..., Iterable[Any]],
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """The decorator for functions whose dispatch arguments ``dispatcher`` names."""

    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def public(*args: Any, **kwargs: Any) -> Any:
            from reference_impl.overrides import handle_torch_function, has_torch_function

            relevant = tuple(dispatcher(*args, **kwargs))
            if has_torch_function(relevant):
                return handle_torch_function(public, relevant, *args, **kwargs)
            return f(*args, **kwargs)

        return public

    return decorate
