"""The native dispatch core: what torch's C++ argument parser does for every native call."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

from reference_impl import _C

__all__ = ["PLAIN_METHOD_WARNING", "dispatch"]

PLAIN_METHOD_WARNING = (
    "Defining your `__torch_function__` as a plain method is deprecated and "
    "will be an error in future, please define it as a classmethod."
)

# Arguments of these types are never overloaded; skipping them keeps the scan cheap.
_PLAIN_TYPES = frozenset({int, float, bool, complex, str, bytes, type(None)})
_SEQUENCE_TYPES = (list, tuple)


def dispatch(
    func: Callable[..., Any],
    qualname: str,
    kernel: Callable[..., Any],
    args: tuple[Any, ...],
    kwargs: dict[str, Any],
    declined: Any = None,
) -> Any:
    """Run the native function ``func`` (public name ``qualname``) on args exactly as written.

    ``kernel`` computes the result on the data when nobody overrides the call. ``declined``
    (when not ``None``) is what this call gives when every one of its handlers returns
    ``NotImplemented``, in place of the TypeError: the operators pass ``NotImplemented`` (a
    TypeError from inside a handler, or from a dispatch the handler made, still propagates).
    """
    tls = _C._tls.state  # this thread's mode slot and enabled flag

    # TFM_ORDER_004, TFM_ORDER_006, TFM_REACH_007, TFM_TYPES_003, TFM_TYPES_005, TFM_TYPES_006,
    # TFM_DISABLE_001: collect overloaded arguments from the positional arguments, then the
    # keyword values in the order given, looking inside lists and tuples. The mode plays no
    # part; exact Tensors, plain Python values and opted-out types are skipped; nothing is
    # collected inside DisableTorchFunction.
    overloaded: list[Any] = []
    if tls.enabled:
        tensor_class = _C._tensor_class
        for arg in (*args, *kwargs.values()) if kwargs else args:
            tp = type(arg)
            if tp is tensor_class or tp in _PLAIN_TYPES:
                continue
            for item in arg if isinstance(arg, _SEQUENCE_TYPES) else (arg,):
                tp = type(item)
                if tp is tensor_class or tp in _PLAIN_TYPES:
                    continue
                disabled = _C._disabled_torch_function_impl
                if getattr(tp, "__torch_function__", disabled) is not disabled:
                    # TFM_ORDER_003, TFM_ORDER_005: NEP-18 insertion, one entry per type.
                    _C._append_overloaded_arg(overloaded, item)

    # Fast path: no mode and nothing overloaded, so compute directly. With a mode current
    # every call goes on, factories and plain-tensor calls included (TFM_REACH_004).
    mode = tls.mode
    if mode is None and not overloaded:
        return kernel(*args, **kwargs) if kwargs else kernel(*args)

    # TFM_TYPES_001, TFM_TYPES_002: one tuple of the overloaded types, shared by every
    # handler; the mode's own type is never in it.
    types = tuple([type(arg) for arg in overloaded]) if overloaded else ()

    # TFM_ORDER_001, TFM_ORDER_002, TFM_REENTRY_001..003, TFM_ARGS_003, TFM_ERROR_005,
    # TFM_DISABLE_002, TFM_SELF_005: the mode goes first, with the slot cleared while it runs
    # and restored afterwards even if it raises. Method lookup on the mode object, so an
    # instance or a class (Tensor subclass used as a mode) both work; no plain-method check.
    if mode is not None:
        tls.mode = None
        try:
            if kwargs:
                result = mode.__torch_function__(func, types, args, kwargs)
            else:
                result = mode.__torch_function__(func, types, args)
        finally:
            tls.mode = mode
        if result is not NotImplemented:
            return result

    # TFM_NOTIMPL_001, TFM_NOTIMPL_004, TFM_ORDER_007, TFM_REENTRY_007: then each overloaded
    # argument in order, with the mode back in place; the first result that is not
    # NotImplemented wins; exceptions propagate.
    disabled = _C._disabled_torch_function_impl
    plain_methods = 0
    try:
        for arg in overloaded:
            handler = arg.__torch_function__
            # TFM_SELF_001, TFM_SELF_004, TFM_SELF_006: a plain-method handler (bound to this
            # very argument) is still called; its warning is counted for below.
            if getattr(handler, "__self__", None) is arg and handler is not disabled:
                plain_methods += 1
            # TFM_ARGS_003: three positional arguments when the caller passed no keywords.
            result = handler(func, types, args, kwargs) if kwargs else handler(func, types, args)
            if result is not NotImplemented:
                return result

        # TFM_NOTIMPL_002, TFM_NOTIMPL_003, TFM_ERROR_001, TFM_ERROR_002, TFM_ERROR_004: all
        # declined.
        message = (
            "no implementation found for '"
            + qualname
            + "' on types that implement __torch_function__: ["
            + ", ".join(repr(tp) for tp in types)
            + "]"
        )
        if mode is not None:
            message += " nor was it found on the currently active mode " + repr(mode)
        if declined is not None:
            return declined
        raise TypeError(message)
    finally:
        # TFM_SELF_002: the native path's warnings surface when the native call returns or
        # raises, as C++ warnings do once torch's binding hands them to Python; every call.
        for _ in range(plain_methods):
            warnings.warn(PLAIN_METHOD_WARNING, UserWarning, stacklevel=3)
