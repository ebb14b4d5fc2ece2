"""The overridable callables, as torch lists them: ``get_overridable_functions`` and
``get_testing_overrides``.

Every public function and dispatched Tensor method is listed, each with a dummy of its
signature. The operators (``Tensor.__add__``, ``__radd__``, ``__sub__``, ``__mul__``,
``__rmul__``, ``__iadd__``, ``__neg__``) are not: they are spellings of ``Tensor.add``, ``sub``,
``mul``, ``add_`` and ``neg`` (their handlers see those), not callables of their own;
``Tensor.__getitem__`` and ``Tensor.__len__`` are.
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
        ns.Tensor.sub: lambda self, other, *, alpha=1: -1,
        ns.Tensor.mul: lambda self, other: -1,
        ns.Tensor.add_: lambda self, other, *, alpha=1: -1,
        ns.Tensor.neg: lambda self: -1,
        ns.Tensor.lt: lambda self, other: -1,
        ns.Tensor.gt: lambda self, other: -1,
        ns.Tensor.__eq__: lambda self, other: -1,
        ns.Tensor.__setitem__: lambda self, index, value: -1,
        ns.Tensor.__len__: lambda self: -1,
        ns.Tensor.__getitem__: lambda self, index: -1,
        ns.Tensor.real.__get__: lambda self: -1,
    }


def get_overridable_functions() -> dict[Any, list[Callable[..., Any]]]:
    """The overridable callables by where they live: the namespace and the Tensor class."""
    import reference_impl as ns

    listed = list(get_testing_overrides())
    methods: list[Callable[..., Any]] = [ns.Tensor.add, ns.Tensor.sub, ns.Tensor.mul,
                                         ns.Tensor.add_, ns.Tensor.neg, ns.Tensor.__getitem__,
                                         ns.Tensor.__len__, ns.Tensor.lt, ns.Tensor.gt,
                                         ns.Tensor.__eq__, ns.Tensor.__setitem__]
    return {ns: [f for f in listed if f not in methods and getattr(f, "__name__", "") != "__get__"],
            ns.Tensor: [*methods, ns.Tensor.real.__get__]}
