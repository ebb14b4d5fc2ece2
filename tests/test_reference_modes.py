"""Explicit dispatch tests for reference_impl: modes (re-entry; push, enable, the metaclass;
a Tensor subclass used as a mode)."""

from __future__ import annotations

from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    BaseTorchFunctionMode,
    TorchFunctionMode,
    enable_torch_function_mode,
    push_torch_function_mode,
)
from tests.reference_recording import (
    Call,
    RecordingMode,
    clean_thread_state,  # noqa: F401 (an autouse fixture)
    enter,
    make_subclass,
    pyfunc,
    recording,
    t,
    who,
)

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
