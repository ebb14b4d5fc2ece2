"""What the explicit dispatch tests of reference_impl share: recording handlers and modes, a
duck-typed class, small Python functions that dispatch, and the fixture that checks each test
leaves the thread's mode state as it found it (a test module imports it to use it)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
)

NATIVE_PLAIN_METHOD = (
    "Defining your `__torch_function__` as a plain method is deprecated and will be an error "
    "in future, please define it as a classmethod."
)
PYTHON_PLAIN_METHOD = (
    "Defining your `__torch_function__ as a plain method is deprecated and will be an error "
    "in future, please define it as a classmethod."
)
FORWARD = object()  # a recorder result meaning "call func and return its result"


@pytest.fixture(autouse=True)
def clean_thread_state() -> Iterator[None]:
    assert torch._C._get_torch_function_mode() is None
    assert torch._C._is_torch_function_enabled()
    yield
    assert torch._C._get_torch_function_mode() is None
    assert torch._C._is_torch_function_enabled()


def enter(context: AbstractContextManager[Any]) -> None:
    """Enter and leave a context manager (for errors raised on entry)."""
    with context:
        pass


@dataclass
class Call:
    """One handler call: who was called, and exactly what it received."""

    who: str
    func: Callable[..., Any]
    types: tuple[type, ...]
    rest: tuple[Any, ...]  # (args,) or (args, kwargs): what followed func and types
    mode_at_entry: Any

    @property
    def args(self) -> tuple[Any, ...]:
        return tuple(self.rest[0])

    @property
    def kwargs(self) -> Any:
        return self.rest[1] if len(self.rest) > 1 else "absent"


def respond(result: Any, func: Callable[..., Any], rest: tuple[Any, ...]) -> Any:
    if result is FORWARD:
        kwargs = rest[1] if len(rest) > 1 and rest[1] is not None else {}
        return func(*rest[0], **kwargs)
    return result


def make_subclass(
    name: str, log: list[Call], result: Any = NotImplemented, base: type = torch.Tensor
) -> Any:
    """A Tensor subclass (or a subclass of ``base``) with a recording classmethod handler."""

    def handler(cls: type, func: Callable[..., Any], types: tuple[type, ...], *rest: Any) -> Any:
        log.append(Call(cls.__name__, func, types, rest, torch._C._get_torch_function_mode()))
        return respond(result, func, rest)

    return type(name, (base,), {"__torch_function__": classmethod(handler)})


class Duck:
    """Not a Tensor, but its class defines a classmethod __torch_function__."""

    log: ClassVar[list[Call]] = []

    @classmethod
    def __torch_function__(
        cls, func: Callable[..., Any], types: tuple[type, ...], *rest: Any
    ) -> Any:
        cls.log.append(Call("Duck", func, types, rest, torch._C._get_torch_function_mode()))
        return "duck"


class RecordingMode(TorchFunctionMode):
    """A mode that records every call and returns ``result`` (FORWARD: calls func)."""

    def __init__(self, log: list[Call], result: Any = NotImplemented, name: str = "M") -> None:
        self.log = log
        self.result = result
        self.name = name

    def __torch_function__(
        self, func: Callable[..., Any], types: tuple[type, ...], *rest: Any
    ) -> Any:
        self.log.append(Call(self.name, func, types, rest, torch._C._get_torch_function_mode()))
        return respond(self.result, func, rest)


def recording(log: list[Call], result: Any = NotImplemented, name: str = "M") -> Any:
    """A constructor for push_torch_function_mode."""
    return partial(RecordingMode, log, result, name)


def pyfunc(*tensors: Any) -> Any:
    """A function written in Python that dispatches on all its arguments."""
    if has_torch_function(tensors):
        return handle_torch_function(pyfunc, tensors, *tensors)
    return "kernel"


def pyfunc_kw(a: Any, *, flag: Any = None) -> Any:
    """A Python function that forwards a keyword argument."""
    if has_torch_function_unary(a):
        return handle_torch_function(pyfunc_kw, (a,), a, flag=flag)
    return "kernel"


def who(log: list[Call]) -> list[str]:
    return [call.who for call in log]


def t(*values: float) -> torch.Tensor:
    return torch.tensor(list(values) or [1.0])


class PlainSub(torch.Tensor):
    """A Tensor subclass whose handler is a plain method, counting its calls."""

    calls = 0

    def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        type(self).calls += 1
        return "plain"


class PlainDuck:
    """A duck-typed class whose handler is a plain method."""

    def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
        return "plain duck"
