"""What the ``proc_*`` hostile implementations do, called from their ``mean``.

Each process they start writes its pid to ``$PROC_HOSTILE_DIR/pids`` (one a line), so a test
can check that none is alive after the run. Without ``PROC_HOSTILE_DIR`` they do nothing hostile.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

#: What a rewritten report holds, so a test can recognise one.
FORGED = "forged by a process the implementation left behind"
_DONE: set[str] = set()


def _folder() -> Path | None:
    given = os.environ.get("PROC_HOSTILE_DIR")
    return Path(given) if given else None


def _first(what: str) -> bool:
    if what in _DONE or _folder() is None:
        return False
    _DONE.add(what)
    return True


def _note() -> None:
    folder = _folder()
    assert folder is not None
    fd = os.open(folder / "pids", os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    os.write(fd, f"{os.getpid()}\n".encode())
    os.close(fd)


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except (OSError, IndexError):
        return False


def _suite_ancestors() -> list[int]:
    """The pytest processes above this one that run the suite (the controller under xdist)."""
    found, pid = [], os.getppid()
    while pid > 1:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                if b"conformance.suite" in handle.read():
                    found.append(pid)
            with open(f"/proc/{pid}/stat", "rb") as handle:
                pid = int(handle.read().rsplit(b")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            break
    return found


def _detached(body: object, clear_env: bool = False) -> None:
    """Run ``body()`` (or sleep) in a grandchild in a new session (double fork + setsid).

    Returns once the grandchild has noted its pid (or died): a caller that then kills the suite
    must not race it (the watchdog could end it before it noted itself, and a test counting the
    pids would see one too few)."""
    noted, written = os.pipe()
    if os.fork() == 0:
        try:
            os.close(noted)
            os.setsid()
            if os.fork() == 0:
                for name in ("SIGTERM", "SIGHUP", "SIGINT"):
                    signal.signal(getattr(signal, name), signal.SIG_IGN)
                _note()
                os.write(written, b"1")
                os.close(written)
                if clear_env:  # no trace of the run's environment: only re-parenting finds it
                    os.execve(sys.executable, [sys.executable, "-c",
                                               "import time; time.sleep(3600)"], {})
                if callable(body):
                    body()
                else:
                    time.sleep(3600)
        finally:
            os._exit(0)
    os.close(written)
    os.read(noted, 1)  # b"" when every writer is gone without writing: the grandchild died
    os.close(noted)
    os.wait()


def forge_reports() -> None:
    """A grandchild waits until the suite has exited, then writes a passing certificate."""
    if not _first("forge"):
        return
    reports = Path(os.environ["PROC_HOSTILE_REPORTS"])
    suite = _suite_ancestors()

    def forge() -> None:
        while any(_alive(pid) for pid in suite):
            time.sleep(0.05)
        time.sleep(0.3)
        passing = {"level": {"reached": "MUST", "features": []}, "forged": FORGED,
                   "run": {"complete": True, "problems": []}}
        (reports / "certificate.json").write_text(json.dumps(passing), encoding="utf-8")
        (reports / "badge.json").write_text(json.dumps({"message": "MUST " + FORGED}),
                                            encoding="utf-8")

    _detached(forge)


def fork_many() -> None:
    """16 sleeping processes: 6 plain children, 6 detached, 4 detached with no environment."""
    if not _first("fork"):
        return
    for _ in range(6):
        if os.fork() == 0:
            try:
                _note()
                time.sleep(3600)
            finally:
                os._exit(0)
    for index in range(10):
        _detached(None, clear_env=index >= 6)


def stop_parent() -> None:
    """SIGSTOP the suite's process (the first three calls)."""
    for index in range(3):
        if _first(f"stop{index}"):
            os.kill(os.getppid(), signal.SIGSTOP)
            return


def terminate_parent() -> None:
    if _folder() is not None:
        os.kill(os.getppid(), signal.SIGTERM)


def crash_once() -> None:
    """Crash the first time; the marker makes the next import hang (see proc_restart_hang)."""
    folder = _folder()
    if folder is not None and not (folder / "restart").exists():
        (folder / "restart").write_text("crashed", encoding="utf-8")
        os._exit(1)


def hang_after_crash() -> None:
    """At import: hang once, the first time after crash_once crashed."""
    folder = _folder()
    marker = None if folder is None else folder / "restart"
    if marker is not None and marker.exists() and marker.read_text(encoding="utf-8") == "crashed":
        marker.write_text("hung", encoding="utf-8")
        while True:
            time.sleep(1)


def kill_parent() -> None:
    """Leave two detached sleepers (which keep the environment), then SIGKILL the suite's
    process: nothing can write a certificate, but the watchdog still ends the sleepers."""
    if _first("kill"):
        for _ in range(2):
            _detached(None)
        os.kill(os.getppid(), signal.SIGKILL)
