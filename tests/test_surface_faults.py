"""A fault of the implementation during the syntax forms costs only the forms it meets: the
forms are checked again part by part, so a crash in ``x[k]`` fails the indexing rules and the
other forms are still judged (conformance.suite.test_surface)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_a_crash_in_indexing_fails_only_the_indexing_rules(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conformance.plugin", "--pyargs",
         "conformance.suite.test_surface", "-k", "syntactic", "--impl", "tests.faults.crash_index",
         "--reports-dir", str(tmp_path / "reports"), "-q", "-p", "no:cacheprovider"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600, check=False)
    certificate = json.loads((tmp_path / "reports" / "certificate.json").read_text(encoding="utf-8"))
    verdicts = {rule: entry["verdict"] for rule, entry in certificate["rules"].items()}
    assert done.returncode == 1, done.stdout[-3000:]
    assert verdicts["TFM_SYNTAX_001"] == "fail" and verdicts["TFM_ORDER_006"] == "fail", verdicts
    for rule in ("TFM_SYNTAX_002", "TFM_SYNTAX_003", "TFM_SYNTAX_004", "TFM_TYPES_006"):
        assert verdicts[rule] != "fail", (rule, done.stdout[-3000:])  # -k: not all its tests ran
    # Every other form was still checked, and passed; each indexing form failed on its own.
    table = certificate["surface"]["functions"]
    failed = sorted(name for name, entry in table.items() if entry["rules"])
    assert failed == sorted(["x[0]", "x[0:1]", "x[...]", "x[None]", "x[i]", "x[(0,)]", "x[[0]]",
                             "index-ducks"]), failed  # a group that crashes is named as a part
    assert {"x + y", "2 + x", "-x", "x.real", "is_tensor_like(duck)"} <= set(table)
    failure = certificate["rules"]["TFM_SYNTAX_001"]["failures"][0]["message"]
    assert "while x[0] was checked" in failure, failure
