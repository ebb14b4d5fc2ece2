"""The watchdog of a conformance run, and the /proc reading it shares with conformance.sandbox.processes.

Started by :func:`conformance.sandbox.processes.activate` as ``python -I _watchdog.py PID STARTTIME
TOKEN``, in a session of its own (outside the process group and session of the sandbox's child),
before the child. Every tenth of a second it looks at the suite's process ``PID``:

* stopped (state ``T``: a ``SIGSTOP`` or ``SIGTSTP`` from the implementation): it sends
  ``SIGCONT``, so a stopped suite cannot hang the run;
* gone (or its pid reused): it ends every process whose environment carries ``TOKEN`` (the
  sandbox's children and what they started, unless they dropped their environment) with their
  descendants and process groups, then exits.

This file imports the standard library only (it runs as a script, without the package).
Everything here reads Linux's /proc; where it is missing the functions find nothing.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable, Iterable

#: The environment variable that marks the sandbox's child (and what inherits its environment).
TOKEN_VARIABLE = "TFMODE_SANDBOX_RUN"
PROC = "/proc"


class Stat:
    """The fields of /proc/PID/stat that matter here."""

    __slots__ = ("pgrp", "pid", "ppid", "session", "start", "state")

    def __init__(self, pid: int, state: str, ppid: int, pgrp: int, session: int, start: int) -> None:
        self.pid, self.state, self.ppid, self.pgrp, self.session, self.start = (
            pid, state, ppid, pgrp, session, start)


def stat(pid: int) -> Stat | None:
    """The process's stat (None: gone, or no /proc)."""
    try:
        with open(f"{PROC}/{pid}/stat", "rb") as handle:
            text = handle.read().decode("ascii", "replace")
    except OSError:
        return None
    # The command name is in parentheses and may hold anything, parentheses too: split at the last.
    fields = text[text.rfind(")") + 2:].split()
    try:
        return Stat(pid, fields[0], int(fields[1]), int(fields[2]), int(fields[3]), int(fields[19]))
    except (IndexError, ValueError):
        return None


def pids() -> list[int]:
    try:
        return [int(name) for name in os.listdir(PROC) if name.isdigit()]
    except OSError:
        return []


def table() -> dict[int, Stat]:
    """Every live (not zombie) process this one can see."""
    found = {}
    for pid in pids():
        entry = stat(pid)
        if entry is not None and entry.state not in ("Z", "X"):
            found[pid] = entry
    return found


def carries(pid: int, token: str) -> bool:
    """Whether the process's environment (as it was started) holds the run's token."""
    try:
        with open(f"{PROC}/{pid}/environ", "rb") as handle:
            return f"{TOKEN_VARIABLE}={token}".encode() in handle.read().split(b"\0")
    except OSError:
        return False


def descendants(roots: Iterable[int], procs: dict[int, Stat]) -> set[int]:
    """``roots`` (those alive) and every process below them."""
    found = {pid for pid in roots if pid in procs}
    grew = True
    while grew:
        more = {pid for pid, entry in procs.items() if entry.ppid in found and pid not in found}
        found |= more
        grew = bool(more)
    return found


def end_all(find: Callable[[dict[int, Stat], set[int]], set[int]],
            spare: Callable[[Stat], bool]) -> dict[int, Stat]:
    """Stop every process ``find`` names (given the process table and those already stopped),
    again until it names no new one (a stopped process cannot fork), then kill them and their
    process groups; the processes ended. ``spare`` protects a process whatever ``find`` says
    (the caller, its ancestors, its own children), and a whole process group with it."""
    stopped: dict[int, Stat] = {}
    for _ in range(200):
        procs = table()
        new = {pid for pid in find(procs, set(stopped)) - set(stopped)
               if pid in procs and not spare(procs[pid])}
        if not new:
            break
        for pid in new:
            try:
                os.kill(pid, signal.SIGSTOP)
            except OSError:
                continue
            stopped[pid] = procs[pid]
    groups = {entry.pgrp for entry in stopped.values()}
    spared = {entry.pgrp for entry in table().values() if spare(entry)}
    for pgrp in groups - spared:
        if pgrp > 1:
            try:
                os.killpg(pgrp, signal.SIGKILL)
            except OSError:
                pass
    for pid in stopped:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    return stopped


def _token_holders(token: str) -> Callable[[dict[int, Stat], set[int]], set[int]]:
    def find(procs: dict[int, Stat], stopped: set[int]) -> set[int]:
        marked = {pid for pid in procs if pid not in stopped and carries(pid, token)}
        return descendants(marked | stopped, procs)
    return find


def watch(parent: int, start: int, token: str, interval: float = 0.1) -> int:
    me = os.getpid()
    while True:
        entry = stat(parent)
        if entry is None or entry.start != start or entry.state in ("Z", "X"):
            end_all(_token_holders(token), lambda e: e.pid == me)
            return 0
        if entry.state == "T":
            try:
                os.kill(parent, signal.SIGCONT)
            except OSError:
                pass
        time.sleep(interval)


def main(argv: list[str]) -> int:
    try:
        parent, start, token = int(argv[0]), int(argv[1]), argv[2]
    except (IndexError, ValueError):
        print("_watchdog.py is started by the conformance plugin, not by hand", file=sys.stderr)
        return 2
    for name in ("SIGINT", "SIGHUP", "SIGTERM", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGUSR1",
                 "SIGUSR2", "SIGALRM", "SIGQUIT"):
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_IGN)
    return watch(parent, start, token)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
