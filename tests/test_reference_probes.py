"""Explicit dispatch tests for reference_impl: has_torch_function and its family, and
DisableTorchFunction."""

from __future__ import annotations

from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
    is_tensor_like,
    push_torch_function_mode,
)
from tests.reference_recording import (
    FORWARD,
    Call,
    Duck,
    PlainDuck,
    PlainSub,
    clean_thread_state,  # noqa: F401 (an autouse fixture)
    make_subclass,
    recording,
    t,
    who,
)

# --- NotImplemented and TypeError ------------------------------------------------------------


# --- has_torch_function ----------------------------------------------------------------------


@pytest.mark.rule("TFM_REACH_003")
def test_has_torch_function_without_mode() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)

    class Opt(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    table: list[tuple[Any, bool]] = [
        (t(), False),
        (None, False),
        (1, False),
        ("x", False),
        (A(), True),
        (Duck(), True),
        (PlainSub(), True),
        (Opt(), False),
        (A, False),  # a class is not an instance of it
    ]
    for obj, expected in table:
        assert has_torch_function((obj,)) is expected, obj
        assert has_torch_function([obj]) is expected, obj
        assert has_torch_function_unary(obj) is expected, obj
        assert has_torch_function_variadic(obj) is expected, obj
        assert has_torch_function_variadic(t(), obj) is expected, obj
    assert has_torch_function(()) is False
    assert has_torch_function_variadic() is False
    # Only the elements count, not elements of nested lists.
    assert has_torch_function(([A()],)) is False
    with torch._C.DisableTorchFunction():
        assert has_torch_function((A(),)) is False
        assert has_torch_function_unary(Duck()) is False


@pytest.mark.rule("TFM_TYPES_006", "TFM_TYPES_005")
def test_is_tensor_like() -> None:
    class Opt(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    for obj in (t(), make_subclass("A", [])(), Duck(), PlainDuck(), Opt()):
        assert is_tensor_like(obj) is True, obj
    for obj in (None, 1, 1.5, "x", object(), [t()]):
        assert is_tensor_like(obj) is False, obj


@pytest.mark.rule("TFM_REACH_001", "TFM_REACH_002", "TFM_DISABLE_005")
def test_has_torch_function_with_mode() -> None:
    objects = [t(), None, 0, 1.5, "x", object(), torch.Tensor]
    log: list[Call] = []
    with push_torch_function_mode(recording(log)):
        for obj in objects:
            assert has_torch_function((obj,)) is True
            assert has_torch_function_unary(obj) is True
            assert has_torch_function_variadic(obj) is True
        assert has_torch_function(()) is False
        assert has_torch_function([]) is False
        assert has_torch_function_variadic() is False
        with torch._C.DisableTorchFunction():
            assert has_torch_function((t(),)) is True
            assert has_torch_function_unary(None) is True
    assert log == []


@pytest.mark.rule("TFM_REACH_001", "TFM_REACH_003")
def test_has_torch_function_same_functions_in_c_and_overrides() -> None:
    assert torch._C._has_torch_function is has_torch_function
    assert torch._C._has_torch_function_unary is has_torch_function_unary
    assert torch._C._has_torch_function_variadic is has_torch_function_variadic


@pytest.mark.rule("TFM_REACH_004", "TFM_REACH_005", "TFM_REACH_006", "TFM_REACH_007")
def test_reach_under_mode() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    x = t()
    with push_torch_function_mode(recording(log, result=0)):
        torch.ones(2, 3)
        torch.split(None, 2)
        x.neg()
        torch.add(x, A())
        torch.add(x, 1)
    expected = [torch.ones, torch.split, torch.Tensor.neg, torch.add, torch.add]
    assert [call.func for call in log] == expected
    assert log[0].types == ()
    assert log[0].args == (2, 3)
    assert log[1].args == (None, 2)
    assert log[1].types == ()  # None has no __torch_function__
    # Collection ignores the mode: only the real subclass is overloaded.
    assert log[3].types == (A,)
    assert log[4].types == ()


# --- DisableTorchFunction --------------------------------------------------------------------


@pytest.mark.rule("TFM_DISABLE_001", "TFM_DISABLE_002", "TFM_DISABLE_003")
def test_disable_keeps_mode_and_drops_subclasses() -> None:
    log: list[Call] = []
    A = make_subclass("A", log, result="a")
    a = A([1.0, 2.0])
    with torch._C.DisableTorchFunction():
        result = torch.add(a, a)
        assert type(result) is torch.Tensor
        assert result.tolist() == [2.0, 4.0]
        chunks = torch.split(a, 1)
        assert [type(c) for c in chunks] == [torch.Tensor, torch.Tensor]
    assert log == []
    with push_torch_function_mode(recording(log, result=FORWARD)), torch._C.DisableTorchFunction():
        result = torch.add(a, a)
        torch.split(a, 1)
    assert type(result) is torch.Tensor
    assert who(log) == ["M", "M"]
    assert [call.types for call in log] == [(), ()]


@pytest.mark.rule("TFM_DISABLE_006")
def test_disable_restores_previous_state() -> None:
    assert torch._C._is_torch_function_enabled()
    with torch._C.DisableTorchFunction():
        assert not torch._C._is_torch_function_enabled()
        with torch._C.DisableTorchFunction():
            assert not torch._C._is_torch_function_enabled()
        assert not torch._C._is_torch_function_enabled()
    assert torch._C._is_torch_function_enabled()
    with pytest.raises(KeyError), torch._C.DisableTorchFunction():
        raise KeyError("body")
    assert torch._C._is_torch_function_enabled()


@pytest.mark.rule("TFM_DISABLE_004")
def test_default_tensor_handler_runs_func_with_subclasses_disabled() -> None:
    log: list[Call] = []

    class B(torch.Tensor):
        pass

    with push_torch_function_mode(recording(log, result=NotImplemented)), pytest.raises(TypeError):
        torch.neg(B())
    # Mode with (B,), then B's default handler re-runs neg under DisableTorchFunction,
    # where the mode is reached again with no overloaded types.
    assert [call.types for call in log] == [(B,), ()]
    assert log[1].func is torch.neg


@pytest.mark.rule("TFM_DISABLE_001")
def test_disabled_torch_function_impl_runs_func_disabled() -> None:
    log: list[Call] = []
    A = make_subclass("A", log, result="a")
    impl = torch._C._disabled_torch_function_impl
    result = impl(torch.add, (), (A([1.0]), A([2.0])), None)
    assert type(result) is torch.Tensor
    assert result.tolist() == [3.0]
    assert impl(torch.add, (), (A([1.0]), A([2.0])), {"alpha": 2}).tolist() == [5.0]
    assert log == []
    assert torch._C._is_torch_function_enabled()
    # It restores the previous state, whatever it was.
    with torch._C.DisableTorchFunction():
        impl(torch.neg, (), (A([1.0]),))
        assert not torch._C._is_torch_function_enabled()
    # Unlike a plain function, it does not bind: the attribute is the impl itself.
    opt = type("Opt", (torch.Tensor,), {"__torch_function__": impl})()
    assert opt.__torch_function__ is impl
    assert opt.__torch_function__(torch.neg, (), (torch.tensor([2.0]),)).tolist() == [-2.0]
