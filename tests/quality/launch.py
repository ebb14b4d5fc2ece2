"""Starts one command line of the suite and waits for its own process, not for its pipes.

``subprocess.run(capture_output=True)`` waits until every process holding the output pipes has
closed them: a pytest-xdist worker or anything else that outlived pytest kept such a run waiting
to its timeout, and the timeout then said "pytest hung" when it may have finished long before.
Here the output goes to a file, the wait is for pytest's own exit, and every process the run
started carries a marker in its environment, so what is still alive afterwards is found by the
marker: a run's result says which of its processes outlived it (``survivors``), and a run stopped
at its timeout says what each of them was doing (their state, kernel wait channel and command
line; a pytest process is first sent SIGABRT, whose traceback of every thread pytest's
faulthandler writes to the output) before all of them are killed.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from tests import suite_runs

#: The environment variable that marks every process of one launched run.
MARKER = suite_runs.LAUNCHED
#: Seconds the run's other processes get to end after pytest has (the sandbox's watchdog polls
#: every tenth of a second; a killed worker's watchdog then sweeps its children).
GRACE = 3.0


@dataclass(frozen=True)
class Launched:
    returncode: int  # -1: stopped at its timeout
    seconds: float
    output: str
    #: the processes of the run still alive after pytest ended (and GRACE), one line each
    survivors: tuple[str, ...]


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except OSError:
        return b""


def marked(value: str) -> list[int]:
    """The live processes whose environment carries the marker ``value`` (Linux /proc)."""
    wanted = f"{MARKER}={value}".encode()
    found = []
    for name in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if name.isdigit() and wanted in _read(f"/proc/{name}/environ").split(b"\0"):
            stat = _read(f"/proc/{name}/stat").decode("ascii", "replace")
            state = stat[stat.rfind(")") + 2:].split()[:1]
            if state and state[0] not in ("Z", "X"):
                found.append(int(name))
    return found


def describe(pid: int) -> str:
    stat = _read(f"/proc/{pid}/stat").decode("ascii", "replace")
    fields = stat[stat.rfind(")") + 2:].split()
    state, ppid = (fields[0], fields[1]) if len(fields) > 1 else ("?", "?")
    wchan = _read(f"/proc/{pid}/wchan").decode("ascii", "replace") or "-"
    command = _read(f"/proc/{pid}/cmdline").replace(b"\0", b" ").decode("utf-8", "replace")
    return f"pid {pid} (parent {ppid}) state {state} waiting in {wchan}: {command.strip()[:300]}"


def _kill(pids: Sequence[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except OSError:
            pass


def launch(command: Sequence[str], cwd: Path, env: dict[str, str], timeout: float) -> Launched:
    value = secrets.token_hex(8)
    env = {**env, MARKER: value}
    with tempfile.TemporaryFile("w+b") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(list(command), cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                                stdout=out, stderr=subprocess.STDOUT)
        try:
            returncode = proc.wait(timeout=timeout)
            seconds = time.perf_counter() - start
            note = ""
        except subprocess.TimeoutExpired:
            seconds = time.perf_counter() - start
            alive = marked(value)
            lines = [describe(pid) for pid in alive]
            pythons = [pid for pid in alive if b"pytest" in _read(f"/proc/{pid}/cmdline")
                       or b"execnet" in _read(f"/proc/{pid}/cmdline")
                       or b"exec(eval(sys.stdin" in _read(f"/proc/{pid}/cmdline")]
            _kill(pythons, signal.SIGABRT)  # pytest's faulthandler: every thread's traceback
            time.sleep(1.0)
            _kill(marked(value), signal.SIGKILL)
            proc.wait()
            returncode = -1
            note = (f"\ntimed out after {timeout}s; its processes then:\n"
                    + "\n".join(f"  {line}" for line in lines))
        deadline = time.monotonic() + GRACE
        while (left := marked(value)) and time.monotonic() < deadline:
            time.sleep(0.1)
        survivors = tuple(describe(pid) for pid in left)
        _kill(left, signal.SIGKILL)
        out.seek(0)
        output = out.read().decode("utf-8", "replace")
    return Launched(returncode, seconds, output + note, survivors)
