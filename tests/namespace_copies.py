"""Copies of reference_impl from which any name of the namespace contract can be removed: a
2022-generation one, and a stack-generation one made by swapping the generations' own names
(only the names matter: the stack copy is never run)."""

from __future__ import annotations

import types
from typing import Any

import reference_impl
from conformance.target import namespace as contract


def _module(name: str, source: types.ModuleType) -> types.ModuleType:
    copy = types.ModuleType(name)
    copy.__dict__.update({k: v for k, v in vars(source).items() if k != "__name__"})
    return copy


def _class(source: type) -> type:
    body = {k: v for k, v in vars(source).items() if k not in ("__dict__", "__weakref__")}
    return type(source.__name__, source.__bases__, body)


def _enter(self: Any) -> Any:
    return self


def _exit(self: Any, *exc: object) -> None:
    return None


def copy_2022(name: str = "halfns") -> types.ModuleType:
    """reference_impl again, with module, ``overrides``, ``_C`` and ``Tensor`` copied so that
    any name can be deleted from the copy."""
    ns = _module(name, reference_impl)
    ns.overrides = _module(f"{name}.overrides", reference_impl.overrides)  # type: ignore[attr-defined]
    ns._C = _module(f"{name}._C", reference_impl._C)  # type: ignore[attr-defined]
    ns.Tensor = _class(reference_impl.Tensor)  # type: ignore[attr-defined]
    return ns


def copy_stack(name: str = "stackns") -> types.ModuleType:
    """A stack-generation namespace made from reference_impl: the 2022 names removed, the
    stack's added (only the names matter here; the copy is never run)."""
    ns = copy_2022(name)
    for path in contract.required("2022"):
        remove(ns, path)
    mode = type("TorchFunctionMode", (), {"__enter__": _enter, "__exit__": _exit})
    ns.overrides.TorchFunctionMode = mode
    ns.overrides._get_current_function_mode_stack = list
    ns.overrides._pop_mode = lambda: None
    ns._C._len_torch_function_stack = lambda: 0
    return ns


def remove(ns: object, path: str) -> None:
    *parents, last = path.split(".")
    owner = ns
    for part in parents:
        owner = getattr(owner, part)
    delattr(owner, last)
