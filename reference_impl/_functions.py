"""The native functions (dispatched by the core) and the kernels that compute them."""

from __future__ import annotations

import builtins
import math
from typing import Any

from reference_impl._dispatch import dispatch
from reference_impl._kernels import (
    add_kernel,
    data_of,
    div_kernel,
    mul_kernel,
    neg_kernel,
    pair,
    sub_kernel,
    wrap,
)
from reference_impl._tensor import Tensor

__all__ = ["abs", "add", "cat", "div", "max", "mean", "mul", "neg", "ones", "sub", "sum"]

# Every native takes ``*args, **kwargs`` so that handlers see the call exactly as written;
# the kernel's own signature does the argument parsing.


def add(*args: Any, **kwargs: Any) -> Any:
    """``add(input, other, *, alpha=1)``: input + alpha * other."""
    return dispatch(add, "reference_impl.add", add_kernel, args, kwargs)


def sub(*args: Any, **kwargs: Any) -> Any:
    """``sub(input, other, *, alpha=1)``: input - alpha * other."""
    return dispatch(sub, "reference_impl.sub", sub_kernel, args, kwargs)


def mul(*args: Any, **kwargs: Any) -> Any:
    """``mul(input, other)``: elementwise product."""
    return dispatch(mul, "reference_impl.mul", mul_kernel, args, kwargs)


def div(*args: Any, **kwargs: Any) -> Any:
    """``div(input, other)``: elementwise quotient (IEEE results for division by zero)."""
    return dispatch(div, "reference_impl.div", div_kernel, args, kwargs)


def _max_kernel(input: Any, other: Any = None) -> Tensor:
    if other is None:
        return wrap([builtins.max(data_of(input))])
    data, other_data = pair(input, other)
    return wrap([builtins.max(a, b) for a, b in zip(data, other_data, strict=True)])


def max(*args: Any, **kwargs: Any) -> Any:
    """``max(input, other)``: elementwise maximum (``max(input)``: the largest element)."""
    return dispatch(max, "reference_impl.max", _max_kernel, args, kwargs)


def neg(*args: Any, **kwargs: Any) -> Any:
    """``neg(input)``: -input."""
    return dispatch(neg, "reference_impl.neg", neg_kernel, args, kwargs)


def _mean_kernel(input: Any) -> Tensor:
    data = data_of(input)
    return wrap([builtins.sum(data) / len(data) if data else math.nan])


def mean(*args: Any, **kwargs: Any) -> Any:
    """``mean(input)``: a one-element tensor holding the mean."""
    return dispatch(mean, "reference_impl.mean", _mean_kernel, args, kwargs)


def _sum_kernel(input: Any) -> Tensor:
    return wrap([builtins.sum(data_of(input))])


def sum(*args: Any, **kwargs: Any) -> Any:
    """``sum(input)``: a one-element tensor holding the sum."""
    return dispatch(sum, "reference_impl.sum", _sum_kernel, args, kwargs)


def _abs_kernel(input: Any) -> Tensor:
    return wrap([builtins.abs(a) for a in data_of(input)])


def abs(*args: Any, **kwargs: Any) -> Any:
    """``abs(input)``: elementwise absolute value."""
    return dispatch(abs, "reference_impl.abs", _abs_kernel, args, kwargs)


def _cat_kernel(tensors: Any, dim: int = 0) -> Tensor:
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(f"cat expects a list or tuple of tensors, got {type(tensors).__name__}")
    if dim not in (0, -1):
        raise IndexError(f"dimension out of range (expected to be in range of [-1, 0], got {dim})")
    result: list[float] = []
    for item in tensors:
        result.extend(data_of(item))
    return wrap(result)


def cat(*args: Any, **kwargs: Any) -> Any:
    """``cat(tensors, dim=0)``: the tensors of a list or tuple, concatenated."""
    return dispatch(cat, "reference_impl.cat", _cat_kernel, args, kwargs)


def _ones_kernel(*size: Any) -> Tensor:
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    count = 1
    for extent in size:
        if not isinstance(extent, int) or extent < 0:
            raise ValueError(f"ones expects non-negative integer sizes, got {extent!r}")
        count *= extent
    return wrap([1.0] * count)


def ones(*args: Any, **kwargs: Any) -> Any:
    """``ones(*size)``: a factory (no tensor argument) of product-of-sizes ones."""
    return dispatch(ones, "reference_impl.ones", _ones_kernel, args, kwargs)
