"""tests.quality.launch, which starts the suite's command line for the quality tests: it waits for
the command's own process, names what the command left running, and ends it."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from tests.quality.launch import launch, marked

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="reads Linux's /proc")

#: A parent that starts a child holding the output open for a minute, then exits at once.
LEAVES_A_CHILD = """
import subprocess, sys
subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
print("parent done", flush=True)
"""


def test_a_child_left_running_is_named_and_ended_without_waiting_for_it(tmp_path: Path) -> None:
    start = time.perf_counter()
    done = launch([sys.executable, "-c", LEAVES_A_CHILD], tmp_path, dict(os.environ), 30)
    assert time.perf_counter() - start < 20  # not the child's 60 s: the wait is for the parent
    assert done.returncode == 0 and "parent done" in done.output
    assert len(done.survivors) == 1 and "time.sleep(60)" in done.survivors[0]
    assert not marked_alive(done.survivors[0])


def test_a_run_past_its_timeout_says_what_was_running_and_leaves_nothing(tmp_path: Path) -> None:
    script = LEAVES_A_CHILD + "import time; time.sleep(60)\n"
    done = launch([sys.executable, "-c", script], tmp_path, dict(os.environ), 3)
    assert done.returncode == -1
    assert "timed out after 3" in done.output
    assert sum(line.strip().startswith("pid ") for line in done.output.splitlines()) == 2
    assert not marked_alive(done.output)


def test_a_run_that_leaves_nothing_has_no_survivors(tmp_path: Path) -> None:
    done = launch([sys.executable, "-c", "print('hello')"], tmp_path, dict(os.environ), 30)
    assert (done.returncode, done.output.strip(), done.survivors) == (0, "hello", ())


def marked_alive(text: str) -> bool:
    """Whether a process a line of ``text`` names ("pid N ...") is still alive."""
    pids = [int(word) for line in text.splitlines() if (words := line.split())[:1] == ["pid"]
            for word in words[1:2]]
    for _ in range(50):  # a killed process is gone within moments
        if not any(os.path.exists(f"/proc/{pid}") and _live(pid) for pid in pids):
            return False
        time.sleep(0.1)
    return True


def _live(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2:][:1] not in ("Z", "X")


def test_marked_finds_only_the_runs_own_processes() -> None:
    assert marked("no-such-run") == []
