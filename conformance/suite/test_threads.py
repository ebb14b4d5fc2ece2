"""Thread-locality under load, and state that no single scenario can observe."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from conformance.adapter import Adapter
from conformance.sandbox import sandboxed

THREADS, CALLS = 8, 500
#: Seconds the threads of one test may take together (they take well under one).
THREAD_SECONDS = 10.0


def _join(threads: list[threading.Thread]) -> None:
    """Wait for ``threads`` up to THREAD_SECONDS in all; fail if any still runs (the sandbox
    then replaces the process, so a looping thread cannot outlive the test)."""
    deadline = time.monotonic() + THREAD_SECONDS
    for thread in threads:
        thread.join(timeout=max(deadline - time.monotonic(), 0.0))
    running = sum(t.is_alive() for t in threads)
    assert not running, f"{running} thread(s) still running after {THREAD_SECONDS:g} s"


def _logging_mode(adapter: Adapter, seen: list[int], owner: int) -> type:
    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        seen.append(owner)
        return func(*args, **(kwargs or {}))

    return type(adapter.TorchFunctionMode)(f"Log{owner}", (adapter.TorchFunctionMode,),
                                           {"__torch_function__": handler})


@pytest.mark.rule("TFM_THREAD_001", "TFM_THREAD_002")
@sandboxed
def test_each_thread_sees_only_its_own_mode(adapter: Adapter) -> None:
    seen: list[list[int]] = [[] for _ in range(THREADS)]
    errors: list[BaseException] = []
    start = threading.Barrier(THREADS)

    def work(index: int) -> None:
        try:
            x = adapter.tensor([1.0, 2.0])
            add = adapter.func("add")
            start.wait()
            with adapter.push(_logging_mode(adapter, seen[index], index)):
                for _ in range(CALLS):
                    add(x, x)
        except BaseException as exc:
            errors.append(exc)

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(THREADS)]
    for w in workers:
        w.start()
    _join(workers)
    assert not errors, errors
    for index, calls in enumerate(seen):
        assert calls == [index] * CALLS, f"thread {index}'s mode saw {len(calls)} calls, not {CALLS}"


@pytest.mark.rule("TFM_THREAD_001")
@sandboxed
def test_a_new_thread_starts_without_a_mode(adapter: Adapter,
                                            record_property: Callable[[str, object], None]) -> None:
    found: list[object] = []
    with adapter.push(_logging_mode(adapter, [], 0)):
        worker = threading.Thread(target=lambda: found.append(adapter.current_mode()), daemon=True)
        worker.start()
        _join([worker])
        assert adapter.current_mode() is not None
    assert found == [None]
    left = adapter.current_mode()
    if left is not None:  # not this test's rule: the one that says the push block restores
        record_property("failed_rules", "TFM_PUSH_003" if adapter.generation == "2022"
                        else "TFM_STACK_002")
        pytest.fail(f"the push block left its mode current: {left!r}", pytrace=False)


@pytest.mark.rule("TFM_DISABLE_006")
@sandboxed
def test_disable_restores_subclass_handling_after_a_raise(adapter: Adapter) -> None:
    calls: list[str] = []

    def handler(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        calls.append(cls.__name__)
        return 5

    sub = type("Sub", (adapter.Tensor,), {"__torch_function__": classmethod(handler)})
    x = adapter.tensor([1.0]).as_subclass(sub)
    add = adapter.func("add")
    with pytest.raises(RuntimeError), adapter.disable():
        add(x, x)
        raise RuntimeError("leave the block by an exception")
    assert calls == []
    assert add(x, x) == 5 and calls == ["Sub"]
