"""Explicit dispatch tests for reference_impl: the order of overloaded arguments, types, and
the arguments handlers receive."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    has_torch_function,
    push_torch_function_mode,
)
from tests.reference_recording import (
    Call,
    Duck,
    RecordingMode,
    clean_thread_state,  # noqa: F401 (an autouse fixture)
    make_subclass,
    pyfunc,
    pyfunc_kw,
    recording,
    t,
    who,
)

# --- order of overloaded arguments ----------------------------------------------------------


@pytest.mark.rule("TFM_ORDER_003", "TFM_TYPES_001")
def test_subclass_before_superclass_native() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    SubA = make_subclass("SubA", log, base=A)
    a, sa = A(), SubA()
    for args in ((a, sa), (sa, a)):
        log.clear()
        with pytest.raises(TypeError):
            torch.add(*args)
        assert who(log) == ["SubA", "A"]
        assert all(call.types == (SubA, A) for call in log)


@pytest.mark.rule("TFM_ORDER_004", "TFM_TYPES_001")
def test_left_to_right_native() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    a, b = A(), B()
    with pytest.raises(TypeError):
        torch.add(a, b)
    assert who(log) == ["A", "B"]
    assert log[0].types == (A, B)
    log.clear()
    with pytest.raises(TypeError):
        torch.add(b, a)
    assert who(log) == ["B", "A"]
    assert log[0].types == (B, A)


@pytest.mark.rule("TFM_ORDER_005", "TFM_ORDER_003", "TFM_ORDER_006")
def test_dedupe_by_type_first_occurrence() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    SubA = make_subclass("SubA", log, base=A)
    a1, a2, b1, b2, sa = A(), A(), B(), B(), SubA()
    with pytest.raises(TypeError):
        torch.cat([a1, b1, a2, sa, b2])
    assert who(log) == ["SubA", "A", "B"]
    assert log[0].types == (SubA, A, B)
    log.clear()
    with pytest.raises(TypeError):
        torch.cat([b1, a1, sa])
    # SubA goes just before its superclass, not to the front.
    assert log[0].types == (B, SubA, A)


@pytest.mark.rule("TFM_SELF_001", "TFM_ORDER_005")
def test_handler_bound_to_first_argument_of_its_type() -> None:
    seen: list[Any] = []

    class P(torch.Tensor):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
            seen.append(self)
            return "p"

    p1, p2 = P(), P()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert torch.add(p1, p2) == "p"
        assert torch.add(p2, p1) == "p"
    assert seen[0] is p1
    assert seen[1] is p2
    assert len(seen) == 2


@pytest.mark.rule("TFM_ORDER_006", "TFM_ORDER_004")
def test_lists_and_kwargs_are_scanned_in_order() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    a, b, x = A(), B(), t()
    cases: list[tuple[Callable[[], Any], list[str]]] = [
        (lambda: torch.cat([x, a]), ["A"]),
        (lambda: torch.cat((b, x, a)), ["B", "A"]),
        (lambda: torch.cat(tensors=[x, b, a]), ["B", "A"]),
        (lambda: torch.add(x, other=a), ["A"]),
        (lambda: torch.add(input=a, other=b), ["A", "B"]),
        (lambda: torch.add(other=b, input=a), ["B", "A"]),
        (lambda: torch.add(b, other=a), ["B", "A"]),
        (lambda: x.add(other=b), ["B"]),
    ]
    for call, expected in cases:
        log.clear()
        with pytest.raises(TypeError):
            call()
        assert who(log) == expected


@pytest.mark.rule("TFM_ORDER_007", "TFM_NOTIMPL_001")
def test_first_result_wins_later_handlers_not_called() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    B = make_subclass("B", log, result="from B")
    C = make_subclass("C", log, result="from C")
    assert torch.add(A(), B(), alpha=C()) == "from B"
    assert who(log) == ["A", "B"]


@pytest.mark.rule("TFM_ORDER_003", "TFM_ORDER_004", "TFM_ORDER_005", "TFM_TYPES_004")
def test_python_path_order_includes_plain_tensor() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    SubA = make_subclass("SubA", log, base=A)
    x, a, b, sa = t(), A(), B(), SubA()
    # Tensor is collected on the Python path; being the superclass, it goes last.
    with pytest.raises(TypeError):
        pyfunc(x, a, b)
    # Tensor's default handler declines: Tensor is not a subclass of A or B.
    assert who(log) == ["A", "B"]
    assert log[0].types == (A, B, torch.Tensor)
    log.clear()
    with pytest.raises(TypeError):
        pyfunc(a, x, sa, a, b)
    assert log[0].types == (SubA, A, B, torch.Tensor)


@pytest.mark.rule("TFM_TYPES_006")
def test_duck_typed_object_is_overloaded() -> None:
    Duck.log = []
    x = t()
    assert torch.add(x, Duck()) == "duck"
    assert Duck.log[0].types == (Duck,)
    assert Duck.log[0].func is torch.add
    assert pyfunc(x, Duck()) == "duck"
    # Duck is no subclass of Tensor, so it stays after the plain tensor on the Python path.
    assert Duck.log[1].types == (torch.Tensor, Duck)
    log: list[Call] = []
    with push_torch_function_mode(recording(log)):
        assert torch.mul(Duck(), x) == "duck"
    assert log[0].types == (Duck,)


@pytest.mark.rule("TFM_TYPES_005", "TFM_REACH_003")
def test_disabled_impl_subclass_is_never_overloaded() -> None:
    class Opt(torch.Tensor):
        __torch_function__ = torch._C._disabled_torch_function_impl

    d = Opt([1.0, 2.0])
    result = torch.add(d, d)
    assert type(result) is torch.Tensor
    assert result.tolist() == [2.0, 4.0]
    assert not has_torch_function((d,))
    assert torch.split(d, 1)[0].tolist() == [1.0]
    log: list[Call] = []
    with push_torch_function_mode(recording(log)):
        with pytest.raises(TypeError):
            torch.add(d, d)
        with pytest.raises(TypeError):
            pyfunc(d)
    assert [call.types for call in log] == [(), ()]


# --- types -----------------------------------------------------------------------------------


@pytest.mark.rule("TFM_TYPES_003", "TFM_TYPES_004", "TFM_TYPES_002")
def test_types_on_both_paths() -> None:
    log: list[Call] = []
    x = t()
    with push_torch_function_mode(recording(log, result=0)):
        torch.add(x, x)
        torch.Tensor.add(x, x)
        torch.ones(2)
        torch.split(x, 1)
        pyfunc(x, x)
    assert [call.types for call in log] == [(), (), (), (torch.Tensor,), (torch.Tensor,)]
    assert all(RecordingMode not in call.types for call in log)


@pytest.mark.rule("TFM_TYPES_001", "TFM_TYPES_002")
def test_mode_and_subclasses_get_the_same_types() -> None:
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    with push_torch_function_mode(recording(log)):
        with pytest.raises(TypeError):
            torch.add(A(), B())
        with pytest.raises(TypeError):
            pyfunc(B(), A())
    assert who(log) == ["M", "A", "B", "M", "B", "A"]
    assert {call.types for call in log[:3]} == {(A, B)}
    assert {call.types for call in log[3:]} == {(B, A)}
    assert all(type(call.types) is tuple for call in log)


# --- arguments -------------------------------------------------------------------------------


@pytest.mark.rule("TFM_ARGS_001", "TFM_REACH_006")
def test_func_is_the_public_callable() -> None:
    log: list[Call] = []
    x = t()
    with push_torch_function_mode(recording(log, result=0)):
        torch.add(x, x)
        torch.sub(x, x)
        x.add(x)
        x.neg()
        _ = x + x
        torch.split(x, 1)
        pyfunc(x)
    funcs = [call.func for call in log]
    expected = [
        torch.add,
        torch.sub,
        torch.Tensor.add,
        torch.Tensor.neg,
        torch.Tensor.add,
        torch.split,
        pyfunc,
    ]
    assert len(funcs) == len(expected)
    assert all(f is e for f, e in zip(funcs, expected, strict=True))
    # Methods put self first.
    assert log[2].args[0] is x
    assert log[3].args == (x,)


@pytest.mark.rule("TFM_NOTIMPL_002", "TFM_REACH_006")
def test_binary_operator_declined_everywhere() -> None:
    """As in torch, Tensor.__add__ turns the TypeError into NotImplemented, so Python tries
    the reflected operand: handlers run for add(a, b) and then for add(b, a)."""
    log: list[Call] = []
    A, B = make_subclass("A", log), make_subclass("B", log)
    a, b = A(), B()
    with pytest.raises(TypeError, match="unsupported operand type"):
        _ = a + b
    assert who(log) == ["A", "B", "B", "A"]
    assert all(call.func is torch.Tensor.add for call in log)
    assert [call.args for call in log] == [(a, b), (a, b), (b, a), (b, a)]


@pytest.mark.rule("TFM_ARGS_002")
def test_args_and_kwargs_as_written() -> None:
    log: list[Call] = []
    x, y = t(1.0), t(2.0)
    pair = [x, y]
    with push_torch_function_mode(recording(log, result=0)):
        torch.add(input=x, other=y)
        torch.cat(pair, dim=0)
        torch.add(x, y, alpha=3)
        x.add(other=y)
        _ = 1 + x
    assert log[0].args == ()
    assert log[0].kwargs == {"input": x, "other": y}
    assert log[1].rest[0][0] is pair  # the list itself, not a copy
    assert log[1].kwargs == {"dim": 0}
    assert log[2].args == (x, y)
    assert log[2].kwargs == {"alpha": 3}
    assert log[3].args == (x,)
    assert log[3].kwargs == {"other": y}
    assert log[4].args == (x, 1)


@pytest.mark.rule("TFM_ARGS_003")
def test_native_handlers_get_three_arguments_without_kwargs() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    a = A()
    with push_torch_function_mode(recording(log)):
        with pytest.raises(TypeError):
            torch.add(a, a)
        with pytest.raises(TypeError):
            torch.add(a, a, **{})
        with pytest.raises(TypeError):
            a.neg()
    assert who(log) == ["M", "A"] * 3
    assert all(len(call.rest) == 1 for call in log)


@pytest.mark.rule("TFM_ARGS_003")
def test_native_handlers_get_kwargs_dict_when_given() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    a = A()
    with push_torch_function_mode(recording(log)), pytest.raises(TypeError):
        torch.add(a, a, alpha=2)
    assert who(log) == ["M", "A"]
    assert [call.kwargs for call in log] == [{"alpha": 2}, {"alpha": 2}]


@pytest.mark.rule("TFM_ARGS_003")
def test_native_default_kwargs_parameter_is_used() -> None:
    """A handler whose kwargs has a default works; one without a default fails (3 args)."""
    x = t()

    class NoDefault(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
            return kwargs

    with push_torch_function_mode(NoDefault):
        with pytest.raises(TypeError, match="missing 1 required positional argument"):
            torch.add(x, x)
        assert torch.add(x, x, alpha=2) == {"alpha": 2}


@pytest.mark.rule("TFM_ARGS_004")
def test_python_path_always_passes_a_kwargs_dict() -> None:
    log: list[Call] = []
    A = make_subclass("A", log)
    a = A()
    with push_torch_function_mode(recording(log)):
        with pytest.raises(TypeError):
            pyfunc(a)
        with pytest.raises(TypeError):
            pyfunc_kw(a, flag=5)
        with pytest.raises(TypeError):
            torch.split(a, 1)
    assert who(log) == ["M", "A"] * 3
    assert all(len(call.rest) == 2 for call in log)
    assert [call.kwargs for call in log] == [{}, {}, {"flag": 5}, {"flag": 5}, {}, {}]
