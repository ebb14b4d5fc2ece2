"""PR #75154's TestTorchFunctionMode, ported to reference_impl (its next-day additions:
test_reference_pr75484.py)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    enable_torch_function_mode,
    push_torch_function_mode,
)
from tests.pr75154_fixtures import SubTensor, bar, enter
from tests.reference_recording import clean_thread_state  # noqa: F401 (an autouse fixture)

# --- TestTorchFunctionMode (PR #75154) -----------------------------------------------------


@pytest.mark.rule("TFM_REACH_004", "TFM_REACH_001", "TFM_REACH_005", "TFM_ORDER_002")
def test_basic() -> None:
    """torch.randn is mapped to torch.ones (the factory reference_impl has)."""

    class A(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return -1

    # NB: factory functions get overridden too!
    x = torch.ones(1)
    with push_torch_function_mode(A):
        assert torch.ones(3) == -1
        assert torch.add(x, x) == -1
        assert torch.split(None, [2]) == -1  # python side
        assert bar(x) == -1
    # Outside the block the same calls compute again.
    assert torch.ones(3).tolist() == [1.0, 1.0, 1.0]
    assert bar(x) is x


@pytest.mark.rule("TFM_SUBMODE_001")
def test_enable_torch_function_mode_with_tensor_subclass() -> None:
    """torch.randn → torch.ones, torch.mm → torch.mul."""
    x = torch.ones(1)
    with enable_torch_function_mode(SubTensor):
        assert torch.mul(x, x) == -1
    assert torch.mul(x, x).tolist() == [1.0]


@pytest.mark.rule("TFM_ORDER_001", "TFM_ORDER_002")
def test_modes_handle_first() -> None:
    """torch.mm → torch.mul."""

    class A(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return -40

    x = SubTensor()
    with push_torch_function_mode(A):
        assert torch.neg(x) == -40
        assert torch.mean(x) == -40
        assert torch.mul(x, x) == -40
        assert bar(x) == -40
    # Without the mode, SubTensor's own answers come back.
    assert torch.mean(x) == 0
    assert torch.mul(x, x) == -1
    assert bar(x) == 1


@pytest.mark.rule("TFM_NOTIMPL_001", "TFM_NOTIMPL_002", "TFM_ERROR_002")
def test_modes_return_notimplemented() -> None:
    """torch.mm → torch.mul."""

    class MyMode(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return NotImplemented

    x = SubTensor()
    with push_torch_function_mode(MyMode):
        assert torch.mean(x) == 0
        assert torch.mul(x, x) == -1
        assert bar(x) == 1
        with pytest.raises(TypeError, match=r"SubTensor.+MyMode"):
            torch.max(x, x)


@pytest.mark.rule("TFM_PUSH_004", "TFM_REENTRY_004")
def test_mode_stack() -> None:
    logs: list[str] = []

    class Logger(TorchFunctionMode):
        def __init__(self, name: str) -> None:
            self.name = name

        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            if kwargs is None:
                kwargs = {}
            logs.append(self.name)
            return func(*args, **kwargs)

    x = torch.tensor([1.0, 3.0])
    with (
        push_torch_function_mode(partial(Logger, "A")),
        push_torch_function_mode(partial(Logger, "B")),
    ):
        result = torch.mean(x)
    assert logs == ["B", "A"]
    assert result.tolist() == [2.0]


@pytest.mark.rule("TFM_PUSH_005")
def test_push_mode_instance_errors() -> None:
    class A(TorchFunctionMode):
        pass

    with pytest.raises(ValueError, match="instance of TorchFunctionMode"):
        enter(push_torch_function_mode(A(inner=None)))


@pytest.mark.rule("TFM_PUSH_006")
def test_push_mode_returns_unrelated() -> None:
    with pytest.raises(ValueError, match="return a TorchFunctionMode"):
        enter(push_torch_function_mode(lambda *, inner: None))


@pytest.mark.rule("TFM_ENABLE_002")
def test_enable_torch_function_mode_trivial() -> None:
    class A(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return -40

    a = A(inner=None)
    with enable_torch_function_mode(a):
        with enable_torch_function_mode(a):
            assert bar(None) == -40
        assert torch._C._get_torch_function_mode() is a


@pytest.mark.rule("TFM_ENABLE_005")
def test_enable_torch_function_mode_replace() -> None:
    class A(TorchFunctionMode):
        def __init__(self, val: int) -> None:
            self.val = val

        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return self.val

    a1 = A(-40, inner=None)
    a2 = A(-41, inner=None)
    with enable_torch_function_mode(a1):
        with enable_torch_function_mode(a2, replace=a1):
            assert bar(None) == -41
        assert bar(None) == -40


@pytest.mark.rule("TFM_ENABLE_007")
def test_enable_torch_function_mode_ignore_preexisting() -> None:
    class A(TorchFunctionMode):
        def __init__(self, val: int) -> None:
            self.val = val

        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            return self.val

    a1 = A(-40, inner=None)
    a2 = A(-41, inner=None)
    with enable_torch_function_mode(a1):
        with enable_torch_function_mode(a2, ignore_preexisting=True):
            assert bar(None) == -41
        assert bar(None) == -40


@pytest.mark.rule("TFM_REENTRY_006")
def test_reentrant_mode_idiom() -> None:
    log: list[Callable[..., Any]] = []

    class A(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            if kwargs is None:
                kwargs = {}
            log.append(func)
            if func is torch.sub:
                with enable_torch_function_mode(self, replace=self.inner):
                    input, other = args
                    assert not kwargs
                    return torch.add(input, other, alpha=-1)
            return func(*args, **kwargs)

    x = torch.tensor([5.0])
    y = torch.tensor([2.0])
    with push_torch_function_mode(A):
        result = torch.sub(x, y)
    # add hits the torch function again!
    assert log == [torch.sub, torch.add]
    assert result.tolist() == [3.0]


@pytest.mark.rule("TFM_PUSH_007")
def test_ctor_requires_inner() -> None:
    """The PR-era counterpart of the later test_ctor_no_inner: inner= is mandatory."""

    class A(TorchFunctionMode):
        pass

    with pytest.raises(TypeError, match=r"missing inner keyword argument.*push_torch_func"):
        A()
