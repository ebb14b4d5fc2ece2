"""What tests/test_timing.py has the sandbox child run: a loop and a nap, in a module that
imports nothing heavy, so a re-run on a fresh child spends its limit on the call itself (the
test module imports pytest: about 0.3 s of CPU, and more than a second of wall on a loaded
machine, which a 2 s re-run of a 0.8 s nap could not spare)."""

from __future__ import annotations

import time


def loop(adapter: object) -> None:
    while True:
        pass


def nap(adapter: object, seconds: float) -> str:
    time.sleep(seconds)
    return "awake"
