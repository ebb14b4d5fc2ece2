"""The "C++ bindings": the thread-local mode slot, the enabled flag, has-torch-function."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from types import TracebackType
from typing import Any

__all__ = [
    "DisableTorchFunction",
    "_disabled_torch_function_impl",
    "_get_torch_function_mode",
    "_has_torch_function",
    "_has_torch_function_unary",
    "_has_torch_function_variadic",
    "_is_torch_function_enabled",
    "_set_torch_function_mode",
]


class _TorchFunctionState:
    """One thread's state, the analogue of at::impl::PythonTorchFunctionTLS.

    A plain object with slots: its attributes cost a fraction of a thread-local's to read and
    write, so the dispatcher looks the thread's state up once per call (``_tls.state``).
    """

    __slots__ = ("enabled", "mode")

    def __init__(self) -> None:
        # The one mode slot of the 2022 design: any object, or None.
        self.mode: Any = None
        # False inside DisableTorchFunction.
        self.enabled: bool = True


class _TorchFunctionTLS(threading.local):
    """Per-thread storage: a thread gets a fresh state (no mode, enabled) on first use."""

    def __init__(self) -> None:
        self.state = _TorchFunctionState()


_tls = _TorchFunctionTLS()


class _UnsetTensorClass:
    """Stands in for the tensor class until _tensor.py registers the real one."""


# The exact base tensor class (THPVariableClass in torch); its instances are never
# overloaded arguments on the native path. Registered by _tensor.py at import time.
_tensor_class: type = _UnsetTensorClass


def _set_tensor_class(cls: type) -> None:
    """Register the base tensor class (done once, by reference_impl._tensor)."""
    global _tensor_class
    _tensor_class = cls


def _get_torch_function_mode() -> Any:
    """Return the current thread's mode object, or None."""
    return _tls.state.mode


def _set_torch_function_mode(obj: object) -> None:
    """Store any object as the current thread's mode (no validation); None clears it."""
    _tls.state.mode = obj


def _is_torch_function_enabled() -> bool:
    """False while a DisableTorchFunction block is active in this thread."""
    return _tls.state.enabled


class DisableTorchFunction:
    """Context manager: no subclass ``__torch_function__`` runs inside; a mode still does."""

    def __init__(self) -> None:
        self._saved: list[bool] = []

    def __enter__(self) -> None:
        self._saved.append(_tls.state.enabled)
        _tls.state.enabled = False

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _tls.state.enabled = self._saved.pop()


class _DisabledTorchFunctionImpl:
    """Callable like torch's builtin: it does not bind, so ``obj.__torch_function__`` is itself."""

    __slots__ = ()

    def __call__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        saved = _tls.state.enabled
        _tls.state.enabled = False
        try:
            return func(*args, **(kwargs or {}))
        finally:
            _tls.state.enabled = saved

    def __repr__(self) -> str:
        return "<built-in function _disabled_torch_function_impl>"


# Set as a subclass's __torch_function__ to opt the subclass out of dispatch.
_disabled_torch_function_impl = _DisabledTorchFunctionImpl()


def _is_overloadable(obj: object) -> bool:
    """Whether obj's type takes part in dispatch, ignoring the mode (check_has_torch_function)."""
    tp = type(obj)
    if tp is _tensor_class or not _tls.state.enabled:
        return False
    tf = getattr(tp, "__torch_function__", _disabled_torch_function_impl)
    return tf is not _disabled_torch_function_impl


def _has_torch_function(relevant_args: Iterable[object]) -> bool:
    """True if some element must dispatch; with a mode current, any element does."""
    if _tls.state.mode is not None:
        return any(True for _ in relevant_args)
    return any(_is_overloadable(arg) for arg in relevant_args)


def _has_torch_function_unary(obj: object) -> bool:
    """has_torch_function for a single argument."""
    return _tls.state.mode is not None or _is_overloadable(obj)


def _has_torch_function_variadic(*objs: object) -> bool:
    """has_torch_function for the positional arguments."""
    return _has_torch_function(objs)


def _append_overloaded_arg(overloaded: list[Any], obj: object) -> None:
    """Add obj by NEP-18 order: one entry per exact type, subclasses before superclasses."""
    tp = type(obj)
    for existing in overloaded:
        if type(existing) is tp:
            return
    for index, existing in enumerate(overloaded):
        if issubclass(tp, type(existing)):
            overloaded.insert(index, obj)
            return
    overloaded.append(obj)
