"""A time-out is confirmed before it counts as a hang (conformance.sandbox.timing), on a real sandbox."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator

import pytest

from conformance.sandbox.parent import ImplementationHung, SandboxedImplementation
from conformance.sandbox.timing import (
    HANGS_BEFORE_SHORTER,
    RERUN_FACTOR,
    STARVED_SHARE,
    confirmed,
    confirmed_hangs,
    limit,
)


@pytest.fixture
def impl() -> Iterator[SandboxedImplementation]:
    implementation = SandboxedImplementation("reference_impl")
    yield implementation
    implementation.close()


def _loop_once(impl: SandboxedImplementation, seconds: float) -> object:
    return confirmed(lambda s: impl.call("tests.timing_targets:loop", seconds=s, during="looping"),
                     impl, seconds, "looping")


def _nap_once(impl: SandboxedImplementation, nap: float, seconds: float) -> object:
    return confirmed(lambda s: impl.call("tests.timing_targets:nap", nap, seconds=s, during="napping"),
                     impl, seconds, "napping")


def test_a_time_out_is_re_run_longer_and_judged_by_the_re_run(impl: SandboxedImplementation) -> None:
    # 0.6 s is past the 0.3 s limit, within the re-run's 1.2 s: slow, not hung
    assert _nap_once(impl, 0.6, 0.3) == "awake"
    assert impl.sandbox.hangs == 1  # the first attempt did time out (and its process was replaced)
    assert confirmed_hangs(impl) == 0
    assert limit(impl, 2.0) == 2.0


def test_only_a_confirmed_hang_fails_and_a_known_hanger_costs_what_it_did(
        impl: SandboxedImplementation) -> None:
    for n in range(1, HANGS_BEFORE_SHORTER + 1):
        start = time.monotonic()
        with pytest.raises(ImplementationHung) as raised:
            _loop_once(impl, 0.3)
        assert (f"did not answer within 0.3 s while looping, nor within "
                f"{0.3 * RERUN_FACTOR:g} s when re-run on a fresh process") in str(raised.value)
        assert "CPU time it used:" in str(raised.value)
        assert time.monotonic() - start >= 0.3 * (1 + RERUN_FACTOR)
        assert confirmed_hangs(impl) == n
    assert limit(impl, 2.0) == 0.5  # known to hang: the shorter limit
    # A known hanger that computes through its limit is a hang at once (no re-run) ...
    with pytest.raises(ImplementationHung) as raised:
        _loop_once(impl, 0.5)
    message = str(raised.value)
    used = re.search(r"CPU time it used: ([0-9.]+) s", message)
    assert used is not None, message
    if float(used.group(1)) >= STARVED_SHARE * 0.5:  # it got the CPU (the machine was not starved)
        assert "not re-run: it computed all along" in message and "when re-run" not in message, message
    else:
        assert "nor within 2 s when re-run" in message, message
    # ... but one that waits (blocked, or starved of the CPU) is re-run, and may answer then. The
    # hang replaced the child: a first short nap, unlimited, makes it import the targets' module,
    # so the timed nap's CPU time is the nap's alone.
    assert impl.call("tests.timing_targets:nap", 0.0, seconds=60.0, during="napping") == "awake"
    assert _nap_once(impl, 0.8, 0.5) == "awake"


def _worker(seconds: float, progress: list[int], busy: bool) -> threading.Thread:
    """A thread that works for ``seconds`` (counting its work in ``progress`` when ``busy``)."""

    def work() -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if busy:
                progress.append(1)
            time.sleep(0.005)

    thread = threading.Thread(target=work, daemon=True)
    thread.start()
    return thread


def test_threads_that_progress_past_the_limit_are_slow_not_hung(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from conformance.suite import test_threads

    monkeypatch.setattr(test_threads, "THREAD_SECONDS", 0.3)
    monkeypatch.setattr(test_threads, "PROGRESS_SECONDS", 0.1)
    done: list[int] = []
    test_threads._join([_worker(0.8, done, busy=True)], lambda: len(done))  # past 0.3 s, within 1.2 s
    stuck: list[int] = []
    start = time.monotonic()
    with pytest.raises(AssertionError, match=r"made no progress in the last 0\.1 s"):
        test_threads._join([_worker(3.0, stuck, busy=False)], lambda: len(stuck))
    assert time.monotonic() - start < 1.0  # cut after one check without progress, not at 1.2 s
    test_threads._join([_worker(0.8, [], busy=False)])  # no measure: the whole longer time
