"""The Python half of the 2022 design: mode classes, push/enable and handle_torch_function."""

from __future__ import annotations

import contextlib
import functools
import warnings
from collections.abc import Callable, Iterable, Iterator
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
    "handle_torch_function",
    "has_torch_function",
    "has_torch_function_unary",
    "has_torch_function_variadic",
    "is_tensor_like",
    "push_torch_function_mode",
]

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
    """Run ``handler`` with ``self.inner`` as the current mode, so calls inside go one down."""

    @functools.wraps(handler)
    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        with enable_torch_function_mode(self.inner):
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
            kwargs = {}
        return func(*args, **kwargs)


@contextlib.contextmanager
def _no_torch_function_mode() -> Iterator[None]:
    """Clear the mode for the block (private: not compositional, it discards every mode)."""
    old = _get_torch_function_mode()
    _set_torch_function_mode(None)
    try:
        yield
    finally:
        _set_torch_function_mode(old)


@contextlib.contextmanager
def enable_torch_function_mode(
    mode: Any, *, replace: Any = None, ignore_preexisting: bool = False
) -> Iterator[None]:
    """Make ``mode`` current for the block; non-compositional, prefer push_torch_function_mode.

    ``mode`` is a TorchFunctionMode, a Tensor-like class (a quick non-compositional mode) or
    None. If another mode is current this raises, unless it is ``replace`` or
    ``ignore_preexisting`` is true. It is safe inside a handler, where the mode is cleared.
    """
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
        yield
        return
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
    try:
        yield
    finally:
        _set_torch_function_mode(old)


@contextlib.contextmanager
def push_torch_function_mode(ctor: Callable[..., Any]) -> Iterator[Any]:
    """Push the mode ``ctor(inner=<current mode>)`` for the block and yield it.

    Pass the class itself if it has no ``__init__`` of its own, else a ``functools.partial``.
    """
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
    try:
        yield mode
    finally:
        _set_torch_function_mode(old)


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
    types = tuple(type(arg) for arg in overloaded_args)

    # TFM_ORDER_001, TFM_ORDER_002, TFM_ARGS_004: modes are instances (or classes) and are
    # called with the slot cleared, always with a kwargs dict.
    mode = _get_torch_function_mode()
    if mode is not None:
        with _no_torch_function_mode():
            result = mode.__torch_function__(public_api, types, args, kwargs)
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
