"""Thread-locality under load, and state that no single scenario can observe.

Each failure names the rule it breaks and the value that differs, and comes with a script
that reproduces it through the implementation's adapter.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest

from conformance.adapter import Adapter
from conformance.base.safe import name_of, repr_of, text_of
from conformance.judge.failure import adapter_script, fail
from conformance.sandbox.timing import RERUN_FACTOR
from conformance.session.bodies import sandboxed

THREADS, CALLS = 8, 500
#: Seconds the threads of one test may take together (they take well under one). Threads still
#: running then are not yet hung: a loaded machine may be slowing them down (see
#: conformance.sandbox.timing). They get up to RERUN_FACTOR times as long in all, for as long as they
#: make progress: each PROGRESS_SECONDS, the test's measure of their work must have grown.
THREAD_SECONDS = 10.0
PROGRESS_SECONDS = THREAD_SECONDS / 4

Record = Callable[[str, object], None]


def _wait(threads: list[threading.Thread], until: float) -> bool:
    """Join ``threads`` until ``until`` (a time.monotonic() value); whether any still runs."""
    for thread in threads:
        thread.join(timeout=max(until - time.monotonic(), 0.0))
    return any(t.is_alive() for t in threads)


def _join(threads: list[threading.Thread], progress: Callable[[], int] | None = None) -> None:
    """Wait for ``threads`` up to THREAD_SECONDS in all, then, for those still running, up to
    RERUN_FACTOR times as long in all while ``progress()`` grows from one PROGRESS_SECONDS to
    the next (without a measure of progress, the whole longer time); fail if any still runs
    (the sandbox then replaces the process, so a looping thread cannot outlive the test)."""
    start = time.monotonic()
    longest = start + THREAD_SECONDS * RERUN_FACTOR
    stalled = ""
    if _wait(threads, start + THREAD_SECONDS):
        if progress is None:
            _wait(threads, longest)
        else:
            done = progress()
            while _wait(threads, min(time.monotonic() + PROGRESS_SECONDS, longest)):
                now = progress()
                if now == done:
                    stalled = f", and made no progress in the last {PROGRESS_SECONDS:g} s"
                    break
                if time.monotonic() >= longest:
                    break
                done = now
    running = sum(t.is_alive() for t in threads)
    assert not running, (f"{running} of {len(threads)} thread(s) still running after "
                         f"{time.monotonic() - start:.0f} s (the limit is {THREAD_SECONDS:g} s, "
                         f"up to {THREAD_SECONDS * RERUN_FACTOR:g} s while they make progress)"
                         f"{stalled}")


def _logging_mode(adapter: Adapter, seen: list[int], owner: int) -> type:
    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        seen.append(owner)
        return func(*args, **(kwargs or {}))

    return type(adapter.TorchFunctionMode)(f"Log{owner}", (adapter.TorchFunctionMode,),
                                           {"__torch_function__": handler})


_OWN_MODE = f'''
from collections import Counter

THREADS, CALLS = {THREADS}, {CALLS}
seen = [[] for _ in range(THREADS)]
start = threading.Barrier(THREADS)


def work(index):
    x = ad.tensor([1.0, 2.0])
    add = ad.func("add")
    start.wait()
    with ad.push(logging_mode(seen[index], index)):
        for _ in range(CALLS):
            add(x, x)


workers = [threading.Thread(target=work, args=(i,)) for i in range(THREADS)]
for w in workers:
    w.start()
for w in workers:
    w.join()
for index, calls in enumerate(seen):
    print(f"thread {{index}}'s mode handled calls from these threads:", dict(sorted(Counter(calls).items())))
'''


def _counts(calls: list[int]) -> str:
    return ", ".join(f"{n} from thread {owner}" for owner, n in sorted(Counter(calls).items())) or "none"


@pytest.mark.rule("TFM_THREAD_001", "TFM_THREAD_002")
@sandboxed
def test_each_thread_sees_only_its_own_mode(adapter: Adapter, impl_spec: str,
                                            record_property: Record) -> None:
    seen: list[list[int]] = [[] for _ in range(THREADS)]
    errors: list[tuple[int, BaseException]] = []
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
            errors.append((index, exc))

    workers = [threading.Thread(target=work, args=(i,), daemon=True) for i in range(THREADS)]
    for w in workers:
        w.start()
    _join(workers, lambda: sum(map(len, seen)))
    script = adapter_script(impl_spec, "test_each_thread_sees_only_its_own_mode", _OWN_MODE)
    if errors:
        index, exc = errors[0]
        fail(record_property, ("TFM_THREAD_001", "TFM_THREAD_002"),
             f"thread {index}, pushing its own mode and calling add {CALLS} times",
             "no exception", f"{name_of(type(exc))}({text_of(exc)!r})", script,
             (f"({len(errors)} of {THREADS} threads raised)",))
    wrong = [i for i, calls in enumerate(seen) if calls != [i] * CALLS]
    # A mode that handled another thread's calls breaks TFM_THREAD_002 alone; calls that
    # reached no mode at all may break either rule.
    foreign = [i for i in wrong if any(owner != i for owner in seen[i])]
    if wrong:
        index = (foreign or wrong)[0]
        fail(record_property, ("TFM_THREAD_002",) if foreign else ("TFM_THREAD_001", "TFM_THREAD_002"),
             f"the calls thread {index}'s mode handled, by the thread that made them",
             f"{CALLS} from thread {index}", _counts(seen[index]), script,
             (f"(the modes of threads {', '.join(map(str, wrong))} saw other calls than their own)",))


_NEW_THREAD = '''
found = []
with ad.push(logging_mode([], 0)):
    print("current mode inside the push block:", ad.current_mode())
    worker = threading.Thread(target=lambda: found.append(ad.current_mode()))
    worker.start()
    worker.join()
print("current mode in a new thread started inside the block:", found[0])
print("current mode after the block:", ad.current_mode())
'''


@pytest.mark.rule("TFM_THREAD_001")
@sandboxed(names=("TFM_PUSH_001", "TFM_PUSH_003", "TFM_STACK_001", "TFM_STACK_002"))
def test_a_new_thread_starts_without_a_mode(adapter: Adapter, impl_spec: str,
                                            record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_a_new_thread_starts_without_a_mode", _NEW_THREAD)
    installs = ("TFM_PUSH_001",) if adapter.generation == "2022" else ("TFM_STACK_001",)
    restores = ("TFM_PUSH_003",) if adapter.generation == "2022" else ("TFM_STACK_002",)
    found: list[object] = []
    with adapter.push(_logging_mode(adapter, [], 0)) as pushed:
        worker = threading.Thread(target=lambda: found.append(adapter.current_mode()), daemon=True)
        worker.start()
        _join([worker])
        inside = adapter.current_mode()
    if inside is None:  # not this test's rule: the one that says the push makes its mode current
        fail(record_property, installs, "the current mode inside the push block",
             "the pushed mode", inside, script)
    if found != [None]:
        fail(record_property, ("TFM_THREAD_001",),
             "the current mode in a new thread started inside the push block", None,
             found[0] if found else "nothing (the thread did not run)", script,
             (f"(the pushed mode: {repr_of(pushed)})",))
    left = adapter.current_mode()
    if left is not None:  # not this test's rule: the one that says the push block restores
        fail(record_property, restores, "the current mode after the push block", None, left,
             script)


_DISABLE_RAISE = '''
calls = []


def handler(cls, func, types, args=(), kwargs=None):
    calls.append(cls.__name__)
    return 5


Sub = type("Sub", (ad.Tensor,), {"__torch_function__": classmethod(handler)})
x = ad.tensor([1.0]).as_subclass(Sub)
add = ad.func("add")
try:
    with ad.disable():
        add(x, x)
        print("subclass handlers run inside DisableTorchFunction:", calls)
        raise RuntimeError("leave the block by an exception")
except RuntimeError:
    pass
print("add(x, x) after the block:", add(x, x), "- subclass handlers run:", calls)
'''


@pytest.mark.rule("TFM_DISABLE_006")
@sandboxed(names=("TFM_DISABLE_001",))
def test_disable_restores_subclass_handling_after_a_raise(adapter: Adapter, impl_spec: str,
                                                          record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_disable_restores_subclass_handling_after_a_raise",
                            _DISABLE_RAISE)
    calls: list[str] = []

    def handler(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        calls.append(cls.__name__)
        return 5

    sub = type("Sub", (adapter.Tensor,), {"__torch_function__": classmethod(handler)})
    x = adapter.tensor([1.0]).as_subclass(sub)
    add = adapter.func("add")
    with pytest.raises(RuntimeError, match="leave the block"), adapter.disable():
        add(x, x)
        inside = list(calls)
        raise RuntimeError("leave the block by an exception")
    if inside:  # not this test's rule: the one that says no subclass handler runs inside
        fail(record_property, ("TFM_DISABLE_001",),
             "the subclass handlers run for add(x, x) inside DisableTorchFunction", [], inside,
             script)
    result = add(x, x)
    if result != 5 or calls != ["Sub"]:
        fail(record_property, ("TFM_DISABLE_006",),
             "add(x, x) on a subclass after DisableTorchFunction exited by an exception: "
             "its result, and the subclass handlers run",
             (5, ["Sub"]), (result, calls), script)
