"""The mode slot and the DisableTorchFunction flag are per thread in reference_impl."""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    has_torch_function,
    push_torch_function_mode,
)
from tests.reference_recording import clean_thread_state  # noqa: F401 (an autouse fixture)

N_THREADS = 8
N_CALLS = 10_000


@pytest.fixture
def fast_switching() -> Iterator[None]:
    """Make the interpreter switch threads very often, to interleave the calls."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


class TaggedMode(TorchFunctionMode):
    """Answers every call with its tag and records the marker argument and the thread."""

    def __init__(self, tag: int) -> None:
        self.tag = tag
        self.markers: list[Any] = []
        self.threads: set[int] = set()

    def __torch_function__(
        self,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        self.markers.append(args[1])
        self.threads.add(threading.get_ident())
        return self.tag


def run_in_threads(target: Callable[[int], None], count: int) -> list[BaseException]:
    """Run target(index) in ``count`` threads started together; return their exceptions."""
    errors: list[BaseException] = []
    barrier = threading.Barrier(count)

    def body(index: int) -> None:
        try:
            barrier.wait()
            target(index)
        except BaseException as exc:  # reported to the main thread
            errors.append(exc)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


@pytest.mark.rule("TFM_THREAD_002", "TFM_THREAD_001")
def test_each_thread_sees_only_its_own_mode(fast_switching: None) -> None:
    modes: list[Any] = [None] * N_THREADS
    markers = [torch.tensor([float(i)]) for i in range(N_THREADS)]
    results: list[list[Any]] = [[] for _ in range(N_THREADS)]
    idents: list[int] = [0] * N_THREADS

    def target(index: int) -> None:
        assert torch._C._get_torch_function_mode() is None
        idents[index] = threading.get_ident()
        x = torch.tensor([1.0])
        marker = markers[index]
        out = results[index]
        with push_torch_function_mode(lambda *, inner: TaggedMode(index, inner=inner)) as mode:
            modes[index] = mode
            for _ in range(N_CALLS):
                out.append(torch.add(x, marker))
        assert torch._C._get_torch_function_mode() is None

    assert run_in_threads(target, N_THREADS) == []
    for index, mode in enumerate(modes):
        assert isinstance(mode, TaggedMode)
        assert len(mode.markers) == N_CALLS
        assert all(marker is markers[index] for marker in mode.markers)
        assert mode.threads == {idents[index]}
        assert len(results[index]) == N_CALLS
        assert all(result == index for result in results[index])
    assert len(set(idents)) == N_THREADS


@pytest.mark.rule("TFM_THREAD_001")
def test_new_thread_starts_without_a_mode() -> None:
    seen: dict[str, Any] = {}

    def target(index: int) -> None:
        x = torch.tensor([1.0, 2.0])
        seen["mode"] = torch._C._get_torch_function_mode()
        seen["has"] = has_torch_function((x,))
        seen["add"] = torch.add(x, x).tolist()

    with push_torch_function_mode(lambda *, inner: TaggedMode(-1, inner=inner)) as mode:
        assert run_in_threads(target, 1) == []
        # The main thread's mode is untouched and was never called.
        assert torch._C._get_torch_function_mode() is mode
        assert mode.markers == []
    assert seen == {"mode": None, "has": False, "add": [2.0, 4.0]}


@pytest.mark.rule("TFM_THREAD_001", "TFM_THREAD_002")
def test_raw_slot_is_per_thread() -> None:
    stored = object()
    seen: list[Any] = []

    def target(index: int) -> None:
        seen.append(torch._C._get_torch_function_mode())
        torch._C._set_torch_function_mode(object())  # never visible in the main thread

    torch._C._set_torch_function_mode(stored)
    try:
        assert run_in_threads(target, 2) == []
        assert torch._C._get_torch_function_mode() is stored
    finally:
        torch._C._set_torch_function_mode(None)
    assert seen == [None, None]


class Sub(torch.Tensor):
    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        return "sub"


@pytest.mark.rule("TFM_THREAD_003")
def test_disable_torch_function_is_per_thread() -> None:
    inside = threading.Event()
    release = threading.Event()
    seen: dict[str, Any] = {}

    def disabled_worker() -> None:
        with torch._C.DisableTorchFunction():
            seen["worker_enabled"] = torch._C._is_torch_function_enabled()
            seen["worker_add"] = type(torch.add(Sub(), Sub()))
            inside.set()
            release.wait(timeout=10)

    worker = threading.Thread(target=disabled_worker)
    worker.start()
    try:
        assert inside.wait(timeout=10)
        # The worker is inside DisableTorchFunction right now; this thread is not.
        assert torch._C._is_torch_function_enabled()
        assert torch.add(Sub(), Sub()) == "sub"
    finally:
        release.set()
        worker.join()
    assert seen == {"worker_enabled": False, "worker_add": torch.Tensor}

    # And the other way round: a new thread is enabled while this one is disabled.
    def enabled_worker(index: int) -> None:
        seen["enabled"] = torch._C._is_torch_function_enabled()
        seen["add"] = torch.add(Sub(), Sub())

    with torch._C.DisableTorchFunction():
        assert run_in_threads(enabled_worker, 1) == []
        assert type(torch.add(Sub(), Sub())) is torch.Tensor
    assert seen["enabled"] is True
    assert seen["add"] == "sub"
