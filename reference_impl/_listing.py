"""The overridable callables, as torch lists them: ``get_overridable_functions`` and
``get_testing_overrides``.

Every public function and dispatched Tensor method is listed, each with a dummy of its
signature. ``Tensor.__add__``, ``Tensor.__radd__`` and ``Tensor.__neg__`` are not: they are
spellings of ``Tensor.add`` and ``Tensor.neg`` (their handlers see those), not callables of
their own; ``Tensor.__getitem__`` is.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["get_overridable_functions", "get_testing_overrides"]


def get_testing_overrides() -> dict[Callable[..., Any], Callable[..., Any]]:
    """Each overridable callable -> a function with the same parameters that returns -1."""
    import reference_impl as ns

    return {
        ns.abs: lambda input: -1,
        ns.add: lambda input, other, *, alpha=1: -1,
        ns.cat: lambda tensors, dim=0: -1,
        ns.div: lambda input, other: -1,
        ns.max: lambda input, other=None: -1,
        ns.mean: lambda input: -1,
        ns.mul: lambda input, other: -1,
        ns.neg: lambda input: -1,
        ns.ones: lambda *size: -1,
        ns.sub: lambda input, other, *, alpha=1: -1,
        ns.sum: lambda input: -1,
        ns.split: lambda tensor, split_size: -1,
        ns.Tensor.add: lambda self, other, *, alpha=1: -1,
        ns.Tensor.neg: lambda self: -1,
        ns.Tensor.__getitem__: lambda self, index: -1,
        ns.Tensor.real.__get__: lambda self: -1,
    }


def get_overridable_functions() -> dict[Any, list[Callable[..., Any]]]:
    """The overridable callables by where they live: the namespace and the Tensor class."""
    import reference_impl as ns

    listed = list(get_testing_overrides())
    methods = [ns.Tensor.add, ns.Tensor.neg, ns.Tensor.__getitem__]
    return {ns: [f for f in listed if f not in methods and getattr(f, "__name__", "") != "__get__"],
            ns.Tensor: [*methods, ns.Tensor.real.__get__]}
