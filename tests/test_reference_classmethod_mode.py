"""reference_impl and a mode class whose ``__torch_function__`` is a classmethod (TFM_PUSH_010).

The metaclass wraps the classmethod object defined in the class body; the wrapper calls it as
a function, so every call that reaches such a mode raises TypeError before the handler's code
runs, and the mode current before the call is current again afterwards. This is what torch
1.12.1 does.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    enable_torch_function_mode,
    push_torch_function_mode,
)

NOT_CALLABLE = "'classmethod' object is not callable"

#: The classes whose handlers ran, in order.
RAN: list[type] = []


class ClassMethodMode(TorchFunctionMode):
    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        RAN.append(cls)
        return 5


class Inherits(ClassMethodMode):
    pass


class CallsSuper(TorchFunctionMode):
    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        RAN.append(cls)
        return super().__torch_function__(func, types, args, kwargs)


@pytest.fixture(autouse=True)
def _clean() -> Iterator[None]:
    RAN.clear()
    assert torch._C._get_torch_function_mode() is None
    yield
    assert torch._C._get_torch_function_mode() is None


def _raw(mode_class: type) -> AbstractContextManager[Any]:
    @contextmanager
    def raw() -> Iterator[Any]:
        mode = mode_class(inner=None)
        torch._C._set_torch_function_mode(mode)
        try:
            yield mode
        finally:
            torch._C._set_torch_function_mode(None)

    return raw()


@contextmanager
def _enabled(mode_class: type) -> Iterator[Any]:
    mode = mode_class(inner=None)
    with enable_torch_function_mode(mode):
        yield mode


INSTALLS: dict[str, Callable[[type], AbstractContextManager[Any]]] = {
    "push": push_torch_function_mode, "enable": _enabled, "raw": _raw}
CALLS: dict[str, Callable[[Any], Any]] = {
    "neg": torch.neg,
    "add": lambda x: torch.add(x, x, alpha=2),
    "Tensor.neg": lambda x: x.neg(),
    "ones": lambda x: torch.ones(2),
    "split (Python path)": lambda x: torch.split(x, 1),
}


@pytest.mark.rule("TFM_PUSH_010")
@pytest.mark.parametrize("call", sorted(CALLS))
@pytest.mark.parametrize("install", sorted(INSTALLS))
@pytest.mark.parametrize("mode_class", [ClassMethodMode, Inherits, CallsSuper], ids=lambda c: c.__name__)
def test_every_call_raises_type_error_and_the_handler_never_runs(
        mode_class: type, install: str, call: str) -> None:
    x = torch.tensor([1.0, 3.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with INSTALLS[install](mode_class) as mode:
            with pytest.raises(TypeError) as info:
                CALLS[call](x)
            assert str(info.value) == NOT_CALLABLE
            assert torch._C._get_torch_function_mode() is mode
    assert RAN == []


@pytest.mark.rule("TFM_PUSH_010", "TFM_ERROR_005", "TFM_REENTRY_004")
def test_a_mode_forwarding_to_it_sees_the_type_error() -> None:
    seen: list[Any] = []

    class Forwarding(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            seen.append(torch._C._get_torch_function_mode())
            try:
                return func(*args, **(kwargs or {}))
            except TypeError as exc:
                seen.append(str(exc))
                raise

    with push_torch_function_mode(ClassMethodMode) as below, push_torch_function_mode(Forwarding) as top:
        with pytest.raises(TypeError) as info:
            torch.neg(torch.tensor([1.0]))
        assert str(info.value) == NOT_CALLABLE
        assert torch._C._get_torch_function_mode() is top
    assert seen == [below, NOT_CALLABLE]
    assert RAN == []


@pytest.mark.rule("TFM_PUSH_010")
def test_the_metaclass_wraps_the_classmethod_object_itself() -> None:
    wrapped = ClassMethodMode.__dict__["__torch_function__"]
    assert not isinstance(wrapped, classmethod) and callable(wrapped)
    assert isinstance(wrapped.__wrapped__, classmethod)
    assert "__torch_function__" not in Inherits.__dict__


def test_a_classmethod_set_after_the_class_body_is_not_wrapped() -> None:
    """Outside TFM_PUSH_010 (no scenario expresses it); torch 1.12.1 measured the same: the
    handler runs with the class, with no mode current, so a call inside reaches the kernel."""
    inside: list[Any] = []

    class Late(TorchFunctionMode):
        pass

    def handler(cls: type, func: Callable[..., Any], types: tuple[type, ...],
                args: tuple[Any, ...] = (), kwargs: dict[str, Any] | None = None) -> Any:
        inside.append((cls, torch._C._get_torch_function_mode()))
        return torch.add(*args, *args)

    Late.__torch_function__ = classmethod(handler)  # type: ignore[assignment]
    with push_torch_function_mode(Late):
        assert torch.neg(torch.tensor([1.0, 3.0])).tolist() == [2.0, 6.0]
    assert inside == [(Late, None)]
