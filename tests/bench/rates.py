"""Scenarios per second: how fast a certification checks scenarios, on reference_impl and torch.

Two measures, each in the same run as what it is compared with:

* **the generated sweep** (``conformance.search.sweep.run_sweep`` on the implementation in its
  sandbox): as a certification draws it now, from a seeded generator and many scenarios per
  round trip (the ``certify`` profile), against the way every profile drew it before, which the
  searching profiles still use: hypothesis drawing each scenario and one request per scenario
  (the ``thorough`` profile, its search phases left out as the sweep always does);
* **a whole run** under the ``certify`` profile (``--certify`` for reference_impl; torch, which
  breaks MUST rules, with its committed expected failures as ``tox -e conformance-torch`` runs it,
  and the default exhaustive scope that ``--certify`` adds) on one core (the suite and the
  implementation's process pinned to the same CPU): the scenarios it checked (generated, explicit
  examples, the default exhaustive scope) over its wall time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

from tests.bench.rst import table

ROOT = Path(__file__).resolve().parents[2]
#: The targets of the issue that asked for this section (scenarios per second of a whole run).
TARGETS = {"reference_impl": 500, "torch": 250}


@dataclass
class SweepRate:
    impl: str
    scenarios: int
    seeded: float  # seconds: the certify profile's seeded, batched sweep
    hypothesis: float  # seconds: hypothesis drawing, one request per scenario

    @property
    def ratio(self) -> float:
        return self.hypothesis / self.seeded


@dataclass
class RunRate:
    impl: str
    seconds: float
    generated: int
    examples: int
    exhaustive: int
    exit: int

    @property
    def scenarios(self) -> int:
        return self.generated + self.examples + self.exhaustive

    @property
    def rate(self) -> float:
        return self.scenarios / self.seconds


def sweep_rate(impl: str, n: int) -> SweepRate:
    from hypothesis import settings

    from conformance.sandbox.parent import SandboxedImplementation
    from conformance.search.sweep import run_sweep
    from conformance.session import profiles

    profiles.register()
    target = SandboxedImplementation(impl)
    seconds: dict[str, float] = {}
    try:
        for profile in ("certify", "thorough", "certify"):  # the first: a warm-up
            settings.load_profile(profile)
            started = time.perf_counter()
            done = run_sweep(target, target.generation, max_examples=n, chunk=0)
            seconds[profile] = time.perf_counter() - started
            assert done.examples == n and not done.errors, (profile, done.errors[:2])
    finally:
        target.close()
        settings.load_profile("default")
    return SweepRate(impl, n, seconds["certify"], seconds["thorough"])


def run_rate(impl: str) -> RunRate:
    """A whole run under the certify profile on one CPU."""
    with tempfile.TemporaryDirectory(prefix="tfm-bench-rates-") as work:
        reports = Path(work, "reports")
        command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-p", "no:xdist", "-q",
                   "--pyargs", "conformance.suite", "--impl", impl, f"--reports-dir={reports}"]
        if impl == "reference_impl":
            command.append("--certify")
        else:
            expected = ROOT / "conformance" / "expected_failures" / f"torch-{_torch_release()}.toml"
            command += ["--hypothesis-profile", "certify", f"--expected-failures={expected}",
                        "--exhaustive", "default"]  # what --certify adds
        one_cpu = sorted(os.sched_getaffinity(0))[:1] if hasattr(os, "sched_getaffinity") else []

        def pin() -> None:
            if one_cpu:
                os.sched_setaffinity(0, one_cpu)

        started = time.perf_counter()
        done = subprocess.run(command, cwd=work, capture_output=True, text=True, check=False,
                              preexec_fn=pin)
        seconds = time.perf_counter() - started
        generated = examples = 0
        for case in ET.parse(reports / "junit.xml").iter("testcase"):
            props = {p.get("name"): p.get("value") for p in case.iter("property")}
            if "test_generated_scenarios" in case.get("name", ""):
                generated += int(props.get("scenarios") or 0)
            elif "test_example[" in case.get("name", "") and case.find("skipped") is None:
                examples += 1
        certificate = json.loads((reports / "certificate.json").read_text(encoding="utf-8"))
        exhaustive = (certificate["run"].get("exhaustive") or {}).get("scenarios", 0)
    return RunRate(impl, seconds, generated, examples, exhaustive, done.returncode)


def _torch_release() -> str:
    import torch

    return str(torch.__version__).split("+")[0]


def run(n: int, with_torch: bool) -> tuple[list[SweepRate], list[RunRate]]:
    impls = ["reference_impl", *(["torch"] if with_torch else [])]
    return [sweep_rate(i, n) for i in impls], [run_rate(i) for i in impls]


def render(result: tuple[list[SweepRate], list[RunRate]]) -> str:
    sweeps, runs = result
    sweep_rows = [[s.impl, s.scenarios, f"{s.scenarios / s.hypothesis:.0f}", f"{s.scenarios / s.seeded:.0f}",
                   f"{s.ratio:.1f}x"] for s in sweeps]
    run_rows = [[r.impl, f"{r.seconds:.1f}", r.generated, r.examples, r.exhaustive,
                 f"**{r.rate:.0f}**", TARGETS.get(r.impl, "\\"), r.exit] for r in runs]
    return (table("The generated sweep in the implementation's sandbox, scenarios/s",
                  ["implementation", "scenarios", "hypothesis, one request each", "seeded, batched",
                   "ratio"], sweep_rows, [20, 12, 25, 20, 10])
            + "\n"
            + table("A whole run under the certify profile on one CPU",
                    ["implementation", "seconds", "generated", "examples", "exhaustive",
                     "scenarios/s", "target", "exit"], run_rows, [18, 10, 10, 10, 12, 12, 8, 6]))
