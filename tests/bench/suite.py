"""Wall time of certifying reference_impl (ci profile), serially and under ``pytest -n 2``.

Both runs write their reports to a temporary ``--reports-dir``; the ``rules`` sections of
the two ``certificate.json`` files are compared rule by rule.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.bench.rst import table

ROOT = Path(__file__).resolve().parents[2]


def _command(reports: Path, extra: list[str]) -> list[str]:
    return [sys.executable, "-m", "pytest", "--pyargs", "conformance.suite", "-p",
            "conformance.plugin", "--impl", "reference_impl", "-q", "-p", "no:cacheprovider",
            "--reports-dir", str(reports), *extra]


@dataclass
class SuiteRun:
    label: str
    seconds: float
    returncode: int
    summary: str
    rules: dict[str, Any] | None = None
    error: str = ""


def run_suite(label: str, extra: list[str], workdir: Path) -> SuiteRun:
    reports = workdir / label
    env = dict(os.environ, CI="true", PYTHONPATH=os.pathsep.join(
        [str(ROOT), *filter(None, [os.environ.get("PYTHONPATH")])]))
    started = time.perf_counter()
    proc = subprocess.run(_command(reports, extra), cwd=workdir, env=env, capture_output=True,
                          text=True, check=False)
    seconds = time.perf_counter() - started
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    summary = next((line.strip("= ") for line in reversed(lines)
                    if " passed" in line or " failed" in line or " error" in line), "")
    run = SuiteRun(label, seconds, proc.returncode, summary)
    certificate = reports / "certificate.json"
    if certificate.exists():
        run.rules = json.loads(certificate.read_text(encoding="utf-8")).get("rules")
    else:
        errors = [line for line in (proc.stderr + proc.stdout).splitlines()
                  if "ERROR" in line or "Error" in line]
        run.error = errors[0].strip() if errors else f"exit status {proc.returncode}"
    return run


@dataclass
class SuiteResult:
    serial: SuiteRun
    parallel: SuiteRun | None
    differing: list[str] = field(default_factory=list)
    note: str = ""


def _verdicts(rules: dict[str, Any] | list[Any] | None) -> dict[str, Any]:
    if rules is None:
        return {}
    if isinstance(rules, dict):
        return {k: v.get("verdict", v) if isinstance(v, dict) else v for k, v in rules.items()}
    return {r.get("id", str(i)): r.get("verdict") for i, r in enumerate(rules)}


def run(with_xdist: bool = True) -> SuiteResult:
    with tempfile.TemporaryDirectory(prefix="tfmode-bench-") as tmp:
        workdir = Path(tmp)
        serial = run_suite("serial", [], workdir)
        if not with_xdist:
            return SuiteResult(serial, None, note="not run")
        if importlib.util.find_spec("xdist") is None:
            return SuiteResult(serial, None, note="pytest-xdist is not installed")
        parallel = run_suite("xdist", ["-n", "2"], workdir)
    result = SuiteResult(serial, parallel)
    if serial.rules is not None and parallel.rules is not None:
        a, b = serial.rules, parallel.rules
        result.differing = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
        va, vb = _verdicts(a), _verdicts(b)
        changed = sorted(k for k in set(va) | set(vb) if va.get(k) != vb.get(k))
        result.note = (f"{len(result.differing)} of {len(set(a) | set(b))} rule entries differ, "
                       f"{len(changed)} verdicts differ")
    else:
        result.note = "no certificate from the -n 2 run: " + (parallel.error or parallel.summary)
    return result


def render(result: SuiteResult) -> str:
    rows = []
    for run_ in (result.serial, result.parallel):
        if run_ is None:
            continue
        rows.append([run_.label, f"{run_.seconds:.1f}", str(run_.returncode),
                     run_.summary or run_.error])
    text = table("Certifying reference_impl, ci profile (``CI=true``), wall time",
                 ["run", "seconds", "exit", "summary"], rows, [10, 10, 6, 60])
    verdict = result.note or "identical rules sections"
    if result.parallel is not None and result.parallel.rules is not None and not result.differing:
        verdict = "the ``rules`` sections of the two certificates are identical"
    return text + f"\nserial against ``-n 2``: {verdict}.\n"
