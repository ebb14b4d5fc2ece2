"""The kernels: what each dispatched function computes once no handler takes the call, and the
helpers that read and make tensors. The tensor class is the one ``_tensor.py`` registers in
``_C`` at import time; this module imports ``_tensor`` for its type only, never at run time."""

from __future__ import annotations

import math
import operator
from typing import TYPE_CHECKING, Any

from reference_impl import _C

if TYPE_CHECKING:
    from reference_impl._tensor import Tensor


def _is_tensor(obj: object) -> bool:
    return isinstance(obj, _C._tensor_class)


def wrap(data: list[float]) -> Tensor:
    """A plain Tensor that takes ownership of ``data`` (kernels use it; no copying)."""
    result: Tensor = object.__new__(_C._tensor_class)
    result._data = data
    return result


def values(operand: Any, length: int) -> list[float]:
    """The operand as ``length`` floats: a tensor (one element broadcasts) or a number."""
    if _is_tensor(operand):
        data: list[float] = operand._data
        if len(data) == length:
            return data
        if len(data) == 1:
            return data * length
        raise RuntimeError(f"size mismatch: {len(data)} elements against {length}")
    if isinstance(operand, (int, float)):
        return [float(operand)] * length
    raise TypeError(f"expected a Tensor or a number, got {type(operand).__name__}")


def data_of(operand: Any) -> list[float]:
    """The data list of a tensor argument (kernels only accept tensors here)."""
    if not _is_tensor(operand):
        raise TypeError(f"expected a Tensor, got {type(operand).__name__}")
    data: list[float] = operand._data
    return data


def pair(input: Any, other: Any) -> tuple[list[float], list[float]]:
    """The data of a binary operation's operands, equally long: a one-element tensor (or a
    number) on either side broadcasts to the other's length."""
    data = data_of(input)
    if len(data) == 1 and _is_tensor(other) and len(other._data) > 1:
        return data * len(other._data), other._data
    return data, values(other, len(data))


def add_kernel(input: Any, other: Any, *, alpha: float = 1) -> Tensor:
    """input + alpha * other."""
    data, other_data = pair(input, other)
    if alpha == 1:
        return wrap(list(map(operator.add, data, other_data)))
    return wrap([a + alpha * b for a, b in zip(data, other_data, strict=True)])


def add_in_place_kernel(input: Any, other: Any, *, alpha: float = 1) -> Tensor:
    """input += alpha * other, giving input itself (it cannot grow by broadcasting)."""
    data, other_data = pair(input, other)
    if len(data) != len(data_of(input)):
        raise RuntimeError(f"cannot add {len(other_data)} elements in place into {len(input._data)}")
    input._data[:] = [a + alpha * b for a, b in zip(data, other_data, strict=True)]
    return input  # type: ignore[no-any-return]


def sub_kernel(input: Any, other: Any, *, alpha: float = 1) -> Tensor:
    """input - alpha * other."""
    data, other_data = pair(input, other)
    return wrap([a - alpha * b for a, b in zip(data, other_data, strict=True)])


def mul_kernel(input: Any, other: Any) -> Tensor:
    """input * other, elementwise."""
    data, other_data = pair(input, other)
    return wrap([a * b for a, b in zip(data, other_data, strict=True)])


def lt_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input < other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a < b) for a, b in zip(data, other_data, strict=True)])


def gt_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input > other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a > b) for a, b in zip(data, other_data, strict=True)])


def eq_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input == other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a == b) for a, b in zip(data, other_data, strict=True)])


def ne_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input != other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a != b) for a, b in zip(data, other_data, strict=True)])


def ge_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input >= other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a >= b) for a, b in zip(data, other_data, strict=True)])


def le_kernel(input: Any, other: Any) -> Tensor:
    """1.0 where input <= other, else 0.0, elementwise."""
    data, other_data = pair(input, other)
    return wrap([float(a <= b) for a, b in zip(data, other_data, strict=True)])


def pow_kernel(input: Any, other: Any) -> Tensor:
    """input ** other, elementwise."""
    data, other_data = pair(input, other)
    return wrap([a ** b for a, b in zip(data, other_data, strict=True)])


def floordiv_kernel(input: Any, other: Any) -> Tensor:
    """input // other, elementwise (rounded down); a zero divisor gives an infinity or nan."""
    data, other_data = pair(input, other)
    return wrap([a // b if b else (math.copysign(math.inf, a) if a else math.nan)
                 for a, b in zip(data, other_data, strict=True)])


def rsub_kernel(input: Any, other: Any) -> Tensor:
    """other - input, elementwise (``k - x`` is ``x.__rsub__(k)``)."""
    data, other_data = pair(input, other)
    return wrap([b - a for a, b in zip(data, other_data, strict=True)])


def neg_kernel(input: Any) -> Tensor:
    """-input."""
    return wrap([-a for a in data_of(input)])


def div_kernel(input: Any, other: Any) -> Tensor:
    """input / other, elementwise; a zero divisor gives an infinity or nan, as in torch."""
    data, other_data = pair(input, other)
    quotients = []
    for a, b in zip(data, other_data, strict=True):
        if b == 0.0:
            quotients.append(math.copysign(math.inf, a) if a else math.nan)
        else:
            quotients.append(a / b)
    return wrap(quotients)


def abs_kernel(input: Any) -> Tensor:
    return wrap([abs(a) for a in data_of(input)])


def int_kernel(input: Any) -> int:
    data = data_of(input)
    if len(data) != 1:
        raise RuntimeError(f"a tensor of {len(data)} elements cannot be converted to an int")
    return int(data[0])
