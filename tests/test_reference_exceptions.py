"""After any exception (handler, push/enable body, push/enable errors) the slot is as before
(the modes that raise: tests/raising_modes.py)."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, nullcontext
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    _no_torch_function_mode,
    enable_torch_function_mode,
    push_torch_function_mode,
)
from tests.raising_modes import (
    Boom,
    Forwarding,
    PlainSub,
    RaisingMode,
    ReentrantRaisingMode,
    current,
    raising_subclass,
    t,
)
from tests.reference_recording import clean_thread_state  # noqa: F401 (an autouse fixture)

# --- outer states: what the slot holds before a failure --------------------------------------


def outer_none() -> AbstractContextManager[Any]:
    return nullcontext()


def outer_push() -> AbstractContextManager[Any]:
    return push_torch_function_mode(Forwarding)


def outer_enable_instance() -> AbstractContextManager[Any]:
    return enable_torch_function_mode(Forwarding(inner=None))


def outer_enable_class() -> AbstractContextManager[Any]:
    return enable_torch_function_mode(PlainSub)


def outer_push_on_class() -> AbstractContextManager[Any]:
    @contextlib.contextmanager
    def both() -> Iterator[None]:
        with enable_torch_function_mode(PlainSub), push_torch_function_mode(Forwarding):
            yield

    return both()


def outer_raw_object() -> AbstractContextManager[Any]:
    @contextlib.contextmanager
    def raw() -> Iterator[None]:
        torch._C._set_torch_function_mode(Forwarding(inner=None))
        try:
            yield
        finally:
            torch._C._set_torch_function_mode(None)

    return raw()


OUTERS: dict[str, Callable[[], AbstractContextManager[Any]]] = {
    "none": outer_none,
    "push": outer_push,
    "enable_instance": outer_enable_instance,
    "enable_class": outer_enable_class,
    "push_on_class": outer_push_on_class,
    "raw_object": outer_raw_object,
}


# --- failures: each raises, the test checks the exception and the slot -----------------------


def fail_push_body(exc: Boom) -> None:
    with push_torch_function_mode(Forwarding):
        raise exc


def fail_enable_body(exc: Boom) -> None:
    with enable_torch_function_mode(Forwarding(inner=None), ignore_preexisting=True):
        raise exc


def fail_enable_replace_body(exc: Boom) -> None:
    with enable_torch_function_mode(Forwarding(inner=None), replace=current()):
        raise exc


def fail_enable_same_body(exc: Boom) -> None:
    with enable_torch_function_mode(current()):
        raise exc


def fail_mode_handler_native(exc: Boom) -> None:
    with push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)):
        torch.add(t(), t())


def fail_mode_handler_python(exc: Boom) -> None:
    with push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)):
        torch.split(t(), 1)


def fail_mode_handler_factory(exc: Boom) -> None:
    with push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)):
        torch.ones(3)


def fail_reentrant_handler(exc: Boom) -> None:
    with push_torch_function_mode(lambda *, inner: ReentrantRaisingMode(exc, inner=inner)):
        torch.sub(t(), t())


def fail_subclass_handler_native(exc: Boom) -> None:
    torch.add(t(), raising_subclass(exc)())


def fail_subclass_as_mode(exc: Boom) -> None:
    with enable_torch_function_mode(raising_subclass(exc), ignore_preexisting=True):
        torch.mul(t(), t())


def fail_subclass_under_mode(exc: Boom) -> None:
    sub = raising_subclass(exc)
    with push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)):
        torch.add(sub(), t())


def fail_disable_body(exc: Boom) -> None:
    with torch._C.DisableTorchFunction():
        raise exc


def fail_disabled_call_under_raising_mode(exc: Boom) -> None:
    with (
        push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)),
        torch._C.DisableTorchFunction(),
    ):
        torch.neg(t())


def fail_nested_push_enable_push(exc: Boom) -> None:
    with (
        push_torch_function_mode(Forwarding) as first,
        enable_torch_function_mode(Forwarding(inner=first), replace=first),
        push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)),
    ):
        torch.add(t(), t())


def fail_handler_that_pushes(exc: Boom) -> None:
    class PushesThenRaises(TorchFunctionMode):
        def __torch_function__(self, *args: Any, **kwargs: Any) -> Any:
            with (
                push_torch_function_mode(Forwarding),
                enable_torch_function_mode(PlainSub, ignore_preexisting=True),
            ):
                raise exc

    with push_torch_function_mode(PushesThenRaises):
        torch.add(t(), t())


FAILURES: dict[str, Callable[[Boom], None]] = {
    name[len("fail_") :]: func for name, func in globals().items() if name.startswith("fail_")
}


@pytest.mark.rule("TFM_PUSH_003", "TFM_ENABLE_001", "TFM_REENTRY_003", "TFM_ERROR_005")
@pytest.mark.parametrize("failure", sorted(FAILURES))
@pytest.mark.parametrize("outer", sorted(OUTERS))
def test_slot_restored_after_failure(outer: str, failure: str) -> None:
    with OUTERS[outer]():
        before = current()
        enabled_before = torch._C._is_torch_function_enabled()
        exc = Boom(failure)
        with pytest.raises(Boom) as info:
            FAILURES[failure](exc)
        assert info.value is exc
        assert current() is before
        assert torch._C._is_torch_function_enabled() is enabled_before


# --- errors raised by push and enable themselves ---------------------------------------------


def error_push_instance() -> None:
    with push_torch_function_mode(Forwarding(inner=None)):
        pass


def error_push_unrelated() -> None:
    with push_torch_function_mode(lambda *, inner: object()):
        pass


def error_push_ctor_raises() -> None:
    def ctor(*, inner: Any) -> Any:
        raise ValueError("ctor failed")

    with push_torch_function_mode(ctor):
        pass


def error_push_missing_inner() -> None:
    with push_torch_function_mode(lambda **kwargs: Forwarding()):
        pass


def error_enable_bad_type() -> None:
    with enable_torch_function_mode(42):
        pass


def error_enable_mode_class() -> None:
    with enable_torch_function_mode(Forwarding):
        pass


def error_enable_no_torch_function() -> None:
    with enable_torch_function_mode(int, ignore_preexisting=True):
        pass


def error_enable_already_active() -> None:
    # With nothing current this one succeeds, so it raises on its own when it does.
    with enable_torch_function_mode(Forwarding(inner=None)):
        raise ValueError("entered")


ERRORS: dict[str, Callable[[], None]] = {
    name[len("error_") :]: func for name, func in globals().items() if name.startswith("error_")
}


@pytest.mark.rule("TFM_PUSH_003", "TFM_ENABLE_001", "TFM_PUSH_005", "TFM_PUSH_006")
@pytest.mark.parametrize("error", sorted(ERRORS))
@pytest.mark.parametrize("outer", sorted(OUTERS))
def test_slot_unchanged_after_push_or_enable_error(outer: str, error: str) -> None:
    with OUTERS[outer]():
        before = current()
        with pytest.raises((ValueError, TypeError)):
            ERRORS[error]()
        assert current() is before


# --- deep nesting: every level is restored while the exception unwinds -----------------------


def level_push() -> AbstractContextManager[Any]:
    return push_torch_function_mode(Forwarding)


def level_enable_instance() -> AbstractContextManager[Any]:
    return enable_torch_function_mode(Forwarding(inner=None), ignore_preexisting=True)


def level_enable_class() -> AbstractContextManager[Any]:
    return enable_torch_function_mode(PlainSub, ignore_preexisting=True)


def level_enable_same() -> AbstractContextManager[Any]:
    return enable_torch_function_mode(current()) if current() is not None else nullcontext()


def level_disable() -> AbstractContextManager[Any]:
    return torch._C.DisableTorchFunction()


def level_no_mode() -> AbstractContextManager[Any]:
    return _no_torch_function_mode()


LEVELS: dict[str, Callable[[], AbstractContextManager[Any]]] = {
    "push": level_push,
    "enable_instance": level_enable_instance,
    "enable_class": level_enable_class,
    "enable_same": level_enable_same,
    "disable": level_disable,
    "no_mode": level_no_mode,
}


def run_nested(levels: list[str], innermost: Callable[[], None], checks: list[str]) -> None:
    """Enter the levels in order, run innermost, and check each level as it unwinds."""
    if not levels:
        innermost()
        return
    before = current()
    enabled_before = torch._C._is_torch_function_enabled()
    try:
        with LEVELS[levels[0]]():
            inside = current()
            enabled_inside = torch._C._is_torch_function_enabled()
            try:
                run_nested(levels[1:], innermost, checks)
            finally:
                assert current() is inside
                assert torch._C._is_torch_function_enabled() is enabled_inside
                checks.append(f"inside {levels[0]}")
    finally:
        assert current() is before
        assert torch._C._is_torch_function_enabled() is enabled_before
        checks.append(f"before {levels[0]}")


def raise_in_body(exc: Boom) -> Callable[[], None]:
    def innermost() -> None:
        raise exc

    return innermost


def raise_in_handler(exc: Boom) -> Callable[[], None]:
    def innermost() -> None:
        with push_torch_function_mode(lambda *, inner: RaisingMode(exc, inner=inner)):
            torch.add(t(), t())

    return innermost


@pytest.mark.rule("TFM_PUSH_003", "TFM_ENABLE_001", "TFM_DISABLE_006", "TFM_REENTRY_003")
@pytest.mark.parametrize("innermost", [raise_in_body, raise_in_handler])
@pytest.mark.parametrize(
    "levels", [list(combo) for combo in itertools.product(sorted(LEVELS), repeat=3)]
)
def test_nested_levels_unwind(levels: list[str], innermost: Callable[[Boom], Any]) -> None:
    exc = Boom("deep")
    checks: list[str] = []
    with pytest.raises(Boom) as info:
        run_nested(levels, innermost(exc), checks)
    assert info.value is exc
    assert len(checks) == 2 * len(levels)
