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
from collections.abc import Callable
from typing import Any

from ..base.safe import repr_of
from .arguments import TENSOR, Construction
from .listing import same_callable

__all__ = ["check_alone"]

def _positions(construction: Construction) -> list[tuple[str, int | str]]:
    """The required tensor positions a duck takes alone: ``(label, index or keyword)``."""
    slots: list[tuple[str, int | str]] = [(f"argument {i} ({construction.names[i]})", i)
             for i, slot in enumerate(construction.positional) if slot == TENSOR]
    slots += [(f"keyword {name}", name) for name, slot in construction.keywords if slot == TENSOR]
    return slots[1:]  # the first is the duck check's (for a method, self is the subclass's)


def _arguments(construction: Construction, plain: Callable[[], Any], duck: Any,
               where: int | str) -> tuple[tuple[Any, ...], dict[str, Any]]:
    """Plain tensors in every slot, and the duck at position ``where`` or as keyword ``where``."""
    args, kwargs = construction.build(plain)
    if isinstance(where, int):
        args = (*args[:where], duck, *args[where + 1:])
    else:
        kwargs[where] = duck
    return args, kwargs


def check_alone(probe: Any, entry: Any, construction: Construction, setter: bool,
                name_of: Callable[[object], str]) -> list[str] | None:
    """``[check, detail]`` for the first position whose duck is not dispatched on, else None."""
    ad = probe.adapter
    cases = [*_positions(construction),
             *((f"optional {name}=", name) for name in construction.optional)]
    for label, where in cases:
        duck = probe.Duck()
        args, kwargs = _arguments(construction, lambda: ad.tensor([1.0, 2.0]), duck, where)
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
