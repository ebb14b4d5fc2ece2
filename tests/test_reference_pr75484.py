"""PR #75154's next-day additions (#75484) and TestTorchFunctionWarning, ported to reference_impl."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    is_tensor_like,
    push_torch_function_mode,
)
from tests.pr75154_fixtures import bar
from tests.reference_recording import clean_thread_state  # noqa: F401 (an autouse fixture)

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
