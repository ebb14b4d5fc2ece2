"""Implementations that crash, hang, recurse, leak or flood, certified through the real command
line, serially and (the faults not in SERIAL_ONLY) with ``-n 2``: each run ends within its
bound with a non-zero status, and its certificate is incomplete or fails only rules whose
failures the fault explains, every other rule keeping the verdict of a clean run, and none of
its processes outlives it.

The faults are in tests/faults (copies of reference_impl with one change each). Two more runs
stop pytest itself rather than the implementation: a pytest-xdist worker killed mid-run, and
an interrupt; both must give an incomplete certificate, never a pass.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import pytest

from tests.faults import FAULTS

from .cli import FAULT_BOUND, STALE, SuiteRun, clean_run, shared_run
from .conftest import SUMMARY_KEY

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker: its
#: module-scoped fixture starts them all together.
pytestmark = pytest.mark.xdist_group("test_fault_battery")

#: Seconds any faulty run may take (cli.FAULT_BOUND).
BOUND = FAULT_BOUND
MODES = {"serial": (), "n2": ("-n", "2")}
#: The faults certified serially only. A looping implementation is the costliest run there is
#: (its first three hangs in a process cost both limits, 10 s, then 0.5 s of a spinning child
#: each: about 70 CPU-s serially for mean's, 50 more with -n 2), and what -n 2 adds to it is
#: already shown by the other faults: a worker whose sandbox fails reports to the controller,
#: which certifies from every worker's outcomes. The sandbox's hang handling is the same in
#: each worker (tests/test_timing.py and tests/quality/test_trust_time.py try it too). A child
#: that exits with status 0, or that recurses without end, meets in a worker the sandbox code it
#: meets serially, and reaches the controller the way crash_exit1's does under -n 2: their -n 2
#: runs showed nothing the serial runs and crash_exit1's do not (13 and 8 CPU-s here).
SERIAL_ONLY = frozenset({"hang_call", "hang_thread", "crash_exit0", "recursion"})
RUNS = [(fault, mode) for fault in FAULTS for mode in MODES
        if mode == "serial" or fault not in SERIAL_ONLY]
#: The rules a leaked mode may fail: those about restoring the mode after a block.
RESTORE_RULES = {"TFM_PUSH_003"}


def _mentions(failure: dict[str, Any], names: tuple[str, ...]) -> bool:
    """The failure's scenario calls one of ``names``; or it is the surface sweep's, and its
    first divergence is in one of them (the sweep calls every listed callable)."""
    text = json.dumps(failure.get("scenario"))
    if any(f'"{name}"' in text for name in names):
        return True
    return "test_every_listed_callable_dispatches" in failure["test"] and any(
        f"diverge: {name}; first: {name}: the implementation failed while {name} was checked"
        in failure["message"] for name in names)


def _explained(fault: str) -> Callable[[str, dict[str, Any]], bool]:
    """Whether a failure of rule ``rule_id`` is one the fault explains."""
    names = FAULTS[fault][1]
    if fault == "hang_thread":
        return lambda rule_id, f: ('"thread": true' in json.dumps(f.get("scenario"))
                                   or "test_threads.py" in f["test"])
    if fault == "leak":
        return lambda rule_id, f: rule_id in RESTORE_RULES
    return lambda rule_id, f: _mentions(f, names)


class _Runs:
    """Every run of the battery, started together (two at a time) when the first is needed."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.pool: ThreadPoolExecutor | None = None
        self.futures: dict[tuple[str, str], Future[SuiteRun]] = {}

    def _submit(self, key: tuple[str, str], impl: str, extra: tuple[str, ...],
                env: dict[str, str] | None = None) -> None:
        # shared runs: a module asking for the same one (test_trust_time, the looping mean's:
        # cli.hang_run) reads this one, made once per session
        assert self.pool is not None
        self.futures[key] = self.pool.submit(shared_run, self.factory, impl, extra, BOUND + 60,
                                             env_extra=env, stale_reports=True)

    def get(self, key: tuple[str, str]) -> SuiteRun:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
            # the clean run is the one other modules compare with too: made once (cli.shared_run)
            self.futures[("clean", "serial")] = self.pool.submit(clean_run, self.factory)
            for fault, mode in RUNS:
                self._submit((fault, mode), f"tests.faults.{fault}", MODES[mode])
            stop = ("-p", "tests.faults.stop_pytest")
            self._submit(("worker", "n2"), "reference_impl", (*stop, "-n", "2"),
                         {"FAULT_BATTERY_STOP": "worker"})
            self._submit(("interrupt", "serial"), "reference_impl", stop,
                         {"FAULT_BATTERY_STOP": "interrupt"})
        return self.futures[key].result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    pool = _Runs(tmp_path_factory)
    yield pool
    pool.close()


@pytest.mark.parametrize(("fault", "mode"), RUNS)
def test_a_fault_costs_only_its_own_rules(fault: str, mode: str, runs: _Runs,
                                           record_property: Callable[[str, object], None]) -> None:
    clean, run = runs.get(("clean", "serial")), runs.get((fault, mode))
    record_property(SUMMARY_KEY, f"fault {fault:16} {mode:6} ended in {run.seconds:6.1f}s, "
                                 f"exit {run.returncode}")
    assert clean.returncode == 0 and clean.certificate is not None, clean.tail()
    assert run.seconds < BOUND, f"{fault} ({mode}) took {run.seconds:.0f}s\n{run.tail()}"
    assert not run.survivors, f"{fault} ({mode}): processes outlived the run:\n" + "\n".join(
        run.survivors)
    for path in run.reports.iterdir():
        assert STALE not in path.read_text(encoding="utf-8"), f"{path.name} is an earlier run's"
    assert run.returncode not in (0, -1), f"{fault} ({mode}): exit {run.returncode}\n{run.tail()}"
    if run.certificate is None or not run.certificate["run"]["complete"]:
        return  # no certificate, or one that certifies nothing: both honest
    assert run.certificate["level"]["reached"] == "none"
    before, after = clean.verdicts(), run.verdicts()
    newly = sorted(r for r in after if after[r] == "fail" and before[r] != "fail")
    assert newly, f"{fault} ({mode}) failed no rule\n{run.tail()}"
    explained = _explained(fault)
    for rule_id in newly:
        failures = run.certificate["rules"][rule_id]["failures"]
        unexplained = [f["test"] for f in failures if not explained(rule_id, f)]
        assert not unexplained, (f"{fault} ({mode}) fails {rule_id} in tests its fault does not "
                                 f"explain: {unexplained}\n{run.why(rule_id)}")
    changed = {r: (before[r], after[r]) for r in after if r not in newly and after[r] != before[r]}
    assert not changed, f"{fault} ({mode}) changed other rules' verdicts: {changed}"


@pytest.mark.parametrize(("stop", "mode"), [("worker", "n2"), ("interrupt", "serial")])
def test_a_run_stopped_from_outside_certifies_nothing(stop: str, mode: str, runs: _Runs) -> None:
    run = runs.get((stop, mode))
    assert run.returncode not in (0, -1), f"{stop}: exit {run.returncode}\n{run.tail()}"
    assert run.certificate is not None, f"{stop}: no certificate\n{run.tail()}"
    assert run.certificate["run"]["complete"] is False
    assert run.certificate["level"]["reached"] == "none"
    assert run.certificate["run"]["problems"], run.certificate["run"]
    badge = json.loads((run.reports / "badge.json").read_text(encoding="utf-8"))
    assert badge["message"] == "incomplete run"
    # One run's files: nothing of the earlier run's is left beside them.
    for path in run.reports.iterdir():
        assert STALE not in path.read_text(encoding="utf-8"), f"{path.name} is an earlier run's"
    assert sorted(p.name for p in run.reports.iterdir()) == ["badge.json", "certificate.json",
                                                             "junit.xml"]
