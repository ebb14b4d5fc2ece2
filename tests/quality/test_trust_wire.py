"""Nothing the child sends is trusted: hostile implementations that attack the reply pipe, the
blame, the texts and the metadata, certified through the real command line.

Each is in tests/hostile (``wire_*``): a copy of reference_impl whose ``mean`` raises, plus one
attack. Each run must end with a non-zero status and no passing certificate, no code of the
implementation may run in pytest's process, and the attack may cost only the rules of the
scenario (or test) where it happened: compared with a clean run (reference_impl) or with
``wire_plain``, whose ``mean`` only raises.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from .cli import SuiteRun, clean_run, run_suite
from .conftest import SUMMARY_KEY

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker.
pytestmark = pytest.mark.xdist_group("test_trust_wire")

BOUND = 240.0
MARKER = "WIRE_MARKER"
META = "tests.hostile.wire_meta:ADAPTER"
#: a small exhaustive scope that calls mean
MEAN_SCOPE = ("--exhaustive", "modes=0,classes=1,setup=0,functions=mean|add")
#: name -> (--impl, extra options) of every wire_* run; the clean one is reference_impl's run
#: that other modules compare with too (cli.clean_run), made once per session
RUNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "plain": ("tests.hostile.wire_plain", ()),
    "pickle": ("tests.hostile.wire_pickle", ("--rules", "TFM_PUSH_001")),
    "garbage": ("tests.hostile.wire_garbage", ()),
    "extra": ("tests.hostile.wire_extra", ()),
    "rules": ("tests.hostile.wire_rules", ()),
    "str": ("tests.hostile.wire_str", ()),
    "meta": (META, ("--rules", "TFM_PUSH_001")),
    # (a certification's exhaustive part, in a scope that calls mean, where the attack is)
    "garbage-n2-certify": ("tests.hostile.wire_garbage", ("-n", "2", "--certify", *MEAN_SCOPE)),
}


class _Runs:
    """Every run, started together (two at a time) when the first is needed."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.pool: ThreadPoolExecutor | None = None
        self.futures: dict[str, Future[SuiteRun]] = {}
        self.markers: dict[str, Path] = {}

    def get(self, name: str) -> SuiteRun:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
            self.futures["clean"] = self.pool.submit(clean_run, self.factory)
            for key, (impl, extra) in RUNS.items():
                workdir = self.factory.mktemp(key)
                self.markers[key] = workdir / "implementation-code-ran-here"
                self.futures[key] = self.pool.submit(
                    run_suite, impl, workdir, extra, BOUND + 60,
                    env_extra={MARKER: str(self.markers[key])})
        return self.futures[name].result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    pool = _Runs(tmp_path_factory)
    yield pool
    pool.close()


def _hostile(runs: _Runs, name: str, record_property: Callable[[str, object], None]) -> SuiteRun:
    """The run of ``name``, checked for what every hostile run must show: it ended in time
    with a non-zero status, wrote no passing certificate, and ran none of its code here."""
    run = runs.get(name)
    record_property(SUMMARY_KEY, f"wire {name:20} ended in {run.seconds:6.1f}s, exit {run.returncode}")
    assert run.seconds < BOUND, f"{name} took {run.seconds:.0f}s\n{run.tail()}"
    assert run.returncode not in (0, -1), f"{name}: exit {run.returncode}\n{run.tail()}"
    assert not runs.markers[name].exists(), f"{name}: the implementation's code ran in pytest's process"
    if run.certificate is not None:
        assert run.certificate["level"]["reached"] == "none", run.certificate["level"]
        assert run.failed(), f"{name}: a certificate that fails no rule\n{run.tail()}"
    return run


def _clean(runs: _Runs, name: str = "clean") -> SuiteRun:
    clean = runs.get(name)
    assert clean.certificate is not None, clean.tail()
    return clean


def _mentions_mean(failure: dict[str, Any]) -> bool:
    return '"mean"' in json.dumps(failure.get("scenario")) or "mean" in failure.get("message", "")


def _only_where_mean_ran(clean: SuiteRun, run: SuiteRun) -> None:
    """The fault battery's measure: each rule newly failing fails only in scenarios that call
    mean, and every other rule keeps the clean run's verdict."""
    assert run.certificate is not None and run.certificate["run"]["complete"], run.tail()
    before, after = clean.verdicts(), run.verdicts()
    newly = sorted(r for r in after if after[r] == "fail" and before[r] != "fail")
    assert newly, run.tail()
    for rule_id in newly:
        failures = run.certificate["rules"][rule_id]["failures"]
        unexplained = [f["test"] for f in failures if not _mentions_mean(f)]
        assert not unexplained, f"{rule_id} fails where mean never ran: {unexplained}\n{run.why(rule_id)}"
    changed = {r: (before[r], after[r]) for r in after if r not in newly and after[r] != before[r]}
    assert not changed, f"other rules' verdicts changed: {changed}"


def test_a_crafted_pickle_up_the_pipe_runs_nothing_and_certifies_nothing(
        runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, "pickle", record_property)
    assert run.certificate is None, "a run whose implementation broke the protocol at load certified"
    assert "broke the sandbox's protocol" in run.output and "while loading the implementation" in run.output
    assert "Traceback" not in run.output, run.tail()


@pytest.mark.parametrize("name", ["garbage", "extra"])
def test_bytes_written_to_the_pipe_cost_only_their_scenario(
        name: str, runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, name, record_property)
    _only_where_mean_ran(_clean(runs), run)
    assert run.certificate is not None
    messages = [f["message"] for entry in run.certificate["rules"].values()
                for f in entry.get("failures", [])]
    assert any("broke the sandbox's protocol" in m for m in messages), run.tail()
    assert not any("Unpickling" in m for m in messages)


def test_garbage_under_xdist_and_certify_costs_only_its_scenarios(
        runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, "garbage-n2-certify", record_property)
    assert run.certificate is not None and run.certificate["run"]["complete"], run.tail()
    for rule_id in run.failed():  # reference_impl passes every rule: each failure is mean's
        failures = run.certificate["rules"][rule_id]["failures"]
        unexplained = [f["test"] for f in failures if not _mentions_mean(f)]
        assert not unexplained, f"{rule_id} fails where mean never ran: {unexplained}"


def test_an_exception_naming_rules_moves_no_blame(
        runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, "rules", record_property)
    plain, after = _clean(runs, "plain").verdicts(), run.verdicts()
    assert run.certificate is not None
    # The keyword check's failure is its own rule's, not the rule the exception named.
    assert after["TFM_PUSH_009"] == "fail", run.why("TFM_PUSH_009")
    assert [f["test"] for f in run.certificate["rules"]["TFM_PUSH_009"]["failures"]] == [
        "conformance/suite/test_contract.py::test_the_base_mode_passes_keywords_through"]
    changed = {r: (plain[r], after[r]) for r in after if r != "TFM_PUSH_009" and after[r] != plain[r]}
    assert not changed, f"rules whose verdict the named rules changed: {changed}"


def test_an_exception_that_cannot_be_printed_is_blamed_like_any_raise(
        runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, "str", record_property)
    plain = _clean(runs, "plain")
    assert run.verdicts() == plain.verdicts(), {
        r: (plain.verdicts()[r], v) for r, v in run.verdicts().items() if v != plain.verdicts()[r]}
    assert run.certificate is not None
    assert "whose __str__() raised RuntimeError" in json.dumps(run.certificate), run.tail()
    assert "no text for you" not in run.output, run.tail()


def test_the_name_and_version_are_cut_and_escaped(
        runs: _Runs, record_property: Callable[[str, object], None]) -> None:
    run = _hostile(runs, "meta", record_property)
    assert run.certificate is not None, run.tail()
    shown = run.certificate["implementation"]
    assert "\x1b" not in run.output, "the terminal received the name's escapes"
    assert shown["name"].startswith("\\x1b[32m150 passed\\x1b[0m\\r\\n\\x1b[2K"), shown["name"][:200]
    from conformance.sandbox.wire import CUT, NAME_SHOWN, VERSION_SHOWN

    assert shown["name"].endswith(CUT) and len(shown["name"]) <= NAME_SHOWN + len(CUT)
    assert shown["version"].startswith("1.0\\n\\x1b[32m150 passed")
    assert shown["version"].endswith(CUT) and len(shown["version"]) <= VERSION_SHOWN + len(CUT)
    assert shown["name"] in run.output
    for path in run.reports.iterdir():
        data = path.read_text(encoding="utf-8")
        assert len(data) < 1_000_000, f"{path.name} holds {len(data)} characters"
        assert "\x1b" not in data and "\\u001b" not in data, f"{path.name} holds an escape"
