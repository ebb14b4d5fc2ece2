"""The worker grouping the quality suites rely on: a module marked ``xdist_group`` runs on one
worker under ``-n 2 --dist loadgroup``, so its module-scoped pool starts its certifications once.

The module below is shaped like those suites: a module-scoped fixture (the pool) that notes the
worker it starts on, and many tests that use it. Without ``tests/xdist_groups.py`` the pytest and
pytest-xdist that tox installs start that fixture on both workers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

POOL_MODULE = '''
import os

import pytest

pytestmark = pytest.mark.xdist_group("pool")

@pytest.fixture(scope="module")
def pool():
    with open(os.environ["POOL_LOG"], "a", encoding="utf-8") as log:
        log.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    return True

@pytest.mark.parametrize("i", range(12))
def test_uses_pool(pool, i):
    assert pool
'''

SPREAD_MODULE = '''
import pytest


@pytest.mark.parametrize("i", range(12))
def test_elsewhere(i):
    assert i >= 0
'''


def test_a_group_starts_its_pool_on_one_worker(tmp_path: Path) -> None:
    (tmp_path / "test_pool.py").write_text(POOL_MODULE, encoding="utf-8")
    (tmp_path / "test_spread.py").write_text(SPREAD_MODULE, encoding="utf-8")
    log = tmp_path / "pool.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env.update(POOL_LOG=str(log), PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]))
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-p", "tests.xdist_groups",
         "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path), str(tmp_path)],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    starts = log.read_text(encoding="utf-8").split()
    assert len(starts) == 1, f"the pool started on {starts}: a grouped module ran on two workers"
