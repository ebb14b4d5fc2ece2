"""Explicit dispatch tests for reference_impl: NotImplemented and TypeError, and handlers
written as plain methods."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    push_torch_function_mode,
)
from tests.reference_recording import (
    FORWARD,
    NATIVE_PLAIN_METHOD,
    PYTHON_PLAIN_METHOD,
    Call,
    PlainDuck,
    PlainSub,
    clean_thread_state,  # noqa: F401 (an autouse fixture)
    make_subclass,
    pyfunc,
    recording,
    t,
    who,
)

# --- NotImplemented and TypeError ------------------------------------------------------------


def _native_message(name: str, types: list[type], mode: Any = None) -> str:
    text = (
        f"no implementation found for 'reference_impl.{name}' on types that implement "
        f"__torch_function__: [{', '.join(repr(tp) for tp in types)}]"
    )
    if mode is not None:
        text += " nor was it found on the currently active mode " + repr(mode)
    return text


def _python_message(func: Callable[..., Any], types: list[type], mode: Any = None) -> str:
    text = (
        f"no implementation found for '{func.__module__}.{func.__name__}' on types that "
        f"implement __torch_function__: [{', '.join(repr(tp) for tp in types)}]"
    )
    if mode is not None:
        text += f" nor in mode {mode}"
    return text


@pytest.mark.rule("TFM_ERROR_001", "TFM_ERROR_004", "TFM_NOTIMPL_002")
def test_native_type_error_text_without_mode() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    a, b = A(), B()
    with pytest.raises(TypeError) as info:
        torch.add(a, b)
    assert str(info.value) == _native_message("add", [A, B])
    assert "<class '" in str(info.value)
    with pytest.raises(TypeError) as info:
        b.add(a)
    assert str(info.value) == _native_message("Tensor.add", [B, A])
    with pytest.raises(TypeError) as info:
        a.neg()
    assert str(info.value) == _native_message("Tensor.neg", [A])


@pytest.mark.rule("TFM_ERROR_002", "TFM_NOTIMPL_002", "TFM_NOTIMPL_003")
def test_native_type_error_text_with_mode() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    with push_torch_function_mode(recording(log)) as mode:
        with pytest.raises(TypeError) as info:
            torch.max(A(), t())
        assert str(info.value) == _native_message("max", [A], mode)
        with pytest.raises(TypeError) as info:
            torch.ones(2)
        assert str(info.value) == _native_message("ones", [], mode)
    assert who(log) == ["M", "A", "M"]


@pytest.mark.rule("TFM_ERROR_003", "TFM_ERROR_004", "TFM_NOTIMPL_002")
def test_python_type_error_text() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    a = A()
    with pytest.raises(TypeError) as info:
        pyfunc(a)
    assert str(info.value) == _python_message(pyfunc, [A])
    with pytest.raises(TypeError) as info:
        torch.split(a, 1)
    assert str(info.value) == _python_message(torch.split, [A])
    assert "'reference_impl.functional.split'" in str(info.value)
    with push_torch_function_mode(recording(log)) as mode:
        with pytest.raises(TypeError) as info:
            pyfunc(a)
        assert str(info.value) == _python_message(pyfunc, [A], mode)


@pytest.mark.rule("TFM_NOTIMPL_003", "TFM_ERROR_003")
def test_python_path_notimplemented_on_plain_tensor_goes_through_tensor_default() -> None:
    """Mode declines; Tensor.__torch_function__ re-runs pyfunc with subclasses disabled; the
    mode declines again with types == (); the inner error names no types."""
    log: list[Call] = []
    x = t()
    with push_torch_function_mode(recording(log)) as mode, pytest.raises(TypeError) as info:
        pyfunc(x)
    assert str(info.value) == _python_message(pyfunc, [], mode)
    assert [call.types for call in log] == [(torch.Tensor,), ()]


@pytest.mark.rule("TFM_NOTIMPL_004")
def test_mode_notimplemented_never_reaches_inner() -> None:
    outer_log: list[Call] = []
    inner_log: list[Call] = []
    sub_log: list[Call] = []
    S = make_subclass("S", sub_log, result="from S")
    with (
        push_torch_function_mode(recording(outer_log, result=FORWARD, name="outer")),
        push_torch_function_mode(recording(inner_log, name="inner")),
    ):
        with pytest.raises(TypeError):
            torch.add(t(), t())
        assert torch.add(S(), t()) == "from S"
    assert outer_log == []
    assert who(inner_log) == ["inner", "inner"]
    assert who(sub_log) == ["S"]


@pytest.mark.rule("TFM_ERROR_005")
def test_handler_exceptions_propagate_unchanged() -> None:
    boom = RuntimeError("boom")
    log: list[Call] = []

    class Raising(torch.Tensor):
        @classmethod
        def __torch_function__(cls, *args: Any, **kwargs: Any) -> Any:
            raise boom

    Later = make_subclass("Later", log, result="later")
    with pytest.raises(RuntimeError) as info:
        torch.add(Raising(), Later())
    assert info.value is boom
    assert log == []

    class RaisingMode(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            raise boom

    with push_torch_function_mode(RaisingMode):
        with pytest.raises(RuntimeError) as info:
            torch.add(Later(), t())
        assert info.value is boom
        with pytest.raises(RuntimeError) as info:
            pyfunc(Later())
        assert info.value is boom
    assert log == []


@pytest.mark.rule("TFM_ERROR_007")
def test_torch_function_mode_base_handler_raises() -> None:
    with pytest.raises(NotImplementedError):
        TorchFunctionMode(inner=None).__torch_function__(torch.add, (), (t(), t()))
    with push_torch_function_mode(TorchFunctionMode), pytest.raises(NotImplementedError):
        torch.add(t(), t())


# --- plain-method handlers -------------------------------------------------------------------


@pytest.mark.rule("TFM_SELF_001", "TFM_SELF_002")
def test_native_plain_method_warns_every_call() -> None:
    PlainSub.calls = 0
    p = PlainSub()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert torch.add(p, t()) == "plain"
        assert p.neg() == "plain"
        assert torch.cat([t(), p]) == "plain"
        assert torch.mul(PlainDuck(), t()) == "plain duck"
    assert PlainSub.calls == 5
    assert len(caught) == 6
    assert all(w.category is UserWarning for w in caught)
    assert all(str(w.message) == NATIVE_PLAIN_METHOD for w in caught)
    assert all(w.filename == __file__ for w in caught)


@pytest.mark.rule("TFM_SELF_001", "TFM_SELF_003")
def test_python_plain_method_warns_every_call() -> None:
    PlainSub.calls = 0
    p = PlainSub()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert torch.split(p, 1) == "plain"
        assert pyfunc(PlainDuck()) == "plain duck"
    assert PlainSub.calls == 3
    assert len(caught) == 4
    assert all(w.category is DeprecationWarning for w in caught)
    assert all(str(w.message) == PYTHON_PLAIN_METHOD for w in caught)


@pytest.mark.rule("TFM_SELF_004", "TFM_SELF_005", "TFM_SELF_006")
def test_no_warning_for_classmethods_modes_or_unreached_handlers() -> None:
    log: list[Call] = []
    A = make_subclass("A", log, result="a")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert torch.add(A(), t()) == "a"
        assert pyfunc(A()) == "a"
        # A plain-method mode handler is called without a warning.
        with push_torch_function_mode(recording(log, result="mode")):
            assert torch.add(t(), t()) == "mode"
            # The mode decides first: the plain-method subclass is never reached.
            assert torch.add(PlainSub(), t()) == "mode"
            assert torch.split(PlainSub(), 1) == "mode"
