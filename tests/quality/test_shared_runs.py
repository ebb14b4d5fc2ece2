"""A run several modules ask for is made once per session (cli.shared_run), and only then.

The session below asks for the same run from both pytest-xdist workers (``--dist each``), two
threads on each, as the quality modules' pools do: one run is made and all four askers read
it. The same session made again in the same folder makes its run again, rather than reading
the earlier session's. The run asked for is one the suite refuses at once (a bad option), as
the sharing does not depend on what the run finds.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests import suite_runs

from .cli import REPO

ASKING_MODULE = '''
import json
import os
from concurrent.futures import ThreadPoolExecutor

from tests.quality.cli import shared_run


def test_ask_twice(tmp_path_factory):
    def ask(_):
        return shared_run(tmp_path_factory, "reference_impl", ("--rule-timeout", "abc"))

    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(ask, range(2)))
    with open(os.environ["SHARED_LOG"], "a", encoding="utf-8") as log:
        for run in runs:
            log.write(json.dumps([run.returncode, str(run.reports), run.output]) + "\\n")
'''


def _session(folder: Path, log: Path) -> tuple[list[list[object]], list[Path]]:
    """The askers' records and the folders of the runs made, after one session in ``folder``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("PYTEST_", "TFMODE_")) and k != suite_runs.RUN_LOG}
    env.update(SHARED_LOG=str(log), PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]))
    log.unlink(missing_ok=True)
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "each", "-p", "no:cacheprovider", "-q",
         "--rootdir", str(folder), "--basetemp", str(folder / "base"), str(folder / "test_ask.py")],
        cwd=folder, env=env, capture_output=True, text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    records = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    return records, sorted((folder / "base" / "shared-runs").glob("*/run-*"))


def test_a_shared_run_is_made_once_per_session(tmp_path: Path) -> None:
    (tmp_path / "test_ask.py").write_text(ASKING_MODULE, encoding="utf-8")
    log = tmp_path / "asked.log"
    seen: list[Path] = []
    for _ in range(2):
        records, made = _session(tmp_path, log)
        assert len(records) == 4, records  # two workers, two threads each
        assert len(made) == 1, f"{len(made)} runs made for one: {made}"
        assert {r[0] for r in records} == {4}, records  # the suite's refusal, read by every asker
        assert len({r[2] for r in records}) == 1 and "--rule-timeout" in records[0][2], records
        assert {r[1] for r in records} == {str(made[0] / "reports")}, records
        assert made[0] not in seen, "a session read the earlier session's run"
        seen.append(made[0])
