"""Reproducible and honest randomness: per-chunk seeds, and the settings a run really used.

The suite's generated scenarios are split into chunks (conformance/suite/test_generated.py).
A given seed must reproduce a run and still give each chunk a stream of its own; the
certificate must record the hypothesis settings the tests read back, whoever tried to change
them (a conftest.py found on the way, for one).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import core, settings

import conformance.search.sweep as sweep_module
from conformance.adapter import Adapter, load_adapter
from conformance.judge.check import Checked, check
from conformance.session import profiles
from conformance.session.observed import Observed, hypothesis_section
from spec.model import Scenario, scenario_to_dict
from tests import suite_runs
from tests.quality.cli import certification

pytest_plugins = ("pytester",)

REPO = Path(__file__).resolve().parent.parent
CHUNKS = 8
PER_CHUNK = 13


@pytest.fixture
def profile() -> Iterator[None]:
    """Restore the profile and the global seed a test changes."""
    name, seed = settings.get_current_profile_name(), core.global_force_seed
    profiles.register()
    yield
    settings.load_profile(name)
    core.global_force_seed = seed


def draws(monkeypatch: pytest.MonkeyPatch, seed: object) -> list[list[str]]:
    """The scenarios each of the eight chunks draws, as run_sweep checks them."""
    monkeypatch.setattr(core, "global_force_seed", seed)  # what --hypothesis-seed sets
    adapter = load_adapter("reference_impl")
    chunks: list[list[str]] = []

    def recording(scenario: Scenario, impl: Adapter, **options: Any) -> Checked | None:
        chunks[-1].append(json.dumps(scenario_to_dict(scenario), sort_keys=True))
        return check(scenario, impl, **options)

    monkeypatch.setattr(sweep_module, "check", recording)
    for chunk in range(CHUNKS):
        chunks.append([])
        sweep_module.run_sweep(adapter, adapter.generation, PER_CHUNK, chunk=chunk)
    return chunks


@pytest.mark.parametrize(("name", "seed"), [("dev", 5), ("dev", "text-seed"), ("certify", None)])
def test_each_chunk_draws_its_own_reproducible_stream(monkeypatch: pytest.MonkeyPatch, profile: None,
                                                      name: str, seed: object) -> None:
    settings.load_profile(name)
    first = draws(monkeypatch, seed)
    assert [len(c) for c in first] == [PER_CHUNK] * CHUNKS
    assert len({tuple(c) for c in first}) == CHUNKS, "two chunks drew the same scenarios"
    distinct = len({s for c in first for s in c})
    assert distinct > CHUNKS * PER_CHUNK // 2, f"{distinct} distinct scenarios"
    assert draws(monkeypatch, seed) == first  # the same seed reproduces every chunk


def test_another_seed_draws_other_scenarios(monkeypatch: pytest.MonkeyPatch, profile: None) -> None:
    settings.load_profile("dev")
    assert draws(monkeypatch, 5) != draws(monkeypatch, 6)


def test_the_hypothesis_section_claims_no_more_than_every_test_ran_with() -> None:
    certify = Observed("certify", 1000, True, False, None)
    dev = Observed("dev", 100, False, True, None)
    agreed = hypothesis_section(certify, {"a": certify, "b": certify})
    assert agreed == {"profile": "certify", "seed": None, "derandomize": True, "max_examples": 1000,
                      "database": False, "tests": 2,
                      "requested": {"profile": "certify", "seed": None}, "disagreements": []}
    mixed = hypothesis_section(certify, {"a": certify, "b": dev, "c": dev})
    assert (mixed["profile"], mixed["derandomize"], mixed["max_examples"], mixed["database"]) == (
        None, False, 100, True)
    assert mixed["disagreements"] == [
        "2 test(s) ran with profile 'dev', max_examples 100, derandomize false, database yes, "
        "seed none instead of profile 'certify', max_examples 1000, derandomize true, "
        "database none, seed none: b, c"]
    verbose = Observed("certify-with-verbose-verbosity", 1000, True, False, None)
    assert hypothesis_section(certify, {"a": verbose})["disagreements"] == []
    assert hypothesis_section(certify, {})["derandomize"] is None


# -- whole runs, in subprocesses, as a user starts them -------------------------------------------


def suite(cwd: Path, *args: str, again: str | None = None
          ) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    """``python -m pytest --pyargs conformance.suite ARGS`` run in ``cwd``; its certificate.
    ``again``: why the run repeats another on purpose (tests/suite_runs.py)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("TFMODE_", "HYPOTHESIS_", "PYTEST_")) and k != "CI"}
    if again:
        env[suite_runs.AGAIN] = again
    env["PYTHONPATH"] = str(REPO)  # for tests.mutants
    cwd.mkdir(parents=True, exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "pytest", "--pyargs", "conformance.suite", "-q",
                           "-p", "no:cacheprovider", "--reports-dir", "reports", *args],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=900)
    path = cwd / "reports" / "certificate.json"
    assert path.exists(), done.stdout[-3000:] + done.stderr[-3000:]
    return done, json.loads(path.read_text(encoding="utf-8"))


def test_certify_from_another_folder_runs_the_certify_settings(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    # pytest finds the repository's conftest.py on its way to the suite; it must not change the
    # profile, and the certificate must say what the tests read back. The run is the session's
    # one certification of reference_impl from a folder outside the repository (shared with
    # tests/quality/test_reproducible_verdicts.py).
    run = certification(tmp_path_factory)
    assert run.returncode == 0 and run.certificate is not None, run.tail()
    recorded = run.certificate["hypothesis"]
    assert recorded["derandomize"] is True
    assert recorded["max_examples"] == profiles.PROFILES["certify"]["max_examples"]
    assert (recorded["profile"], recorded["database"], recorded["disagreements"]) == (
        "certify", False, [])
    assert recorded["tests"] >= 100


def test_the_same_seed_gives_the_same_rules(tmp_path: Path) -> None:
    # The mutant fails in the generated chunks with this seed, so scenarios are recorded (the
    # last assertion checks that: a change of the drawing that loses it fails here, loudly).
    # Under the triage profile: what is drawn is the same, and no failure is shrunk (shrinking
    # was most of these runs' time, and the rules a run fails do not depend on it).
    impl = "tests.mutants.mode_order"
    with ThreadPoolExecutor(2) as pool:
        runs = list(pool.map(lambda d: suite(tmp_path / d, "--impl", impl, "--hypothesis-seed", "12",
                                             "--hypothesis-profile", "triage",
                                             again="the same seed twice" if d == "two" else None),
                             ["one", "two"]))
    (_, first), (_, second) = runs
    assert first["rules"] == second["rules"]
    assert first["hypothesis"]["seed"] == "12" and first["hypothesis"]["disagreements"] == []
    generated = [f for entry in first["rules"].values() for f in entry["failures"]
                 if "test_generated" in f["test"]]
    assert generated, "the mutant should fail some generated chunk"


PROBE = """
import pytest
from hypothesis import settings
from spec.catalogue import load_catalogue

@pytest.mark.rule(*load_catalogue().ids())  # every rule tested: --certify passes on this alone
def test_reads_the_profile():
    print("PROFILE", settings.get_current_profile_name(), settings().max_examples)
"""


def toy_run(pytester: pytest.Pytester, conftest: str, *args: str) -> pytest.RunResult:
    # In a folder of its own, the conftest.py is loaded while collecting: after the plugin chose.
    sub = pytester.mkdir("sub")
    (sub / "conftest.py").write_text(conftest, encoding="utf-8")
    (sub / "test_toy.py").write_text(PROBE, encoding="utf-8")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTHONPATH", str(REPO))
        for name in ("CI", "TFMODE_PROFILE", "TFMODE_IMPL", "TFMODE_REPORTS"):
            mp.delenv(name, raising=False)
        return pytester.runpytest_subprocess("-p", "conformance.plugin", "-p", "no:cacheprovider",
                                             "-s", "--impl", "reference_impl", *args, timeout=300)


def test_a_conftest_cannot_change_the_certify_profile(pytester: pytest.Pytester) -> None:
    result = toy_run(pytester, """
import pytest
from hypothesis import settings
from conformance.session import profiles

profiles.register()
settings.load_profile("dev")

@pytest.fixture(autouse=True)
def _dev():
    settings.load_profile("dev")
""", "--certify")
    result.stdout.fnmatch_lines(["*PROFILE certify 1000"])
    assert result.ret == 0
    cert = json.loads((pytester.path / "reports" / "certificate.json").read_text())
    assert (cert["hypothesis"]["profile"], cert["hypothesis"]["tests"]) == ("certify", 1)


def test_settings_other_than_the_chosen_ones_fail_a_certify_run(pytester: pytest.Pytester) -> None:
    # Registered again under the same name after the plugin chose it: loading it by name no
    # longer gives the certify settings, and the read-back shows it.
    result = toy_run(pytester, """
from hypothesis import settings

settings.register_profile("certify", max_examples=7, derandomize=True, database=None)
""", "--certify")
    result.stdout.fnmatch_lines([
        "*PROFILE certify 7",
        "ERROR: hypothesis settings differ: 1 test(s) ran with profile 'certify', max_examples 7,*",
        "certification FAILED: tests ran with other hypothesis settings than profile 'certify'*"])
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cert = json.loads((pytester.path / "reports" / "certificate.json").read_text())
    assert cert["hypothesis"]["max_examples"] == 7
    assert len(cert["hypothesis"]["disagreements"]) == 1
