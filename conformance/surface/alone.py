"""A duck-typed object alone in one tensor position (sandbox): the ``duck_alone`` check.

The ``duck`` check of :mod:`.probe` fills every tensor slot with a duck at once, and for a Tensor
method puts a subclass instance as ``self``: a callable that asks about its first tensor only
passes it. Here each tensor position is tried on its own, with plain tensors everywhere else:
each required tensor slot after the first (for a method, every slot after ``self``), and each
optional parameter whose declared type is a tensor (``weight=``, ``bias=``; not ``out=``, which
a template may list where the callable takes none), passed by keyword.
With no mode, the duck's handler runs exactly once, with the listed callable as ``func``
(TFM_ARGS_001: a Python wrapper that skips its own check lets the native function it calls
dispatch instead), ``Duck`` in ``types`` (with, on the Python path, ``Tensor``, TFM_TYPES_004),
and its answer is the call's result (TFM_TYPES_006).
The first position that fails is reported; the others would repeat it.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable
from typing import Any

from ..safe import repr_of
from .arguments import TENSOR, Construction, declared_tensor
from .listing import same_callable

__all__ = ["check_alone", "optional_tensors"]

#: Optional tensor parameters tried per callable, at most (a few functions declare dozens).
MAX_OPTIONAL = 4


def optional_tensors(func: Any, template: Any, ns: Any, construction: Construction) -> list[str]:
    """The optional parameters of ``func`` whose declared type (operator schema or annotation,
    not the name alone) is a single tensor, and that the construction does not fill."""
    try:
        parameters = inspect.signature(template if template is not None else func).parameters
    except (TypeError, ValueError):
        return []
    filled = {*construction.names, *(name for name, _ in construction.keywords)}
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    optional = [p.name for p in parameters.values() if p.default is not inspect.Parameter.empty
                and p.name not in filled and p.name != "out" and p.kind in kinds]
    required = [p.name for p in parameters.values() if p.default is inspect.Parameter.empty
                and p.kind in (inspect.Parameter.POSITIONAL_ONLY, *kinds)]
    declared = declared_tensor(func, ns, required, optional)
    return [name for name in optional if name in declared][:MAX_OPTIONAL]


def _positions(construction: Construction) -> list[tuple[str, Any]]:
    """The required tensor positions a duck takes alone: ``(label, index or keyword)``."""
    slots: list[tuple[str, Any]] = [(f"argument {i} ({construction.names[i]})", i)
             for i, slot in enumerate(construction.positional) if slot == TENSOR]
    slots += [(f"keyword {name}", name) for name, slot in construction.keywords if slot == TENSOR]
    return slots[1:]  # the first is the duck check's (for a method, self is the subclass's)


def _arguments(construction: Construction, plain: Callable[[], Any], duck: Any,
               where: Any, optional: str | None) -> tuple[tuple[Any, ...], dict[str, Any]]:
    args, kwargs = construction.build(plain)
    if isinstance(where, int):
        args = (*args[:where], duck, *args[where + 1:])
    elif isinstance(where, str):
        kwargs[where] = duck
    if optional is not None:
        kwargs[optional] = duck
    return args, kwargs


def check_alone(probe: Any, entry: Any, construction: Construction, optional: list[str],
                setter: bool, name_of: Callable[[object], str]) -> list[str] | None:
    """``[check, detail]`` for the first position whose duck is not dispatched on, else None."""
    ad = probe.adapter
    cases: list[tuple[str, Any, str | None]] = [(label, where, None)
                                                 for label, where in _positions(construction)]
    cases += [(f"optional {name}=", None, name) for name in optional]
    for label, where, keyword in cases:
        duck = probe.Duck()
        args, kwargs = _arguments(construction, lambda: ad.tensor([1.0, 2.0]), duck, where, keyword)
        result, error = probe.call(entry.func, args, kwargs, contextlib.nullcontext)
        owners = [owner for owner, *_ in probe.calls]
        if owners != ["duck"]:
            seen = ", ".join(owners) or "no handler"
            shown = f", the call raised {repr_of(error)}" if error is not None else ""
            return ["duck_alone", f"a duck as {label} alone, plain tensors elsewhere: expected one "
                                  f"run of the duck's handler, saw: {seen}{shown}"[:300]]
        func, types = probe.calls[0][1], probe.calls[0][2]
        if not same_callable(func, entry.func):  # a wrapper that let a native function dispatch
            return ["func", f"a duck as {label} alone: the handler's func was {name_of(func)}"]
        if probe.Duck not in types or not set(types) <= {probe.Duck, ad.Tensor}:
            return ["duck_alone", f"a duck as {label} alone: types were {repr_of(types)}"]
        if result is not probe.answer and not setter:
            gave = error if error is not None else result
            return ["duck_alone", f"a duck as {label} alone: the call gave {repr_of(gave)}, not "
                                  "the handler's answer"[:300]]
    return None
