"""PR #75154's TestTorchFunctionMode (and its next-day additions), ported to reference_impl."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from functools import partial
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    enable_torch_function_mode,
    handle_torch_function,
    has_torch_function,
    is_tensor_like,
    push_torch_function_mode,
)


@pytest.fixture(autouse=True)
def _clean_thread_state() -> Iterator[None]:
    assert torch._C._get_torch_function_mode() is None
    assert torch._C._is_torch_function_enabled()
    yield
    assert torch._C._get_torch_function_mode() is None
    assert torch._C._is_torch_function_enabled()


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


# --- next-day additions (#75484) -------------------------------------------------------------


@pytest.mark.rule("TFM_REACH_004", "TFM_ARGS_001")
def test_nn_parse_to() -> None:
    """torch._C._nn._parse_to('cpu') → torch.ones(2).

    The point kept: a native called with no tensor argument at all (only a plain value)
    still reaches the mode, which sees the public callable.
    """
    called: list[Callable[..., Any]] = []

    class A(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            called.append(func)
            return func(*args, **(kwargs or {}))

    with push_torch_function_mode(A):
        result = torch.ones(2)
    assert called == [torch.ones]
    assert result.tolist() == [1.0, 1.0]


def bernoulli_probs(probs: Any) -> Any:
    """A Python function that validates with is_tensor_like, like distributions' broadcast_all."""
    if not is_tensor_like(probs):
        if not isinstance(probs, float):
            raise ValueError("probs must be tensor-like or a float")
        probs = torch.tensor([probs])
    return torch.mul(probs, torch.ones(1))


@pytest.mark.rule("TFM_REACH_005", "TFM_REACH_004")
def test_distributions_bernoulli() -> None:
    """torch.distributions.Bernoulli(0.3) → bernoulli_probs(0.3), a Python function that
    accepts tensor-likes through is_tensor_like and builds its result from natives."""
    called: list[Callable[..., Any]] = []

    class A(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            called.append(func)
            return func(*args, **(kwargs or {}))

    with push_torch_function_mode(A):
        result = bernoulli_probs(0.3)
    assert called == [torch.ones, torch.mul]
    assert result.tolist() == [0.3]

    # Tensor-likes that are not exact Tensors are accepted as they are.
    class Probs(torch.Tensor):
        pass

    called.clear()
    with push_torch_function_mode(A):
        result = bernoulli_probs(torch.tensor([0.5]).as_subclass(Probs))
    assert called == [torch.ones, torch.mul]
    assert type(result) is Probs
    assert result.tolist() == [0.5]


@pytest.mark.rule("TFM_DISABLE_004", "TFM_DISABLE_003", "TFM_NOTIMPL_001")
def test_mode_notimplemented_loop() -> None:
    # Default tensor subclass implementation disables torch function;
    # when we redispatch to mode we must not treat the objects as eligible.
    called = 0

    class A(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            nonlocal called
            if kwargs is None:
                kwargs = {}
            called += 1
            # The first time we call, the mode sees an active type that it doesn't
            # know how to deal with. The second time, we're instructed to treat it
            # "as if it were a tensor", and so we keep going.
            if any(t is not torch.Tensor for t in types):
                return NotImplemented
            return func(*args, **kwargs)

    class B(torch.Tensor):
        pass

    b = B([1.0, -2.0])
    with push_torch_function_mode(A):
        r = torch.neg(b)
    assert type(r) is B
    assert r.tolist() == [-1.0, 2.0]
    assert called == 2

    called = 0
    with push_torch_function_mode(A):
        r = bar(b)
    assert type(r) is B
    assert called == 2


@pytest.mark.rule("TFM_DISABLE_001", "TFM_DISABLE_002")
def test_disable_subclass_not_mode() -> None:
    """torch.randn(5) → torch.ones(5)."""
    called = False

    class A(TorchFunctionMode):
        def __torch_function__(
            self,
            func: Callable[..., Any],
            types: tuple[type, ...],
            args: tuple[Any, ...] = (),
            kwargs: dict[str, Any] | None = None,
        ) -> Any:
            nonlocal called
            if kwargs is None:
                kwargs = {}
            called = True
            return func(*args, **kwargs)

    class B(torch.Tensor):
        pass

    x = B(torch.ones(5))
    with push_torch_function_mode(A), torch._C.DisableTorchFunction():
        result = torch.sum(x)
    assert not isinstance(result, B)
    assert type(result) is torch.Tensor
    assert result.tolist() == [5.0]
    assert called


# --- TestTorchFunctionWarning ----------------------------------------------------------------


@pytest.mark.rule("TFM_SELF_002", "TFM_SELF_003", "TFM_SELF_001")
def test_warn_on_invalid_torch_function() -> None:
    """torch.nn.functional.dropout → torch.split (Python path); torch.abs is native here."""

    class Bad1:
        def __torch_function__(self, *args: Any, **kwargs: Any) -> None:
            pass

    class Bad2(torch.Tensor):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> None:
            pass

    for a in (Bad1(), Bad2()):
        with pytest.warns(DeprecationWarning, match="as a plain method is deprecated"):
            # Function that handles torch_function on the python side
            assert torch.split(a, 1) is None
        with pytest.warns(UserWarning, match="as a plain method is deprecated"):
            # Function that handles torch_function in C++
            assert torch.abs(a) is None
