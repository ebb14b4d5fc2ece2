"""The modes, subclasses and exception the exception-safety tests of reference_impl use: a
forwarding mode, modes that raise (one after re-enabling itself), a subclass that raises."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    enable_torch_function_mode,
)


class Boom(Exception):
    """The exception every failure raises (or wraps), so identity can be checked."""


def current() -> Any:
    return torch._C._get_torch_function_mode()


class Forwarding(TorchFunctionMode):
    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return func(*args, **(kwargs or {}))


class RaisingMode(TorchFunctionMode):
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        raise self.exc


class ReentrantRaisingMode(TorchFunctionMode):
    """Re-enables itself (the PR's idiom), makes one more call, then raises."""

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc
        self.depth = 0

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        self.depth += 1
        if self.depth > 1:
            raise self.exc
        with enable_torch_function_mode(self, replace=self.inner):
            return torch.neg(torch.tensor([1.0]))


class PlainSub(torch.Tensor):
    pass


def raising_subclass(exc: BaseException) -> type:
    def handler(cls: type, *args: Any, **kwargs: Any) -> Any:
        raise exc

    return type("RaisingSub", (torch.Tensor,), {"__torch_function__": classmethod(handler)})


def t() -> torch.Tensor:
    return torch.tensor([1.0, 2.0])
