"""The Python half of the 2022 design: mode classes, push/enable and handle_torch_function."""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from reference_impl import _C
from reference_impl._C import (
    _get_torch_function_mode,
    _has_torch_function,
    _has_torch_function_unary,
    _has_torch_function_variadic,
    _set_torch_function_mode,
)
from reference_impl._tensor import Tensor

__all__ = [
    "BaseTorchFunctionMode",
    "TorchFunctionMode",
    "TorchFunctionModeMeta",
    "enable_torch_function_mode",
    "get_overridable_functions",
    "get_testing_overrides",
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "push_torch_function_mode",
    "wrap_torch_function",
]

# The thread-local state itself (the mode slot), for the metaclass wrapper's fast path.
_tls = _C._tls

# The same functions as the bindings, as in torch.
has_torch_function = _has_torch_function
has_torch_function_unary = _has_torch_function_unary
has_torch_function_variadic = _has_torch_function_variadic

_MISSING_INNER_MESSAGE = (
    "missing inner keyword argument; instead of constructing a TorchFunctionMode directly, "
    "pass the constructor to push_torch_function_mode"
)
_PLAIN_METHOD_DEPRECATION = (
    "Defining your `__torch_function__ as a plain method is deprecated and will be an error "
    "in future, please define it as a classmethod."
)


class _Undefined:
    """Type of the private default of the injected ``inner`` keyword."""


_UNDEFINED = _Undefined()


def _wrap_init(init: Callable[..., None]) -> Callable[..., None]:
    """Require keyword-only ``inner``, store it as ``self.inner``, then run ``init`` without it."""

    @functools.wraps(init)
    def wrapped(self: Any, *args: Any, inner: Any = _UNDEFINED, **kwargs: Any) -> None:
        if inner is _UNDEFINED:
            raise TypeError(_MISSING_INNER_MESSAGE)
        self.inner = inner
        init(self, *args, **kwargs)

    return wrapped


def _wrap_torch_function(handler: Callable[..., Any]) -> Callable[..., Any]:
    """Run ``handler`` with ``self.inner`` as the current mode, so calls inside go one down.

    That is ``with enable_torch_function_mode(self.inner): return handler(...)``. Inside a
    dispatch the slot is clear and ``inner`` is a mode or None; that case, which passes every
    check of enable_torch_function_mode, is done here without building the context manager.

    ``handler`` is whatever the class body bound, called as a function: a classmethod object
    is not callable, so a mode whose handler is one fails here with TypeError before any of
    its code runs (TFM_PUSH_010).
    """

    @functools.wraps(handler)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        inner = self.inner
        tls = _tls.state
        # TFM_ENABLE_002: None over None changes nothing.
        if inner is None and tls.mode is None:
            return handler(self, *args, **kwargs) if kwargs else handler(self, *args)
        # TFM_ENABLE_001: a mode over a clear slot is installed, and cleared again after.
        if (
            isinstance(inner, TorchFunctionMode)
            and tls.mode is None
            and hasattr(inner, "__torch_function__")
        ):
            tls.mode = inner
            try:
                return handler(self, *args, **kwargs) if kwargs else handler(self, *args)
            finally:
                tls.mode = None
        # Anything else goes through every check.
        with enable_torch_function_mode(inner):
            return handler(self, *args, **kwargs)

    return wrapped


class TorchFunctionModeMeta(type):
    """Metaclass for TorchFunctionMode; it does two things.

    It adds an implicit keyword-only ``inner`` argument to ``__init__`` (stored as
    ``self.inner``), and it wraps ``__torch_function__`` so that the inner mode is re-enabled
    while the handler runs: by default calls inside proceed compositionally to the next mode.
    Only methods defined in a class body are wrapped.
    """

    def __new__(
        metacls, name: str, bases: tuple[type, ...], dct: dict[str, Any]
    ) -> TorchFunctionModeMeta:
        if "__init__" in dct:
            dct["__init__"] = _wrap_init(dct["__init__"])
        if "__torch_function__" in dct:
            dct["__torch_function__"] = _wrap_torch_function(dct["__torch_function__"])
        return super().__new__(metacls, name, bases, dct)


class TorchFunctionMode(metaclass=TorchFunctionModeMeta):
    """A mode overrides every overridable function in a dynamic scope, factories included.

    Modes are compositional: push them with ``push_torch_function_mode``; inside a handler,
    calls go on to ``self.inner``, the mode that was current when this one was pushed. To call
    back into this handler, call ``self.__torch_function__(...)`` or use
    ``enable_torch_function_mode(self, replace=self.inner)``.
    """

    inner: TorchFunctionMode

    def __init__(self) -> None:
        # Force the metaclass to generate a constructor at the base of the hierarchy.
        pass

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        raise NotImplementedError()


class BaseTorchFunctionMode(TorchFunctionMode):
    """A mode that passes every call through; the bottom of every pushed chain."""

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if kwargs is None:
            return func(*args)
        return func(*args, **kwargs)


class _NoTorchFunctionMode(contextlib.ContextDecorator):
    """The context manager _no_torch_function_mode returns."""

    def _recreate_cm(self) -> _NoTorchFunctionMode:
        return _NoTorchFunctionMode()

    def __enter__(self) -> None:
        self._old = _get_torch_function_mode()
        _set_torch_function_mode(None)

    def __exit__(self, *exc_info: object) -> None:
        _set_torch_function_mode(self._old)


def _no_torch_function_mode() -> _NoTorchFunctionMode:
    """Clear the mode for the block (private: not compositional, it discards every mode)."""
    return _NoTorchFunctionMode()


# The context managers below are classes rather than ``contextlib.contextmanager`` generators
# (a generator costs several times as much to enter and exit, and the metaclass wrapper enters
# one on every handler call). They behave as the generators did: the checks run, and the slot
# is read, when the block is entered; an exception in the block propagates after the slot is
# restored; each can decorate a function, entering a fresh copy on every call.

#: What _enable returns when the mode to enable is current already (nothing to restore).
_UNCHANGED = _Undefined()


def _enable(mode: Any, replace: Any, ignore_preexisting: bool) -> Any:
    """Check and install ``mode``; return the mode to restore, or _UNCHANGED."""
    # TFM_ENABLE_008
    if not (
        mode is None
        or isinstance(mode, TorchFunctionMode)
        or (isinstance(mode, type) and not issubclass(mode, TorchFunctionMode))
    ):
        raise ValueError(
            "expected to get TorchFunctionMode, Tensor-like class, or None as argument, "
            f"got {type(mode)} instead"
        )
    old = _get_torch_function_mode()
    # TFM_ENABLE_002
    if old is mode:
        return _UNCHANGED
    # TFM_ENABLE_003, TFM_ENABLE_004, TFM_ENABLE_005, TFM_ENABLE_006, TFM_ENABLE_007
    if old is not None and not ignore_preexisting and old is not replace:
        if isinstance(mode, TorchFunctionMode):
            help_text = "Use push_torch_function_mode instead."
        else:
            help_text = (
                "If you intended to completely override the preexisting mode, pass "
                "ignore_preexisting=True.  This can result in unexpected behavior; please "
                "consider rewriting your mode to be a subclass of TorchFunctionMode to make it "
                "compositional!"
            )
        raise ValueError(
            f"Attempted to enable_torch_function_mode, but there is already an active mode "
            f"{old}.  {help_text}"
        )
    # TFM_ENABLE_009: not requiring a TorchFunctionMode lets a Tensor subclass be a mode.
    if not hasattr(mode, "__torch_function__"):
        raise ValueError(
            "The argument passed to enable_torch_function_mode must implement __torch_function__"
        )
    # TFM_ENABLE_001
    _set_torch_function_mode(mode)
    return old


class _EnableTorchFunctionMode(contextlib.ContextDecorator):
    """The context manager enable_torch_function_mode returns."""

    def __init__(self, mode: Any, replace: Any, ignore_preexisting: bool) -> None:
        self.mode, self.replace, self.ignore_preexisting = mode, replace, ignore_preexisting

    def _recreate_cm(self) -> _EnableTorchFunctionMode:
        return _EnableTorchFunctionMode(self.mode, self.replace, self.ignore_preexisting)

    def __enter__(self) -> None:
        self._old = _enable(self.mode, self.replace, self.ignore_preexisting)

    def __exit__(self, *exc_info: object) -> None:
        if self._old is not _UNCHANGED:
            _set_torch_function_mode(self._old)


def enable_torch_function_mode(
    mode: Any, *, replace: Any = None, ignore_preexisting: bool = False
) -> contextlib.AbstractContextManager[None]:
    """Make ``mode`` current for the block; non-compositional, prefer push_torch_function_mode.

    ``mode`` is a TorchFunctionMode, a Tensor-like class (a quick non-compositional mode) or
    None. If another mode is current this raises, unless it is ``replace`` or
    ``ignore_preexisting`` is true. It is safe inside a handler, where the mode is cleared.
    """
    return _EnableTorchFunctionMode(mode, replace, ignore_preexisting)


def _push(ctor: Callable[..., Any]) -> tuple[Any, Any]:
    """Check ``ctor``, build the mode on top of the current one and install it: (old, mode)."""
    # TFM_PUSH_005
    if isinstance(ctor, TorchFunctionMode):
        raise ValueError(
            "Expected a TorchFunctionMode constructor function, but got an instance of "
            f"TorchFunctionMode {ctor}.  Consider using enable_torch_function_mode instead."
        )
    old = _get_torch_function_mode()
    # TFM_PUSH_001, TFM_PUSH_002
    if old is None:
        base: Callable[..., Any] = BaseTorchFunctionMode
        inner = base(inner=None)
    else:
        inner = old
    mode = ctor(inner=inner)
    # TFM_PUSH_006
    if not isinstance(mode, TorchFunctionMode):
        raise ValueError(
            "The callable passed to push_torch_function_mode must return a TorchFunctionMode"
        )
    # TFM_PUSH_003
    _set_torch_function_mode(mode)
    return old, mode


class _PushTorchFunctionMode(contextlib.ContextDecorator):
    """The context manager push_torch_function_mode returns."""

    def __init__(self, ctor: Callable[..., Any]) -> None:
        self.ctor = ctor

    def _recreate_cm(self) -> _PushTorchFunctionMode:
        return _PushTorchFunctionMode(self.ctor)

    def __enter__(self) -> Any:
        self._old, mode = _push(self.ctor)
        return mode

    def __exit__(self, *exc_info: object) -> None:
        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.
        _set_torch_function_mode(self._old)


def push_torch_function_mode(ctor: Callable[..., Any]) -> contextlib.AbstractContextManager[Any]:
    """Push the mode ``ctor(inner=<current mode>)`` for the block and yield it.

    Pass the class itself if it has no ``__init__`` of its own, else a ``functools.partial``.
    """
    return _PushTorchFunctionMode(ctor)


def _get_overloaded_args(relevant_args: Iterable[Any]) -> list[Any]:
    """The Python path's overloaded arguments, exact Tensors included; [] while disabled."""
    if not _C._is_torch_function_enabled():
        return []
    overloaded: list[Any] = []
    for arg in relevant_args:
        tf = getattr(type(arg), "__torch_function__", _C._disabled_torch_function_impl)
        if tf is not _C._disabled_torch_function_impl:
            _C._append_overloaded_arg(overloaded, arg)
    return overloaded


def handle_torch_function(
    public_api: Callable[..., Any], relevant_args: Iterable[Any], *args: Any, **kwargs: Any
) -> Any:
    """Dispatch a function written in Python: the mode first, then the overloaded arguments."""
    overloaded_args = _get_overloaded_args(relevant_args)
    types = tuple([type(arg) for arg in overloaded_args]) if overloaded_args else ()

    # TFM_ORDER_001, TFM_ORDER_002, TFM_ARGS_004: modes are instances (or classes) and are
    # called with the slot cleared, always with a kwargs dict.
    # The slot is cleared and restored here as _no_torch_function_mode() would.
    mode = _get_torch_function_mode()
    if mode is not None:
        _set_torch_function_mode(None)
        try:
            result = mode.__torch_function__(public_api, types, args, kwargs)
        finally:
            _set_torch_function_mode(mode)
        if result is not NotImplemented:
            return result

    # TFM_NOTIMPL_001, TFM_SELF_001, TFM_SELF_003: then each overloaded argument in order.
    for arg in overloaded_args:
        handler = arg.__torch_function__
        if (
            getattr(handler, "__self__", None) is arg
            and handler is not _C._disabled_torch_function_impl
        ):
            warnings.warn(_PLAIN_METHOD_DEPRECATION, DeprecationWarning, stacklevel=3)
        result = handler(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result

    # TFM_ERROR_003
    func_name = f"{public_api.__module__}.{public_api.__name__}"
    message = (
        f"no implementation found for '{func_name}' on types that implement "
        f"__torch_function__: [{', '.join(repr(tp) for tp in types)}]"
    )
    if mode is not None:
        message += f" nor in mode {mode}"
    raise TypeError(message)


def is_tensor_like(inp: Any) -> bool:
    """True for Tensors and for objects whose type defines ``__torch_function__``."""
    return type(inp) is Tensor or hasattr(type(inp), "__torch_function__")


from reference_impl._listing import get_overridable_functions, get_testing_overrides  # noqa: E402
from reference_impl._wrapping import wrap_torch_function  # noqa: E402
