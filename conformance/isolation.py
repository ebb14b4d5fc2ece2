"""Keeps one misbehaving scenario from taking the rest of a run with it: time limits and resets."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType


class ScenarioTimeout(Exception):
    """A scenario ran past its time limit (the implementation hangs or loops)."""


@contextmanager
def time_limit(seconds: float) -> Iterator[None]:
    """Raise :class:`ScenarioTimeout` inside the block after ``seconds`` (main thread only)."""
    usable = (seconds > 0 and hasattr(signal, "setitimer")
              and threading.current_thread() is threading.main_thread())
    if not usable:
        yield
        return

    def expire(signum: int, frame: FrameType | None) -> None:
        raise ScenarioTimeout(f"scenario exceeded {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
