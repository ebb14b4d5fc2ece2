"""othertorch: a small torch-like library of another shape, the example of "Writing an adapter".

It has the 2022 semantics (underneath it is ``reference_impl``), but it spells its API its
own way, so the suite cannot drive it by its module name alone:

* ``Array`` is the tensor class, ``array(data)`` makes one, ``to_list(a)`` reads it back;
* ``maximum`` and ``concat`` are what torch calls ``max`` and ``cat``;
* the current mode is read with ``get_mode()`` and replaced with ``set_mode(obj)``, which
  returns the object it replaced;
* ``stacked(ctor)`` is the compositional context manager (torch 1.12:
  ``push_torch_function_mode``), ``installed(mode, over=None, force=False)`` the
  non-compositional one (``enable_torch_function_mode(mode, replace=, ignore_preexisting=)``);
* ``Mode`` and ``Passthrough`` are the mode base classes, ``no_overrides()`` switches subclass
  dispatch off, and ``opted_out`` opts a subclass out of dispatch;
* ``has_override*`` and ``dispatch`` are what torch calls ``has_torch_function*`` and
  ``handle_torch_function``, for functions written in Python.
"""

from __future__ import annotations

from typing import Any

import reference_impl as _core
from reference_impl import _C
from reference_impl import overrides as _overrides

__version__ = "0.3.0"

Array = _core.Tensor
add, sub, mul, div, neg, mean, ones, split = (
    _core.add, _core.sub, _core.mul, _core.div, _core.neg, _core.mean, _core.ones, _core.split)
maximum = _core.max
concat = _core.cat

Mode = _overrides.TorchFunctionMode
Passthrough = _overrides.BaseTorchFunctionMode
stacked = _overrides.push_torch_function_mode
no_overrides = _C.DisableTorchFunction
opted_out = _C._disabled_torch_function_impl
has_override = _overrides.has_torch_function
has_override_unary = _overrides.has_torch_function_unary
has_override_variadic = _overrides.has_torch_function_variadic
dispatch = _overrides.handle_torch_function


def array(data: list[float]) -> Any:
    """A plain ``Array`` holding ``data``."""
    return _core.tensor(list(data))


def to_list(a: Any) -> list[float]:
    """The data of ``a``."""
    return [float(x) for x in a.tolist()]


def get_mode() -> object:
    """The current mode, or ``None``."""
    return _C._get_torch_function_mode()


def set_mode(obj: object) -> object:
    """Make ``obj`` the current mode (``None`` clears it); return the object it replaced."""
    old = _C._get_torch_function_mode()
    _C._set_torch_function_mode(obj)
    return old


def installed(mode: object, over: object = None, force: bool = False) -> Any:
    """Make ``mode`` current for a ``with`` block, replacing ``over`` (or anything if ``force``)."""
    return _overrides.enable_torch_function_mode(mode, replace=over, ignore_preexisting=force)
