"""conformance.release: its plans, its refusals and its dry run, none of which download anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
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


# --compile: the release under torch.compile, judged against its own eager run


def test_the_compiled_plan_runs_the_suite_with_compile_and_its_own_files(tmp_path: Path) -> None:
    p = release.plan("2.13.0", ROOT, compiled=True)
    assert p.compiled and p.texts is None, "a compiled run keeps the eager release's texts"
    assert p.expected_failures == ROOT / "conformance" / "expected_failures" / "torch-2.13.0-compiled.toml"
    assert p.certificate == ROOT / "docs" / "certificates" / "torch-2.13.0-compiled.json"
    eager = release.plan("2.13.0", ROOT).requirements
    # as tox's conformance-compile: pytest-xdist for two workers, and no numpy
    assert p.requirements == (*eager[:-2], release.COMPILE_XDIST, "torch==2.13.0")
    assert eager[-1] == "numpy" and not any("numpy" in r for r in p.requirements)
    args = p.pytest_args(tmp_path)
    assert args[args.index("--impl") + 1] == "torch" and "--compile" in args
    assert "--rule-timeout=400" in args and f"--reports-dir={tmp_path / 'reports'}" in args
    assert f"--expected-failures={p.expected_failures}" in args
    assert args[args.index("--hypothesis-profile") + 1] == "certify"
    assert args[args.index("-n") + 1] == "2"
    assert not any(a.startswith("--rule-timeout") or a == "--compile"
                   for a in release.plan("2.13.0", ROOT).pytest_args(tmp_path))


def test_a_compiled_plan_without_its_file_expects_no_failure_and_never_the_eager_file(tmp_path: Path) -> None:
    folder = tmp_path / "conformance" / "expected_failures"
    folder.mkdir(parents=True)
    (folder / "torch-2.14.1.toml").write_text("", encoding="utf-8")
    p = release.plan("2.14.1", tmp_path, compiled=True)
    assert p.expected_failures is None
    assert not any(a.startswith("--expected-failures") for a in p.pytest_args(tmp_path))
    assert p.certificate == tmp_path / "docs" / "certificates" / "torch-2.14.1-compiled.json"
    (folder / "torch-2.14.1-compiled.toml").write_text("", encoding="utf-8")
    assert release.plan("2.14.1", tmp_path, compiled=True).expected_failures == \
        folder / "torch-2.14.1-compiled.toml"


@pytest.mark.parametrize("early", ["2.4.1", "2.4.0", "2.5.0", "2.0.1", "1.13.1"])
def test_compile_refuses_releases_before_2_5_1_in_one_line(
        early: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(release, "ROOT", ROOT)  # the checkout, where tox runs an installed copy
    assert release.main([early, "--compile", "--dry-run", "--python", sys.executable]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: torch {early}: --compile certifies torch 2.5.1 and later"), err
    release.plan(early, ROOT)  # the eager release is still certified
    for first in ("2.5.1", "2.14.1"):
        assert release.plan(first, ROOT, compiled=True).compiled


@pytest.mark.parametrize("bad", ["2.5", "latest", "2.13.0+cpu", "3.0.0", ""])
def test_compile_with_a_bad_release_string_is_one_line(bad: str, capsys: pytest.CaptureFixture[str],
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(release, "ROOT", ROOT)
    assert release.main([bad, "--compile"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: ") and err.count("\n") == 1, err


def test_dry_run_with_compile_prints_the_compiled_plan(capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(release, "ROOT", ROOT)
    assert release.main(["2.13.0", "--dry-run", "--compile", "--python", sys.executable]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "release: torch 2.13.0 under torch.compile"
    assert lines[1] == f"python: 3.11 ({sys.executable})"
    certify = next(line for line in lines if line.startswith("certify: python -m pytest "))
    assert "--impl torch -n 2 --compile --rule-timeout=400 --hypothesis-profile certify" in certify
    assert "torch-2.13.0-compiled.toml" in certify
    assert f"certificate: {ROOT / 'docs' / 'certificates' / 'torch-2.13.0-compiled.json'}" in lines
    assert "texts: not measured (those of the eager release)" in lines
    assert "torch==2.13.0" in next(line for line in lines if line.startswith("install: "))


def _check_with_fake_torch(folder: Path, init: str, dynamo: str | None) -> subprocess.CompletedProcess[str]:
    """Run the venv check of torch.compile with a stand-in ``torch`` package made of ``init``
    (and ``torch._dynamo`` of ``dynamo``) first on the path."""
    package = folder / "torch"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text(init, encoding="utf-8")
    if dynamo is not None:
        (package / "_dynamo").mkdir()
        (package / "_dynamo" / "__init__.py").write_text(dynamo, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(folder)}
    return subprocess.run([sys.executable, "-c", release.COMPILE_CHECK], capture_output=True,
                          text=True, env=env, cwd=folder, timeout=60, check=False)


def test_the_venv_check_refuses_a_torch_without_a_usable_compile(tmp_path: Path) -> None:
    done = _check_with_fake_torch(tmp_path / "a", "__version__ = '1.9.0'\n", None)
    assert done.returncode == 1 and done.stderr.strip() == "torch 1.9.0 has no torch.compile"
    init = "__version__ = '2.5.1'\ncompile = print\n"
    done = _check_with_fake_torch(tmp_path / "b", init, "def is_dynamo_supported():\n    return False\n")
    assert done.returncode == 1
    assert done.stderr.strip() == "torch.compile is not supported on this Python or platform"
    done = _check_with_fake_torch(tmp_path / "c", init, "def is_dynamo_supported():\n    return True\n")
    assert done.returncode == 0, done.stderr


class _Steps:
    """Stands in for release._run: records each command; the venv check and the suite do what
    ``check`` and ``suite`` say."""

    def __init__(self, check: int = 0) -> None:
        self.commands: list[list[str]] = []
        self.check = check

    def __call__(self, cmd: list[str], log: Path, cwd: Path | None = None) -> int:
        self.commands.append(list(cmd))
        if cmd[1:3] == ["-c", release.COMPILE_CHECK]:
            with log.open("a", encoding="utf-8") as out:
                out.write("torch.compile is not supported on this Python or platform\n")
            return self.check
        if cmd[1:3] == ["-m", "pytest"] and "conformance.suite" in cmd:
            reports = Path(next(a for a in cmd if a.startswith("--reports-dir=")).split("=", 1)[1])
            reports.mkdir(parents=True)
            (reports / "certificate.json").write_text('{"evidence": {"a": 1}, "rules": {}}',
                                                      encoding="utf-8")
            return 1
        return 0


def _checkout(tmp_path: Path, compiled_file: bool) -> Path:
    root = tmp_path / "checkout"
    (root / "conformance" / "expected_failures").mkdir(parents=True)
    if compiled_file:
        (root / "conformance" / "expected_failures" / "torch-2.14.1-compiled.toml").write_text(
            "", encoding="utf-8")
    return root


@pytest.mark.parametrize("compiled_file", [True, False])
def test_a_compiled_certification_writes_its_certificate_and_runs_the_compiled_snippets(
        compiled_file: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(release.tempfile, "tempdir", str(tmp_path))
    # the checkout's repro tests (an installed package has none: tox runs this from the wheel)
    monkeypatch.setattr(release, "COMPILED_SNIPPET_TESTS", ROOT / "tests" / "test_compiled_snippets.py")
    steps = _Steps()
    monkeypatch.setattr(release, "_run", steps)
    root = _checkout(tmp_path, compiled_file)
    p = release.plan("2.14.1", root, compiled=True)
    assert release.certify(p, "python3.11", keep_log=tmp_path / "log") == 1  # the suite's exit
    out = capsys.readouterr().out
    assert out.splitlines()[0].startswith("torch 2.14.1 under torch.compile: Python 3.11")
    assert "check torch.compile: ok" in out and "remove venv: ok" in out
    assert "measure the texts" not in out
    assert not any("texts" in cmd for cmd in steps.commands)
    certificate = root / "docs" / "certificates" / "torch-2.14.1-compiled.json"
    assert json.loads(certificate.read_text(encoding="utf-8")) == {"evidence": None, "rules": {}}
    snippets = [cmd for cmd in steps.commands if str(release.COMPILED_SNIPPET_TESTS) in cmd]
    assert len(snippets) == (1 if compiled_file else 0)
    assert not any(str(release.SNIPPET_TESTS) in cmd for cmd in steps.commands)
    assert sorted(q.name for q in tmp_path.iterdir()) == ["checkout", "log"]


def test_a_venv_whose_torch_cannot_compile_stops_before_the_suite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(release.tempfile, "tempdir", str(tmp_path))
    steps = _Steps(check=1)
    monkeypatch.setattr(release, "_run", steps)
    p = release.plan("2.14.1", _checkout(tmp_path, True), compiled=True)
    assert release.certify(p, "python3.11", keep_log=tmp_path / "log") == 1
    out = capsys.readouterr().out
    assert ("error: torch 2.14.1 cannot be certified under torch.compile here: torch.compile is "
            "not supported on this Python or platform\n") in out
    assert not any("pytest" in cmd for cmd in steps.commands) and "remove venv: ok" in out
