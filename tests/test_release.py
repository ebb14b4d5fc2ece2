"""conformance.release: its plans, its refusals and its dry run, none of which download anything."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance import release

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("bad", ["3.0.0", "1.11.0", "2.15.0", "2.0", "latest", "2.0.1rc1", ""])
def test_an_unknown_release_is_one_line_and_non_zero(bad: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert release.main([bad]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err


def test_1_12_runs_on_3_10_with_numpy_1_and_no_expected_failures_file_is_optional() -> None:
    p = release.plan("1.12.1", ROOT)
    assert p.python_version == "3.10"
    assert p.requirements[0] == str(ROOT)
    assert "torch==1.12.1" in p.requirements and "numpy<2" in p.requirements
    assert p.certificate == ROOT / "docs" / "certificates" / "torch-1.12.1.json"


def test_2_x_runs_on_3_11_and_numpy_1_only_before_2_3() -> None:
    assert release.plan("2.0.1", ROOT).python_version == "3.11"
    assert "numpy<2" in release.plan("2.2.2", ROOT).requirements
    later = release.plan("2.3.1", ROOT).requirements
    assert "numpy" in later and "numpy<2" not in later  # numpy 2 from 2.3 on, as users have it
    assert "torch==2.14.1" in release.plan("2.14.1", ROOT).requirements


def test_the_committed_expected_failures_file_is_used_where_there_is_one(tmp_path: Path) -> None:
    p = release.plan("2.13.0", ROOT)
    assert p.expected_failures == ROOT / "conformance" / "expected_failures" / "torch-2.13.0.toml"
    args = p.pytest_args(tmp_path)
    assert f"--expected-failures={p.expected_failures}" in args
    assert args[args.index("--hypothesis-profile") + 1] == "certify"
    assert f"--reports-dir={tmp_path / 'reports'}" in args
    site = tmp_path / "venv" / "lib" / "python3.11" / "site-packages"
    assert f"--rootdir={site}" in args, "the checkout must not become pytest's rootdir"
    assert not any(a.startswith("--expected-failures")
                   for a in release.plan("2.13.0", tmp_path).pytest_args(tmp_path))


def test_no_interpreter_for_the_series_is_one_line(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setenv("PYENV_ROOT", str(tmp_path))
    monkeypatch.setattr(release, "ROOT", ROOT)  # the checkout, where tox runs an installed copy
    assert release.main(["2.0.1", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert "no Python 3.11 interpreter" in err and err.count("\n") == 1


def test_dry_run_prints_the_plan(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    monkeypatch.setattr(release, "ROOT", ROOT)  # the checkout, where tox runs an installed copy

    assert release.main(["2.1.2", "--dry-run", "--python", sys.executable]) == 0
    out = capsys.readouterr().out
    assert "torch==2.1.2" in out and "numpy<2" in out and "--hypothesis-profile certify" in out
    assert out.splitlines()[1] == f"python: 3.11 ({sys.executable})"


def test_a_failed_step_still_removes_the_venv(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(release.tempfile, "tempdir", str(tmp_path))
    p = release.plan("2.0.1", ROOT)
    assert release.certify(p, str(tmp_path / "no-such-python"), keep_log=tmp_path / "log") == 1
    out = capsys.readouterr().out
    assert "create venv: exit" in out and "remove venv: ok" in out
    assert [q.name for q in tmp_path.iterdir()] == ["log"]


def test_keep_venv_leaves_it_and_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(release.tempfile, "tempdir", str(tmp_path))
    p = release.plan("2.0.1", ROOT)
    assert release.certify(p, str(tmp_path / "no-such-python"), keep_log=tmp_path / "log",
                           keep_venv=True) == 1
    out = capsys.readouterr().out
    assert "kept venv:" in out and "remove venv" not in out
    assert len(list(tmp_path.glob("tfm-torch-2.0.1-*"))) == 1


def test_the_committed_certificate_has_no_evidence_of_this_machine(tmp_path: Path) -> None:
    from conformance.release import commit_ready

    written = tmp_path / "certificate.json"
    written.write_text(json.dumps({"schema_version": 6, "evidence": {"expected_failures": {
        "path": "/home/someone/checkout/conformance/expected_failures/torch-2.0.1.toml"}},
        "rules": {}}), encoding="utf-8")
    target = tmp_path / "torch-2.0.1.json"
    commit_ready(written, target)
    document = json.loads(target.read_text(encoding="utf-8"))
    assert document == {"schema_version": 6, "evidence": None, "rules": {}}
    assert "/home/someone" not in target.read_text(encoding="utf-8")


def test_texts_that_differ_only_in_object_addresses_are_not_rewritten(tmp_path: Path) -> None:
    committed, measured = tmp_path / "torch-2.0.1.json", tmp_path / "texts.json"
    committed.write_text('{"text": "nor in mode <scenario.M object at 0x7fbe1da2f490>"}\n', encoding="utf-8")
    measured.write_text('{"text": "nor in mode <scenario.M object at 0x7f5d2bd37e90>"}\n', encoding="utf-8")
    before = committed.read_text(encoding="utf-8")
    assert release.settle_texts(measured, committed) is False
    assert committed.read_text(encoding="utf-8") == before
    measured.write_text('{"text": "nor in the mode <scenario.M object at 0x7f5d2bd37e90>"}\n',
                        encoding="utf-8")
    assert release.settle_texts(measured, committed) is True
    assert committed.read_text(encoding="utf-8") == measured.read_text(encoding="utf-8")
    fresh = tmp_path / "torch-9.9.9.json"
    assert release.settle_texts(measured, fresh) is True and fresh.exists()
