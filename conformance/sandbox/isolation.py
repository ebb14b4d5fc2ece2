"""Time limits that nest: an inner limit never cancels or extends an outer one."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class ScenarioTimeout(Exception):
    """A scenario ran past its time limit (the implementation hangs or loops)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`ScenarioTimeout` inside the block after ``seconds`` (main thread only).

    A timer already running (pytest-timeout's, or an enclosing ``time_limit``) keeps its own
    deadline: if it is due first, its handler runs when it is due; on exit it is re-armed with
    the time it has left (at once, if that ran out while the block ran).
    """
    usable = (seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return
    start = time.monotonic()
    outer_left, _ = signal.getitimer(signal.ITIMER_REAL)
    outer_deadline = start + outer_left if outer_left > 0 else None

    fired: list[bool] = []

    def expire(signum: int, frame: FrameType | None) -> None:
        outer_due = outer_deadline is not None and time.monotonic() >= outer_deadline - 1e-3
        if outer_due and callable(previous):
            fired.append(True)  # the outer limit came first: it is the one to report, once
            previous(signum, frame)
            return
        raise ScenarioTimeout(f"scenario exceeded {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds if outer_deadline is None else min(seconds, outer_left))
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer_deadline is not None and not fired:
            signal.setitimer(signal.ITIMER_REAL, max(outer_deadline - time.monotonic(), 1e-3))
