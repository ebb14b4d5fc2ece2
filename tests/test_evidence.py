"""The certificate's evidence (conformance.report.evidence), verify's comparison (conformance.report.verify)
and the reports folder's checks (conformance.session.reportsdir), without running the suite."""

from __future__ import annotations

import copy
import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.report import evidence
from conformance.report.verify import VerifyError, compare, load, rerun_command, timed_rules
from conformance.session import reportsdir

ROOT = Path(__file__).resolve().parent.parent


def _package(folder: Path, name: str, files: dict[str, str]) -> Path:
    package = folder / name
    for rel, text in files.items():
        (package / rel).parent.mkdir(parents=True, exist_ok=True)
        (package / rel).write_text(text, encoding="utf-8")
    return package


def test_the_digest_covers_names_and_contents_but_not_bytecode(tmp_path: Path) -> None:
    package = _package(tmp_path, "p", {"__init__.py": "x = 1\n", "data/rules.toml": "a = 1\n"})
    digest, count = evidence.tree_digest([package])
    assert count == 2 and digest.startswith("sha256:")
    _package(tmp_path, "p", {"__pycache__/__init__.cpython-311.pyc": "junk", "m.pyc": "junk"})
    assert evidence.tree_digest([package]) == (digest, 2)
    (package / "data" / "rules.toml").write_text("a = 2\n", encoding="utf-8")
    assert evidence.tree_digest([package])[0] != digest
    (package / "data" / "rules.toml").write_text("a = 1\n", encoding="utf-8")
    (package / "data" / "rules.toml").rename(package / "data" / "other.toml")
    assert evidence.tree_digest([package])[0] != digest


def test_special_files_are_named_not_read(tmp_path: Path) -> None:
    # A package holding a link to /dev/zero or a pipe must not keep the suite reading for ever.
    package = _package(tmp_path, "p", {"__init__.py": "x = 1\n"})
    os.symlink("/dev/zero", package / "zero")
    os.mkfifo(package / "pipe")
    digest, count = evidence.tree_digest([package])
    assert count == 3 and digest.startswith("sha256:")
    assert evidence.file_digest(package / "zero") is None


def test_the_implementation_is_found_without_importing_it(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    _package(tmp_path, "evid_unit_pkg", {"__init__.py": "raise SystemExit('imported!')\n",
                                         "sub.py": "y = 2\n"})
    (tmp_path / "evid_unit_mod.py").write_text("raise SystemExit('imported!')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = evidence.package_evidence("evid_unit_pkg")
    assert found["location"] == str((tmp_path / "evid_unit_pkg").resolve())
    assert found["files"] == 2 and found["distribution"] is None
    module = evidence.package_evidence("evid_unit_mod")
    assert module["files"] == 1 and module["location"].endswith("evid_unit_mod.py")
    assert "evid_unit_pkg" not in sys.modules and "evid_unit_mod" not in sys.modules
    assert evidence.package_evidence("evid_not_there") == {
        "package": "evid_not_there", "location": None, "files": 0, "digest": None,
        "distribution": None}


def test_an_installed_distribution_is_named_with_its_record() -> None:
    found = evidence.package_evidence("_pytest")  # pytest's own package, installed
    assert found["distribution"] is not None
    assert found["distribution"]["name"] == "pytest"
    assert found["distribution"]["version"] == pytest.__version__
    assert found["distribution"]["record"].startswith("sha256:")


def test_a_distribution_named_like_its_package_is_found_without_reading_every_other(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every distribution's list of files is read (a quarter of a second, more beside torch)
    only for a package that no distribution named like it, nor this suite's own, holds."""
    import hypothesis

    read: list[str] = []
    real = evidence._packages

    def counted(path: tuple[str, ...]) -> Any:
        read.append("all")
        return real(path)

    monkeypatch.setattr(evidence, "_packages", counted)
    found = evidence.package_evidence("hypothesis")["distribution"]
    assert found is not None and found["version"] == hypothesis.__version__ and read == []
    found = evidence.package_evidence("_pytest")["distribution"]  # pytest's: read them all
    assert found is not None and found["name"] == "pytest" and read == ["all"]


def test_the_reports_folder_expands_variables_and_the_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EVID_DIR", "/somewhere")
    monkeypatch.setenv("HOME", "/home/evid")
    assert reportsdir.expand("$EVID_DIR/r") == "/somewhere/r"
    assert reportsdir.expand("${EVID_DIR}/r") == "/somewhere/r"
    assert reportsdir.expand("~/r") == "/home/evid/r"
    monkeypatch.delenv("EVID_UNSET", raising=False)
    with pytest.raises(ValueError, match=r"the variable \$EVID_UNSET is not set"):
        reportsdir.expand("$EVID_UNSET/r")


def test_the_reports_folder_needs_free_space(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert reportsdir.unusable(tmp_path / "new" / "reports") is None
    assert not (tmp_path / "new").exists() and list(tmp_path.iterdir()) == []  # the probe is gone
    usage = reportsdir.shutil.disk_usage(tmp_path)._replace(free=1024 * 1024)
    monkeypatch.setattr(reportsdir.shutil, "disk_usage", lambda path: usage)
    assert reportsdir.unusable(tmp_path) == (f"only 1024 kB free in {str(tmp_path)!r} (the "
                                             "reports need at least 8 MB)")


def test_a_folder_that_refuses_writes_is_unusable(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    # A mode does not stop root: the write itself is refused, as a read-only mount refuses it.
    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise OSError(errno.EROFS, os.strerror(errno.EROFS))

    monkeypatch.setattr(reportsdir.tempfile, "mkstemp", refuse)
    assert reportsdir.unusable(tmp_path / "r") == (f"cannot write in {str(tmp_path)!r}: "
                                                   f"{os.strerror(errno.EROFS)}")


def test_a_write_that_fails_midway_leaves_nothing(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "reports"
    folder.mkdir()
    junit = folder / reportsdir.JUNIT_TMP
    junit.write_text("<testsuites/>", encoding="utf-8")
    real_fsync = os.fsync

    def full(fd: int) -> None:  # the data reached the file; the disk is full when it is synced
        real_fsync(fd)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(reportsdir.os, "fsync", full)
    with pytest.raises(OSError, match="No space left"):
        reportsdir.write_run(folder, {"certificate.json": "{}", "badge.json": "{}"}, junit)
    assert list(folder.iterdir()) == []


def test_an_earlier_run_is_cleared(tmp_path: Path) -> None:
    for name in (*reportsdir.FILES, reportsdir.JUNIT_TMP, "notes.txt"):
        (tmp_path / name).write_text("old", encoding="utf-8")
    (tmp_path / ".staging-abc").mkdir()
    (tmp_path / ".staging-abc" / "certificate.json").write_text("old", encoding="utf-8")
    reportsdir.clear_previous(tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["notes.txt"]  # not the run's: kept
    assert reportsdir.clear_previous(tmp_path / "absent") == []


# -- verify ------------------------------------------------------------------------------------


def _certificate() -> dict[str, Any]:
    package = {"package": "p", "location": "/x/p", "files": 3, "digest": "sha256:" + "1" * 64,
               "distribution": None}
    return {
        "implementation": {"name": "p", "version": "1", "generation": "2022", "features": [],
                           "release": None},
        "rules": {"TFM_ORDER_001": {"verdict": "pass"}, "TFM_ORDER_002": {"verdict": "fail"}},
        "level": {"reached": "none", "features": []}, "summary": {"pass": 1, "fail": 1},
        "certify": True, "run": {"complete": True, "problems": []},
        "evidence": {"implementation": package, "suite": {**package, "package": "conformance"},
                     "spec": {**package, "package": "spec"}, "expected_failures": None,
                     "invocation": {"impl": "p", "impl_path": ["/x"], "certify": True,
                                    "compile": False, "hypothesis_profile": None, "seed": "3",
                                    "rule_timeout": 5.0, "rules": None, "keyword": "",
                                    "markexpr": "", "expected_failures": None}},
    }


def test_compare_says_each_difference_in_one_line() -> None:
    old = _certificate()
    assert compare(old, copy.deepcopy(old)) == []
    new = copy.deepcopy(old)
    new["evidence"]["implementation"].update(digest="sha256:" + "2" * 64, location="/y/p")
    new["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    new["summary"] = {"pass": 0, "fail": 2}
    lines = compare(old, new)
    assert lines == [
        "implementation: the files differ from the certificate's (3 files, sha256:111111111111; "
        "now 3 files, sha256:222222222222); found at /y/p, the certificate's were at /x/p",
        "TFM_ORDER_001: the certificate says pass, the re-run says fail",
        'summary: the certificate says {"pass": 1, "fail": 1}, the re-run says '
        '{"pass": 0, "fail": 2}']
    gone = copy.deepcopy(old)
    gone["evidence"]["suite"].update(digest=None, files=0)
    assert compare(old, gone) == ["suite: the files are gone (the certificate's were at /x/p)"]


def test_the_run_is_made_again_with_the_recorded_options(tmp_path: Path) -> None:
    command = rerun_command(_certificate()["evidence"]["invocation"], tmp_path / "r",
                            tmp_path / "pytest.ini")
    text = " ".join(command)
    assert "--pyargs conformance.suite --impl=p" in text and "--impl-path=/x" in text
    assert "--certify" in command and "--hypothesis-profile" not in text
    assert "--hypothesis-seed=3" in command and "--rule-timeout=5.0" in command
    assert not any(arg.startswith("-k") for arg in command)
    assert f"--reports-dir={tmp_path / 'r'}" in command
    invocation = {**_certificate()["evidence"]["invocation"], "keyword": "-x or y"}
    assert "-k-x or y" in rerun_command(invocation, tmp_path, tmp_path / "pytest.ini")


@pytest.mark.parametrize(("content", "problem"), [
    (None, "cannot read it: No such file or directory"),
    ("{", "not a certificate: not JSON"),
    ("[1]", "not a certificate: no schema_version"),
    ('{"schema_version": 5}', "not a certificate: $."),
])
def test_verify_refuses_what_is_not_a_certificate(tmp_path: Path, content: str | None,
                                                  problem: str) -> None:
    path = tmp_path / "c.json"
    if content is not None:
        path.write_text(content, encoding="utf-8")
    with pytest.raises(VerifyError) as caught:
        load(path)
    assert problem in str(caught.value) and "\n" not in str(caught.value)


def test_verify_reads_committed_certificates_but_finds_no_evidence() -> None:
    for path in sorted((ROOT / "docs" / "certificates").glob("*.json")):
        version = json.loads(path.read_text(encoding="utf-8"))["schema_version"]
        with pytest.raises(VerifyError, match=f"a certificate of schema {version} without "
                                              "evidence"):
            load(path)


def test_verify_names_the_rules_a_time_limit_failed() -> None:
    """A hang confirmed by its re-run and a test past --rule-timeout, as their failures say
    them (conformance.sandbox.timing, conformance.session.recording); verify notes such rules
    when a re-run differs, since a hang need not repeat."""
    hang = ("the implementation did not answer within 2 s while running the scenario, nor "
            "within 8 s when re-run on a fresh process (CPU: 2.0 s, 8.0 s)")
    rules = {"TFM_A_001": {"verdict": "fail", "failures": [{"message": "expected 1, got 2"},
                                                          {"message": hang}]},
             "TFM_B_001": {"verdict": "fail", "failures": [
                 {"message": "Timeout (>60s) from pytest-timeout (--rule-timeout)"}]},
             "TFM_C_001": {"verdict": "fail", "failures": [{"message": "expected 1, got 2"}]},
             "TFM_D_001": {"verdict": "pass", "failures": []}}
    assert timed_rules({"rules": rules}) == ["TFM_A_001", "TFM_B_001"]
    assert timed_rules({"rules": "garbage"}) == [] and timed_rules({}) == []
    assert timed_rules({"rules": {"TFM_A_001": {"failures": [None, {"message": 3}]}}}) == []
