"""Nothing the implementation starts outlives the run, and no signal it sends ends the run silently.

The sandbox's child (conformance.sandbox.parent) runs in a session of its own, with a per-run token in
its environment (``TFMODE_SANDBOX_RUN``). While a conformance run is active (:func:`activate`):

* the suite's process is a *child subreaper* (Linux ``prctl(PR_SET_CHILD_SUBREAPER)``): a
  process the implementation starts and orphans (double fork, ``setsid``) is re-parented to it,
  not to init, so it can still be found;
* :func:`sweep` ends, at each close of the child (a restart) and at the end of the run, every
  descendant of the child, every process re-parented to the suite's process from another
  session, and every process whose environment carries the token: each is stopped first (a
  stopped process cannot fork), then killed with its process group. It counts them;
* a watchdog process (conformance.sandbox._watchdog), in a session of its own, continues the suite's
  process when the implementation stops it, and ends the token's processes if the suite's
  process dies (a SIGKILL); it ends itself with the run's last sweep (:func:`deactivate`);
* ``SIGTERM``, ``SIGHUP`` and ``SIGQUIT`` interrupt the run as ``SIGINT`` does (pytest's
  interrupt path writes an incomplete certificate); signals whose default would end or stop the
  process for no reason of its own (``SIGUSR1``, ``SIGALRM`` between tests, real-time signals,
  ``SIGTSTP``...) are ignored.

Without /proc or prctl (not Linux) only the child's own process group is killed at each close
and there is no watchdog: a process the implementation moved to another group or session may
outlive the run there, and a stopped suite stays stopped. Under the same user, the
implementation can still kill the suite's process (SIGKILL cannot be caught: no certificate is
written, and the watchdog ends what carries the token) or stop the watchdog first.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import secrets
import signal
import subprocess
import sys
import time
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from . import _watchdog
from ._watchdog import TOKEN_VARIABLE, Stat, descendants, end_all, stat

__all__ = ["TOKEN_VARIABLE", "activate", "child_env", "deactivate", "ended", "forget", "started",
           "sweep"]

_PR_SET_CHILD_SUBREAPER = 36
#: Signals that interrupt the run like SIGINT (pytest then writes an incomplete certificate).
INTERRUPTING = ("SIGTERM", "SIGHUP", "SIGQUIT")
#: Signals whose default action ends or stops the process, ignored during a run.
IGNORED = ("SIGUSR1", "SIGUSR2", "SIGALRM", "SIGVTALRM", "SIGPROF", "SIGXCPU", "SIGXFSZ",
           "SIGIO", "SIGPOLL", "SIGSTKFLT", "SIGPWR", "SIGTSTP", "SIGTTIN", "SIGTTOU")


@dataclass
class _Run:
    token: str = field(default_factory=lambda: secrets.token_hex(16))
    active: bool = False
    subreaper: bool = False
    #: the processes this process started itself (sandbox children, the watchdog), by pid, with
    #: their start times: never swept (but a sandbox child whose close asks for it)
    known: dict[int, int] = field(default_factory=dict)
    ended: int = 0
    watchdog: subprocess.Popen[bytes] | None = None
    handlers: dict[int, Any] = field(default_factory=dict)
    interrupted: str | None = None


_RUN = _Run()


def child_env(env: dict[str, str]) -> None:
    """Mark the sandbox child's environment with this run's token."""
    env[TOKEN_VARIABLE] = _RUN.token


def started(pid: int) -> None:
    entry = stat(pid)
    _RUN.known[pid] = -1 if entry is None else entry.start


def forget(pid: int) -> None:
    _RUN.known.pop(pid, None)


def ended() -> int:
    """How many processes of the implementation this process has ended so far."""
    return _RUN.ended


def _set_subreaper(on: bool) -> bool:
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _ancestors() -> set[int]:
    found, pid = set(), os.getpid()
    while pid > 1 and pid not in found:
        found.add(pid)
        entry = stat(pid)
        if entry is None:
            break
        pid = entry.ppid
    return found


def sweep(child: int | None = None) -> int:
    """End every process of the implementation (see the module's docstring) and the child
    ``child`` itself, if given and alive; how many processes other than the child were ended."""
    me, mine = os.getpid(), os.getsid(0)
    ancestors = _ancestors()
    if child is not None and not os.path.isdir(_watchdog.PROC):  # its group is all we can see
        with contextlib.suppress(OSError):
            os.killpg(child, signal.SIGKILL)
    entry = None if child is None else stat(child)
    if child is not None and (entry is None or entry.start != _RUN.known.get(child)):
        child = None  # gone already (and its pid perhaps someone else's now)

    def spare(entry: Stat) -> bool:
        return (entry.session == mine or entry.pid in ancestors or entry.pid <= 1
                or (entry.pid in _RUN.known and entry.pid != child))

    def find(procs: dict[int, Stat], stopped: set[int]) -> set[int]:
        roots = set(stopped) | ({child} if child is not None else set())
        if _RUN.subreaper:  # orphans re-parented to this process from another session
            roots |= {pid for pid, e in procs.items() if e.ppid == me and e.session != mine}
        roots |= {pid for pid in procs if pid not in stopped and _watchdog.carries(pid, _RUN.token)}
        return descendants(roots, procs)

    gone = end_all(find, spare)
    _reap(set(gone) - set(_RUN.known), me, mine)
    count = len(set(gone) - {child})
    _RUN.ended += count
    return count


def _reap(pids: set[int], me: int, mine: int) -> None:
    """Collect the exit status of the swept processes that were re-parented to this one, and of
    any other orphan from another session that exited by itself (never a child of its own)."""
    if not _RUN.subreaper:
        return
    for number in _watchdog.pids():
        entry = stat(number)
        if (entry is not None and entry.ppid == me and entry.session != mine
                and entry.pid not in _RUN.known and entry.state in ("Z", "X")):
            pids.add(entry.pid)
    for _ in range(100):  # killed: each is a zombie within moments (10 ms steps, 1 s at most)
        for pid in list(pids):
            try:
                done, _status = os.waitpid(pid, os.WNOHANG)
            except OSError:  # not a child of this process: its own parent collects it
                done = pid
            if done == pid:
                pids.discard(pid)
        if not pids:
            return
        time.sleep(0.01)


def _interrupt(signum: int, frame: types.FrameType | None) -> None:
    if _RUN.interrupted is None:  # the first one interrupts; the run then finishes in peace
        _RUN.interrupted = signal.Signals(signum).name
        raise KeyboardInterrupt(f"the run received {_RUN.interrupted}")


def interrupted_by() -> str | None:
    """The signal that interrupted the run (SIGTERM...), if one did."""
    return _RUN.interrupted


def _install(names: tuple[str, ...], handler: Callable[[int, types.FrameType | None], Any] | int) -> None:
    for name in names:
        number = getattr(signal, name, None)
        if number is None or number in _RUN.handlers:
            continue
        try:
            if signal.getsignal(number) is signal.SIG_DFL:
                _RUN.handlers[number] = signal.signal(number, handler)
        except (OSError, ValueError, RuntimeError):
            pass


def activate() -> None:
    """Start guarding this process for a conformance run (once; the main thread only)."""
    if _RUN.active:
        return
    _RUN.active = True
    _RUN.subreaper = _set_subreaper(True)
    import threading

    if threading.current_thread() is threading.main_thread():
        _install(INTERRUPTING, _interrupt)
        _install(IGNORED, signal.SIG_IGN)
        for number in range(getattr(signal, "SIGRTMIN", 0), getattr(signal, "SIGRTMAX", -1) + 1):
            with contextlib.suppress(OSError, ValueError, RuntimeError):
                if signal.getsignal(number) is signal.SIG_DFL:
                    _RUN.handlers[number] = signal.signal(number, signal.SIG_IGN)
    mine = stat(os.getpid())
    if mine is not None:
        _RUN.watchdog = subprocess.Popen(
            [sys.executable, "-I", _watchdog.__file__, str(os.getpid()), str(mine.start),
             _RUN.token], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True, close_fds=True)
        started(_RUN.watchdog.pid)


def deactivate() -> None:
    """The run is over: a last sweep, then the watchdog ends (every process of the
    implementation is gone: nothing is left for it to end) and this process is left as it was.
    Ending it here also keeps a pytest-xdist worker's watchdog from being orphaned to the
    controller, whose own last sweep would take it for the implementation's."""
    if not _RUN.active:
        return
    sweep()
    watchdog, _RUN.watchdog = _RUN.watchdog, None
    if watchdog is not None:
        watchdog.kill()
        watchdog.wait()
        forget(watchdog.pid)
    _RUN.active = False
    if _RUN.subreaper:
        _set_subreaper(False)
        _RUN.subreaper = False
    for number, handler in _RUN.handlers.items():
        with contextlib.suppress(OSError, ValueError, RuntimeError, TypeError):
            signal.signal(number, handler)
    _RUN.handlers = {}

