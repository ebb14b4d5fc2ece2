"""What the ported tests of PR #75154 and its next-day additions share: the fixtures of
PyTorch's test_overrides.py (a Python function, a subclass with its own handled functions),
written for reference_impl."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import Any

import reference_impl as torch
from reference_impl.overrides import (
    handle_torch_function,
    has_torch_function,
)


def enter(context: AbstractContextManager[Any]) -> None:
    """Enter and leave a context manager (for errors raised on entry)."""
    with context:
        pass


# --- shared fixtures of test_overrides.py ---------------------------------------------------


def bar(a: Any) -> Any:
    """A function written in Python: dispatches through handle_torch_function."""
    if has_torch_function((a,)):
        return handle_torch_function(bar, (a,), a)
    return a


HANDLED_FUNCTIONS_SUB: dict[Callable[..., Any], Callable[..., Any]] = {}


def implements_sub(func: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    def register(impl: Callable[..., Any]) -> Callable[..., Any]:
        HANDLED_FUNCTIONS_SUB[func] = impl
        return impl

    return register


class SubTensor(torch.Tensor):
    """A subclass that handles the functions of HANDLED_FUNCTIONS_SUB and nothing else."""

    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        if kwargs is None:
            kwargs = {}
        if func not in HANDLED_FUNCTIONS_SUB:
            return NotImplemented
        return HANDLED_FUNCTIONS_SUB[func](*args, **kwargs)


@implements_sub(torch.mean)
def sub_mean(mat: Any) -> int:
    return 0


# torch.mm stands in as torch.mul: reference_impl's tensors are one-dimensional.
@implements_sub(torch.mul)
def sub_mm(mat1: Any, mat2: Any) -> int:
    return -1


@implements_sub(bar)
def sub_bar(mat: Any) -> int:
    return 1


@implements_sub(torch.div)
def sub_div(input: Any, other: Any, out: Any = None) -> Any:
    return NotImplemented


# get_testing_overrides() covers every Tensor method; reference_impl has add and neg.
for _method in (torch.Tensor.add, torch.Tensor.neg):
    HANDLED_FUNCTIONS_SUB[_method] = lambda *args, **kwargs: -1
