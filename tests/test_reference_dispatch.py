"""Explicit dispatch tests for reference_impl: order, types, arguments, errors, warnings, modes."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from dataclasses import dataclass
from functools import partial
from typing import Any, ClassVar

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    BaseTorchFunctionMode,
    TorchFunctionMode,
    enable_torch_function_mode,
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
    has_torch_function_variadic,
    is_tensor_like,
    push_torch_function_mode,
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


def _respond(result: Any, func: Callable[..., Any], rest: tuple[Any, ...]) -> Any:
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
        return _respond(result, func, rest)

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
        return _respond(self.result, func, rest)


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


class PlainSub(torch.Tensor):
    calls = 0

    def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:  # type: ignore[override]
        type(self).calls += 1
        return "plain"


class PlainDuck:
    def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
        return "plain duck"


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


# --- modes: re-entry -------------------------------------------------------------------------


class RawMode:
    """Not a TorchFunctionMode: set directly with _set_torch_function_mode."""

    def __init__(self, result: Any = "raw") -> None:
        self.seen: list[Any] = []
        self.result = result

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        self.seen.append(torch._C._get_torch_function_mode())
        if isinstance(self.result, BaseException):
            raise self.result
        return self.result


@pytest.mark.rule("TFM_REENTRY_001", "TFM_REENTRY_002", "TFM_REENTRY_003", "TFM_ERROR_006")
def test_dispatcher_clears_and_restores_the_slot() -> None:
    raw = RawMode()
    torch._C._set_torch_function_mode(raw)
    try:
        assert torch.add(t(), t()) == "raw"
        assert pyfunc(t()) == "raw"
        assert torch._C._get_torch_function_mode() is raw
        raw.result = ValueError("inside")
        with pytest.raises(ValueError, match="inside"):
            torch.ones(1)
        assert torch._C._get_torch_function_mode() is raw
        with pytest.raises(ValueError, match="inside"):
            torch.split(t(), 1)
        assert torch._C._get_torch_function_mode() is raw
    finally:
        torch._C._set_torch_function_mode(None)
    assert raw.seen == [None, None, None, None]


@pytest.mark.rule("TFM_REENTRY_004", "TFM_PUSH_002")
def test_wrapper_makes_inner_current() -> None:
    seen: list[Any] = []

    class Probe(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            seen.append((self, torch._C._get_torch_function_mode()))
            return 0

    with push_torch_function_mode(Probe) as outer:
        with push_torch_function_mode(Probe) as inner_mode:
            torch.add(t(), t())
        torch.add(t(), t())
    assert seen[0] == (inner_mode, outer)
    assert seen[1][0] is outer
    assert isinstance(seen[1][1], BaseTorchFunctionMode)
    assert seen[1][1] is outer.inner
    assert outer.inner.inner is None


@pytest.mark.rule("TFM_REENTRY_005")
def test_inner_none_means_no_mode_inside_handler() -> None:
    seen: list[Any] = []

    class Probe(TorchFunctionMode):
        def __torch_function__(
            self, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(torch._C._get_torch_function_mode())
            return func(*args, **(kwargs or {}))

    mode = Probe(inner=None)
    with enable_torch_function_mode(mode):
        result = torch.add(t(1.0), t(2.0))
        assert torch._C._get_torch_function_mode() is mode
    assert seen == [None]  # one call only: the inner add reached no mode
    assert result.tolist() == [3.0]


@pytest.mark.rule("TFM_REENTRY_007")
def test_subclass_handlers_run_with_mode_restored() -> None:
    mode_log: list[Call] = []
    seen: list[Any] = []

    class S(torch.Tensor):
        @classmethod
        def __torch_function__(
            cls, func: Any, types: Any, args: Any = (), kwargs: Any = None
        ) -> Any:
            seen.append(torch._C._get_torch_function_mode())
            torch.neg(torch.tensor([1.0]))
            return "s"

    class DeclineAdd(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, *rest: Any) -> Any:
            mode_log.append(Call("M", func, types, rest, None))
            return NotImplemented if func is torch.add else 0

    with push_torch_function_mode(DeclineAdd) as mode:
        assert torch.add(S(), t()) == "s"
    assert seen == [mode]
    assert [call.func for call in mode_log] == [torch.add, torch.neg]


# --- modes: push, enable, metaclass ----------------------------------------------------------


@pytest.mark.rule("TFM_PUSH_001", "TFM_PUSH_002")
def test_push_calls_ctor_with_current_mode() -> None:
    received: list[Any] = []

    def ctor(**kwargs: Any) -> Any:
        received.append(kwargs)
        return RecordingMode([], inner=kwargs["inner"])

    with push_torch_function_mode(ctor) as first:
        assert torch._C._get_torch_function_mode() is first
        with push_torch_function_mode(ctor) as second:
            assert torch._C._get_torch_function_mode() is second
        assert torch._C._get_torch_function_mode() is first
    assert list(received[0]) == ["inner"]
    assert type(received[0]["inner"]) is BaseTorchFunctionMode
    assert received[0]["inner"].inner is None
    assert received[1] == {"inner": first}
    assert second.inner is first


@pytest.mark.rule("TFM_PUSH_001")
def test_push_on_top_of_enabled_class_or_raw_object() -> None:
    class S(torch.Tensor):
        pass

    with enable_torch_function_mode(S), push_torch_function_mode(recording([])) as mode:
        assert mode.inner is S
    raw = RawMode()
    torch._C._set_torch_function_mode(raw)
    try:
        with push_torch_function_mode(recording([])) as mode:
            assert mode.inner is raw
        assert torch._C._get_torch_function_mode() is raw
    finally:
        torch._C._set_torch_function_mode(None)


@pytest.mark.rule("TFM_PUSH_005", "TFM_PUSH_006")
def test_push_error_texts() -> None:
    instance = RecordingMode([], inner=None)
    with pytest.raises(ValueError) as info, push_torch_function_mode(instance):
        pass
    assert str(info.value) == (
        "Expected a TorchFunctionMode constructor function, but got an instance of "
        f"TorchFunctionMode {instance}.  Consider using enable_torch_function_mode instead."
    )
    for bad in (lambda *, inner: None, lambda *, inner: inner.__class__, lambda *, inner: 3):
        with pytest.raises(ValueError, match="return a TorchFunctionMode"):
            enter(push_torch_function_mode(bad))


@pytest.mark.rule("TFM_PUSH_007", "TFM_PUSH_008")
def test_metaclass_injects_inner() -> None:
    observed: list[Any] = []

    class WithInit(TorchFunctionMode):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            observed.append((getattr(self, "inner", "unset"), args, kwargs))

    class WithoutInit(TorchFunctionMode):
        pass

    sentinel = object()
    mode = WithInit(1, k=2, inner=sentinel)
    assert mode.inner is sentinel
    assert observed == [(sentinel, (1,), {"k": 2})]
    assert WithoutInit(inner=None).inner is None
    message = (
        "missing inner keyword argument; instead of constructing a TorchFunctionMode directly, "
        "pass the constructor to push_torch_function_mode"
    )
    for make in (lambda: WithInit(1), lambda: WithoutInit(), lambda: TorchFunctionMode()):
        with pytest.raises(TypeError) as info:
            make()
        assert str(info.value) == message
    assert len(observed) == 1


@pytest.mark.rule("TFM_PUSH_009")
def test_base_mode_passes_through() -> None:
    base = BaseTorchFunctionMode(inner=None)
    x, y = t(1.0), t(2.0)
    assert base.__torch_function__(torch.add, (), (x, y)).tolist() == [3.0]
    assert base.__torch_function__(torch.add, (), (x, y), None).tolist() == [3.0]
    assert base.__torch_function__(torch.add, (), (x, y), {"alpha": 2}).tolist() == [5.0]
    assert base.__torch_function__(torch.add, (), (), {"input": x, "other": y}).tolist() == [3.0]


@pytest.mark.rule("TFM_ENABLE_001", "TFM_ENABLE_011")
def test_enable_sets_and_restores_without_touching_inner() -> None:
    sentinel = object()
    mode = RecordingMode([], inner=sentinel)
    other = RecordingMode([], inner=None)
    del other.inner
    with enable_torch_function_mode(mode):
        assert torch._C._get_torch_function_mode() is mode
        assert mode.inner is sentinel
    assert torch._C._get_torch_function_mode() is None
    with enable_torch_function_mode(other):
        assert torch._C._get_torch_function_mode() is other
    assert not hasattr(other, "inner")


@pytest.mark.rule("TFM_ENABLE_003", "TFM_ENABLE_004", "TFM_ENABLE_006")
def test_enable_refuses_to_replace_silently() -> None:
    class S(torch.Tensor):
        pass

    first = RecordingMode([], inner=None)
    second = RecordingMode([], inner=None)
    with enable_torch_function_mode(first):
        with pytest.raises(ValueError) as info, enable_torch_function_mode(second):
            pass
        assert str(info.value) == (
            "Attempted to enable_torch_function_mode, but there is already an active mode "
            f"{first}.  Use push_torch_function_mode instead."
        )
        with pytest.raises(ValueError) as info, enable_torch_function_mode(S):
            pass
        assert str(info.value) == (
            "Attempted to enable_torch_function_mode, but there is already an active mode "
            f"{first}.  If you intended to completely override the preexisting mode, pass "
            "ignore_preexisting=True.  This can result in unexpected behavior; please consider "
            "rewriting your mode to be a subclass of TorchFunctionMode to make it "
            "compositional!"
        )
        with pytest.raises(ValueError, match="already an active mode"):
            enter(enable_torch_function_mode(second, replace=second))
        with pytest.raises(ValueError, match="already an active mode"):
            enter(enable_torch_function_mode(S, replace=object()))
        assert torch._C._get_torch_function_mode() is first


@pytest.mark.rule("TFM_ENABLE_005", "TFM_ENABLE_007", "TFM_SUBMODE_001")
def test_enable_replace_and_ignore_preexisting() -> None:
    class S(torch.Tensor):
        @classmethod
        def __torch_function__(cls, *args: Any, **kwargs: Any) -> Any:
            return "S"

    first = RecordingMode([], result="first", inner=None)
    second = RecordingMode([], result="second", inner=None)
    with enable_torch_function_mode(first):
        with enable_torch_function_mode(second, replace=first):
            assert torch.add(t(), t()) == "second"
        with enable_torch_function_mode(S, ignore_preexisting=True):
            assert torch.add(t(), t()) == "S"
            with enable_torch_function_mode(second, replace=S):
                assert torch.add(t(), t()) == "second"
            assert torch.add(t(), t()) == "S"
        assert torch.add(t(), t()) == "first"


@pytest.mark.rule("TFM_ENABLE_008")
def test_enable_argument_types() -> None:
    class ModeClass(TorchFunctionMode):
        pass

    for bad in (ModeClass, TorchFunctionMode, 3, "mode", object(), t()):
        with pytest.raises(ValueError) as info, enable_torch_function_mode(bad):
            pass
        assert str(info.value) == (
            "expected to get TorchFunctionMode, Tensor-like class, or None as argument, "
            f"got {type(bad)} instead"
        )


@pytest.mark.rule("TFM_ENABLE_009", "TFM_ENABLE_010")
def test_enable_requires_torch_function() -> None:
    message = "The argument passed to enable_torch_function_mode must implement __torch_function__"
    with pytest.raises(ValueError) as info, enable_torch_function_mode(int):
        pass
    assert str(info.value) == message
    # None is a no-op when nothing is current ...
    with enable_torch_function_mode(None):
        assert torch._C._get_torch_function_mode() is None
    # ... and can never clear a current mode.
    mode = RecordingMode([], inner=None)
    with enable_torch_function_mode(mode):
        with pytest.raises(ValueError, match="If you intended to completely override"):
            enter(enable_torch_function_mode(None))
        for kwargs in ({"replace": mode}, {"ignore_preexisting": True}):
            with pytest.raises(ValueError) as info:
                enter(enable_torch_function_mode(None, **kwargs))
            assert str(info.value) == message
        assert torch._C._get_torch_function_mode() is mode


@pytest.mark.rule("TFM_ENABLE_012", "TFM_ENABLE_002")
def test_enable_check_order() -> None:
    mode = RecordingMode([], inner=None)
    with enable_torch_function_mode(mode):
        # The type check comes before the active-mode check.
        with pytest.raises(ValueError, match="expected to get TorchFunctionMode"):
            enter(enable_torch_function_mode(42))
        # The active-mode check comes before the __torch_function__ check.
        with pytest.raises(ValueError, match="already an active mode"):
            enter(enable_torch_function_mode(int))
    # The identical-object no-op comes before the __torch_function__ check.
    torch._C._set_torch_function_mode(int)
    try:
        with enable_torch_function_mode(int):
            assert torch._C._get_torch_function_mode() is int
        assert torch._C._get_torch_function_mode() is int
    finally:
        torch._C._set_torch_function_mode(None)


# --- Tensor subclass used as a mode ----------------------------------------------------------


@pytest.mark.rule("TFM_SUBMODE_001", "TFM_SUBMODE_002", "TFM_SUBMODE_004", "TFM_REENTRY_001")
def test_tensor_subclass_as_mode() -> None:
    log: list[Call] = []
    AsMode = make_subclass("AsMode", log, result="as mode")
    Other = make_subclass("Other", log)
    with enable_torch_function_mode(AsMode):
        assert torch.add(t(), t()) == "as mode"
        assert torch.ones(3) == "as mode"
        assert torch.split(t(), 1) == "as mode"
        assert torch.add(Other(), t()) == "as mode"
        assert torch._C._get_torch_function_mode() is AsMode
    assert who(log) == ["AsMode"] * 4
    assert [call.types for call in log] == [(), (), (torch.Tensor,), (Other,)]
    assert all(call.mode_at_entry is None for call in log)


@pytest.mark.rule("TFM_SUBMODE_003")
def test_tensor_subclass_with_default_handler_as_mode() -> None:
    class Wrapped(torch.Tensor):
        pass

    with enable_torch_function_mode(Wrapped):
        result = torch.add(t(1.0), t(2.0))
        chunks = torch.split(torch.tensor([1.0, 2.0]), 1)
    assert type(result) is Wrapped
    assert result.tolist() == [3.0]
    assert type(chunks) is tuple
    assert [type(c) for c in chunks] == [Wrapped, Wrapped]


@pytest.mark.rule("TFM_ERROR_006")
def test_raw_setter_accepts_any_object() -> None:
    class S(torch.Tensor):
        pass

    for obj in (42, "text", object(), S, RawMode(), [1, 2], TorchFunctionMode):
        torch._C._set_torch_function_mode(obj)
        assert torch._C._get_torch_function_mode() is obj
    torch._C._set_torch_function_mode(None)
    assert torch._C._get_torch_function_mode() is None


@pytest.mark.rule("TFM_ERROR_006", "TFM_REENTRY_002")
def test_raw_object_without_handler_fails_at_call() -> None:
    torch._C._set_torch_function_mode(42)
    try:
        with pytest.raises(AttributeError):
            torch.add(t(), t())
        assert torch._C._get_torch_function_mode() == 42
    finally:
        torch._C._set_torch_function_mode(None)
