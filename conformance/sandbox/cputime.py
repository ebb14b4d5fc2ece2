"""How much CPU time a process has used, read from ``/proc`` (None where there is no ``/proc``).

A time limit is wall-clock time, which a loaded machine spends for the implementation: the CPU
time a child used while its limit ran out says whether it was computing or waiting (blocked,
or starved of the CPU). It cannot tell a hang from slowness by itself (a loop computes as much
as a slow call; a blocked call uses no more CPU than a starved one): conformance.sandbox.timing uses it
to decide whether a known hanger's time-out is re-run, and reports it.
"""

from __future__ import annotations

import os

__all__ = ["process_cpu_seconds"]


def process_cpu_seconds(pid: int) -> float | None:
    """User plus system CPU seconds of every thread of process ``pid``; None if unknown."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            text = stat.read()
        # The name (field 2) is in parentheses and may hold spaces or parentheses itself.
        fields = text[text.rindex(")") + 2:].split()
        ticks = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
        return ticks / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None
