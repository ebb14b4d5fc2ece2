"""Runs the conformance suite through its real command line, in a subprocess, and reads the result."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import tempfile
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests import suite_runs

from .launch import launch

REPO = Path(__file__).resolve().parents[2]
#: The profile of these runs: dev's examples without the shrink phase (conformance.session.profiles).
#: They read verdicts, not the shrunk scenarios, and shrinking was most of a failing run's time.
PROFILE = "triage"
SEED = "0"
#: What the files of an imaginary earlier run hold (see run_suite's ``stale_reports``).
STALE = "written by an earlier run\n"


@dataclass(frozen=True)
class SuiteRun:
    """One finished (or stopped) run of the suite."""

    impl: str
    returncode: int
    seconds: float
    certificate: dict[str, Any] | None
    output: str
    reports: Path
    #: the run's processes still alive after pytest ended (tests.quality.launch)
    survivors: tuple[str, ...] = ()

    def verdicts(self) -> dict[str, str]:
        assert self.certificate is not None
        return {rule_id: entry["verdict"] for rule_id, entry in self.certificate["rules"].items()}

    def failed(self) -> list[str]:
        return sorted(r for r, v in self.verdicts().items() if v == "fail")

    def why(self, rule_id: str) -> str:
        assert self.certificate is not None
        failures = self.certificate["rules"][rule_id].get("failures", [])
        return "\n".join(f"  {f['test']}: {f['message'].splitlines()[0] if f['message'] else ''}"
                         for f in failures[:3])

    def tail(self) -> str:
        return "\n".join(self.output.splitlines()[-40:])


def suite_command(impl: str, reports_dir: Path, extra: Sequence[str] = (),
                  seed: str | None = SEED, profile: str | None = PROFILE) -> list[str]:
    """The command line; ``seed`` or ``profile`` None leaves that option out."""
    command = [sys.executable, "-m", "pytest", "--pyargs", "conformance.suite",
               "-p", "conformance.plugin", "--impl", impl, "--reports-dir", str(reports_dir),
               "-q", "-p", "no:cacheprovider"]
    if profile is not None:
        command += ["--hypothesis-profile", profile]
    if seed is not None:
        command += ["--hypothesis-seed", seed]
    return [*command, *extra]


def run_suite(impl: str, workdir: Path, extra: Sequence[str] = (), timeout: float = 1800,
              cwd: Path = REPO, env_extra: dict[str, str] | None = None,
              stale_reports: bool = False, seed: str | None = SEED,
              profile: str | None = PROFILE, again: str | None = None) -> SuiteRun:
    """Run the suite on ``impl`` in a subprocess and read its certificate (None if absent).

    Each run gets its own hypothesis storage directory (the triage profile, as dev, keeps
    an example database), so no run replays another implementation's failures. ``stale_reports`` first
    fills the reports folder with files of an imaginary earlier run (each holding STALE).
    The run notes itself in the session's log of runs (tests/suite_runs.py), which fails a
    session that starts the same run twice; ``again`` says why this one repeats another on
    purpose.
    """
    reports = workdir / "reports"
    if stale_reports:
        reports.mkdir(parents=True)
        for name in ("junit.xml", "certificate.json", "badge.json"):
            (reports / name).write_text(STALE, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(workdir / ".hypothesis")
    env.update(env_extra or {})
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    command = suite_command(impl, reports, extra, seed, profile)
    if again:
        env[suite_runs.AGAIN] = again
    done = launch(command, cwd, env, timeout)
    path = reports / "certificate.json"
    certificate = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return SuiteRun(impl, done.returncode, done.seconds, certificate, done.output, reports,
                    done.survivors)


#: Seconds a certification of reference_impl or one of tests/mutants may take before it counts
#: as hung (``mutant_run``).
MUTANT_TIMEOUT = 1800


def mutant_run(factory: pytest.TempPathFactory, impl: str) -> SuiteRun:
    """The seeded triage run of ``impl`` (reference_impl or a module of tests/mutants) that the
    modules certifying it share: test_mutants_certified, test_blame, test_reproducible_verdicts'
    seed 0, and the clean run (``shared_run``: one run per session, whichever asks first)."""
    return shared_run(factory, impl, timeout=MUTANT_TIMEOUT)


def certification(factory: pytest.TempPathFactory) -> SuiteRun:
    """reference_impl's ``--certify`` run (its own profile and no seed), started from a folder
    outside the repository as a user starts it, made once per session: test_randomness reads
    the settings it records, test_reproducible_verdicts compares its verdicts with the seeded
    runs'."""
    return shared_run(factory, "reference_impl", ("--certify",), timeout=MUTANT_TIMEOUT,
                      seed=None, profile=None, outside=True)


#: Seconds a run of an implementation that hangs or crashes may take (a clean run takes about
#: 5 s, the looping ``mean`` of tests/faults/hang_call.py about 70 s): the bound the docs
#: state, with room for a loaded machine. test_fault_battery and test_trust_time hold runs to it.
FAULT_BOUND = 240.0


def hang_run(factory: pytest.TempPathFactory) -> SuiteRun:
    """The seeded triage run of tests/faults/hang_call.py (``mean`` loops for ever), serially,
    its reports folder first filled with an earlier run's files: the fault battery's run of it,
    which test_trust_time reads too (its hangs confirmed, within the bound). Made once per
    session: each of its first three hangs costs 10 s of a spinning child."""
    return shared_run(factory, "tests.faults.hang_call", timeout=FAULT_BOUND + 60,
                      stale_reports=True)


def clean_run(factory: pytest.TempPathFactory) -> SuiteRun:
    """reference_impl's seeded triage run: the clean run that several modules compare with, made
    once per session (``mutant_run``; test_mutants_certified's run of reference_impl too)."""
    return mutant_run(factory, "reference_impl")


#: Held while a thread asks pytest for the base temporary folder (``_session_root``).
_BASETEMP = threading.Lock()


def _session_root(factory: pytest.TempPathFactory) -> Path:
    """The folder of this session's temporary files, one for every pytest-xdist worker of it.

    A worker's base folder is ``popen-`` and its name, inside the controller's (a fresh one each
    session, as pytest makes it): the runs shared there are this session's only. pytest makes
    the base folder on first use without a lock, and under pytest-xdist an asker that finds it
    made removes and makes it again: threads asking together here take turns (_BASETEMP).
    """
    with _BASETEMP:
        base = factory.getbasetemp()
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    return base.parent if worker and base.name in (worker, f"popen-{worker}") else base


def _load(folder: Path, spec: dict[str, Any]) -> SuiteRun:
    done = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert done["spec"] == spec, f"{folder}: another run's result"
    reports = Path(done["reports"])
    path = reports / "certificate.json"
    certificate = json.loads(path.read_text(encoding="utf-8")) if path.exists() else None
    return SuiteRun(spec["impl"], done["returncode"], done["seconds"], certificate, done["output"],
                    reports, tuple(done["survivors"]))


def shared_run(factory: pytest.TempPathFactory, impl: str, extra: Sequence[str] = (),
               timeout: float = 1800, env_extra: dict[str, str] | None = None,
               seed: str | None = SEED, profile: str | None = PROFILE,
               outside: bool = False, stale_reports: bool = False) -> SuiteRun:
    """``run_suite``'s run, made once per session for all the tests that ask for the same one.

    The same implementation, options, timeout, environment and interpreter make the same run:
    the first to ask makes it (on any pytest-xdist worker, in any thread) while the others wait
    on its lock file, then each reads the result from disk (its own copy of the certificate).
    A run that failed or timed out is every asker's failure. Each session starts with an empty
    folder (``_session_root``), so no result of an earlier session is ever returned.
    ``outside`` runs it from a folder of the session's outside the repository, as a user
    would, rather than from the repository's root; ``stale_reports`` as for ``run_suite``.
    """
    inherited = {k: v for k, v in os.environ.items()  # the asking test's name aside
                 if not k.startswith(("PYTEST_", "TFMODE_")) and k != suite_runs.ASKER}
    spec: dict[str, Any] = {"impl": impl, "extra": [str(e) for e in extra], "timeout": timeout,
                            "env_extra": env_extra or {}, "seed": seed, "profile": profile,
                            "python": sys.executable, "outside": outside, "environ": inherited,
                            "stale_reports": stale_reports}
    key = hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()[:20]
    root = _session_root(factory)
    folder = root / "shared-runs" / key
    cwd = root / "outside" if outside else REPO
    cwd.mkdir(parents=True, exist_ok=True)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "lock", "w", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # held while the run is made, by one asker only
        if not (folder / "run.json").exists():
            workdir = Path(tempfile.mkdtemp(prefix="run-", dir=folder))
            run = run_suite(impl, workdir, extra, timeout, cwd=cwd, env_extra=env_extra,
                            stale_reports=stale_reports, seed=seed, profile=profile)
            result = {"spec": spec, "returncode": run.returncode, "seconds": run.seconds,
                      "output": run.output, "reports": str(run.reports),
                      "survivors": list(run.survivors)}
            partial = folder / "run.json.partial"
            partial.write_text(json.dumps(result), encoding="utf-8")
            os.replace(partial, folder / "run.json")
        return _load(folder, spec)
