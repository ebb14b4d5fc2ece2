"""The certificate is evidence, and the reports folder never holds a stale pass (docs/trust.rst).

Through the real command line: ``python -m conformance verify`` makes a certificate's run again
and matches an honest certificate, but reports an implementation whose files were edited after
it was certified and a certificate whose verdicts were edited by hand; ``--certify`` of a
selection is refused or fails; a run killed with SIGKILL once it has started leaves no earlier
passing certificate; a reports folder that cannot be written is one line before the run, and
``$VAR`` in ``--reports-dir`` puts the three files in one folder.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.report.certificate import SCHEMA_VERSION
from tests.mutants._build import mutated_sources

from .cli import REPO, SuiteRun, clean_run, run_suite, suite_command

pytestmark = pytest.mark.xdist_group("test_trust_evid")

#: A copy of reference_impl written to disk (it must have files of its own to digest).
COPY = "evid_copy_impl"


def _verify(cert: Path, cwd: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run([sys.executable, "-m", "conformance", "verify", str(cert), *extra],
                          cwd=cwd, env=env, text=True, capture_output=True, timeout=900,
                          check=False)


def _write_copy(folder: Path, mutations: tuple[Any, ...] = ()) -> None:
    package = folder / COPY
    package.mkdir(parents=True, exist_ok=True)
    for name, text in mutated_sources(COPY, mutations).items():
        (package / name).write_text(text, encoding="utf-8")


class _Runs:
    """The honest certification of reference_impl, started when the module's first test needs
    it, next to the other tests' runs (two at a time)."""

    def __init__(self, factory: pytest.TempPathFactory) -> None:
        self.factory = factory
        self.pool = ThreadPoolExecutor(max_workers=2)
        self.honest: Future[SuiteRun] | None = None

    def certified(self) -> SuiteRun:
        if self.honest is None:
            # a seeded triage run: verify makes the same run again (a --certify run takes minutes
            # here, and its reproducibility is test_reproducible_verdicts' concern); the clean
            # run other modules compare with too (cli.clean_run), made once per session
            self.honest = self.pool.submit(clean_run, self.factory)
        return self.honest.result()


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    pool = _Runs(tmp_path_factory)
    yield pool
    pool.pool.shutdown(wait=True)


def test_verify_matches_an_honest_certificate(runs: _Runs, tmp_path: Path) -> None:
    run = runs.certified()
    assert run.returncode == 0, run.tail()
    assert run.certificate is not None and run.certificate["schema_version"] == SCHEMA_VERSION
    evidence = run.certificate["evidence"]
    assert evidence["implementation"]["package"] == "reference_impl"
    assert evidence["implementation"]["digest"].startswith("sha256:")
    assert evidence["invocation"]["seed"] == "0", evidence["invocation"]
    done = _verify(run.reports / "certificate.json", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.splitlines()[-1].startswith("verified: the same files and the same verdict")
    assert "MISMATCH" not in done.stdout


def test_verify_reports_an_edited_implementation_and_a_forged_pass(tmp_path: Path) -> None:
    from tests.mutants.mode_order import MUTATIONS, RULE

    _write_copy(tmp_path / "pkgs")
    extra = ("--impl-path", str(tmp_path / "pkgs"), "--rules", "ORDER")
    honest = run_suite(COPY, tmp_path / "a", extra)
    assert honest.certificate is not None and honest.verdicts()[RULE] == "pass", honest.tail()
    cert = honest.reports / "certificate.json"
    # The copy is edited after it was certified: the digest and the verdict differ.
    _write_copy(tmp_path / "pkgs", MUTATIONS)
    done = _verify(cert, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert any(line.startswith("MISMATCH implementation: the files differ from the certificate's")
               for line in done.stdout.splitlines()), done.stdout
    assert f"MISMATCH {RULE}: the certificate says pass, the re-run says fail" in done.stdout
    assert "MISMATCH suite" not in done.stdout and "MISMATCH specification" not in done.stdout
    # A certificate of the broken copy whose failing verdict was edited into a pass.
    broken = run_suite(COPY, tmp_path / "b", extra)
    assert broken.certificate is not None and broken.verdicts()[RULE] == "fail"
    forged = broken.certificate
    forged["rules"][RULE].update(verdict="pass", failures=[])
    forged["summary"].update({"pass": forged["summary"]["pass"] + 1,
                              "fail": forged["summary"]["fail"] - 1})
    path = tmp_path / "forged.json"
    path.write_text(json.dumps(forged), encoding="utf-8")
    done = _verify(path, tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"MISMATCH {RULE}: the certificate says pass, the re-run says fail" in done.stdout
    assert "MISMATCH implementation" not in done.stdout


def test_verify_refuses_bad_input_in_one_line(tmp_path: Path) -> None:
    old = REPO / "docs" / "certificates" / "torch-2.0.1.json"
    (tmp_path / "not.json").write_text("{", encoding="utf-8")
    (tmp_path / "other.json").write_text('{"schema_version": 5}', encoding="utf-8")
    for path, text in ((tmp_path / "missing.json", "cannot read it"),
                       (tmp_path / "not.json", "not a certificate: not JSON"),
                       (tmp_path / "other.json", "other.json: not a certificate: $."),
                       (old, "a certificate of schema 6 without evidence")):
        done = _verify(path, tmp_path)
        assert done.returncode == 2, done.stderr
        assert done.stdout == "" and len(done.stderr.splitlines()) == 1, done.stderr
        assert text in done.stderr


def test_certify_refuses_rules(tmp_path: Path) -> None:
    run = run_suite("reference_impl", tmp_path, ("--certify", "--rules", "TFM_ORDER_001"),
                    profile=None, seed=None)
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    errors = [line for line in run.output.splitlines() if line.startswith("ERROR")]
    assert errors == ["ERROR: --certify runs the whole suite: --rules makes a partial run, which "
                      "certifies nothing (run --rules without --certify)"], run.output
    assert not run.reports.exists()


def test_certify_of_a_keyword_selection_fails(tmp_path: Path) -> None:
    run = run_suite("reference_impl", tmp_path, ("--certify", "-k", "test_meta"),
                    profile=None, seed=None)
    assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.tail()
    assert "certification FAILED: the run is incomplete" in run.output
    assert "INCOMPLETE RUN: --certify runs the whole suite, and this run left tests out" \
        in run.output
    assert run.certificate is not None and run.certificate["run"]["complete"] is False
    assert run.certificate["level"]["reached"] == "none"


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "n2"])
def test_a_killed_run_leaves_no_earlier_pass(runs: _Runs, tmp_path: Path,
                                             workers: tuple[str, ...]) -> None:
    honest = runs.certified()
    reports = tmp_path / "reports"
    reports.mkdir()
    for name in ("certificate.json", "badge.json", "junit.xml"):
        shutil.copy(honest.reports / name, reports / name)
    started = tmp_path / "started"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env.update(PYTHONPATH=str(REPO), EVID_STARTED=str(started),
               HYPOTHESIS_STORAGE_DIRECTORY=str(tmp_path / ".hypothesis"))
    command = suite_command("tests.hostile.evid_marks_start", reports, ("--certify", *workers),
                            seed=None, profile=None)
    with subprocess.Popen(command, cwd=REPO, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL, start_new_session=True) as child:
        deadline = time.monotonic() + 120
        while not started.exists() and child.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert started.exists(), "the run never started a test"
        os.killpg(child.pid, signal.SIGKILL)
        child.wait()
    assert child.returncode == -signal.SIGKILL
    assert not (reports / "certificate.json").exists(), "the earlier pass is still in place"
    assert not (reports / "badge.json").exists() and not (reports / "junit.xml").exists()


def _unwritable(tmp_path: Path) -> Path:
    """A folder the run cannot write in, for real: read-only by its mode, or for root (whom
    modes do not stop), /sys (sysfs refuses new files to root too)."""
    if os.geteuid() != 0:
        folder = tmp_path / "read-only"
        folder.mkdir()
        folder.chmod(0o500)
        return folder
    assert Path("/sys").is_dir(), "no /sys to stand for a read-only folder for root"
    return Path("/sys")


def test_an_unwritable_reports_folder_is_one_line_before_the_run(tmp_path: Path) -> None:
    place = _unwritable(tmp_path)
    folder = place / "tfmode-evid-reports"
    run = run_suite("reference_impl", tmp_path, ("--reports-dir", str(folder)))
    assert run.returncode == pytest.ExitCode.USAGE_ERROR, run.tail()
    errors = [line for line in run.output.splitlines() if line.strip()]
    assert errors[0].startswith(f"ERROR: --reports-dir {str(folder)!r}: the reports cannot be "
                                f"written: cannot write in {str(place)!r}: "), run.output
    assert len(errors) == 1 and "Traceback" not in run.output
    assert not folder.exists()


def test_a_variable_in_the_reports_folder_puts_all_files_in_one_folder(tmp_path: Path) -> None:
    out = tmp_path / "expanded"
    run = run_suite("reference_impl", tmp_path, ("--rules", "TFM_ORDER_001",
                                                 "--reports-dir", "$EVID_OUT/reports"),
                    env_extra={"EVID_OUT": str(out)}, cwd=tmp_path)
    assert run.returncode == 0, run.tail()
    assert sorted(p.name for p in (out / "reports").iterdir()) == ["badge.json",
                                                                   "certificate.json", "junit.xml"]
    unset = run_suite("reference_impl", tmp_path / "unset",
                      ("--reports-dir", "$EVID_NOT_SET/reports"), cwd=tmp_path)
    assert unset.returncode == pytest.ExitCode.USAGE_ERROR, unset.tail()
    assert [line for line in unset.output.splitlines() if line.strip()] == [
        "ERROR: --reports-dir '$EVID_NOT_SET/reports': the variable $EVID_NOT_SET is not set"]
    assert not any(tmp_path.glob("$EVID*"))


def _mount_tmpfs(folder: Path, size: str) -> bool:
    """A tiny tmpfs at ``folder`` (root only); False where none can be mounted."""
    folder.mkdir()
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
                          capture_output=True, check=False)
    return done.returncode == 0


def test_a_full_disk_leaves_no_half_file(tmp_path: Path) -> None:
    disk = tmp_path / "disk"
    real = _mount_tmpfs(disk, "12m")  # else the plugin makes every write of the reports fail
    try:
        reports = disk / "reports"
        run = run_suite("reference_impl", tmp_path, ("--rules", "TFM_ORDER_001", "--reports-dir",
                                                     str(reports), "-p", "tests.hostile.evid_fill_disk"),
                        env_extra={"EVID_FILL": "real" if real else "simulate",
                                   "EVID_FILLER": str(disk / "filler")})
        assert run.returncode == pytest.ExitCode.TESTS_FAILED, run.tail()
        assert "Traceback" not in run.output and "INTERNALERROR" not in run.output, run.tail()
        space = os.strerror(errno.ENOSPC)
        assert f"ERROR: could not write the JUnit file: [Errno {errno.ENOSPC}] {space}" \
            in run.output, run.tail()
        assert "ERROR: could not write the conformance reports: " in run.output
        assert sorted(p.name for p in reports.iterdir()) == [], "a half-written file is left"
    finally:
        if real:
            subprocess.run(["umount", str(disk)], check=False)
    # and a folder without the free space is refused before the run, in one line
    if real:
        assert _mount_tmpfs(tmp_path / "tiny", "1m")
        try:
            tiny = run_suite("reference_impl", tmp_path / "t", ("--reports-dir",
                                                               str(tmp_path / "tiny" / "r")))
            assert tiny.returncode == pytest.ExitCode.USAGE_ERROR, tiny.tail()
            errors = [line for line in tiny.output.splitlines() if line.strip()]
            assert len(errors) == 1 and "kB free in" in errors[0], tiny.output
        finally:
            subprocess.run(["umount", str(tmp_path / "tiny")], check=False)
