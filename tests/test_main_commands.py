"""``python -m conformance``'s commands that pass their arguments on (run, certify, release,
matrix), the checkout-only tools refusing in one line elsewhere, and ``--impl-path`` on the
commands that load an implementation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conformance import release
from conformance.__main__ import main
from conformance.adapter import AdapterError, put_impl_path

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "spec" / "scenarios" / "mode_stack.toml"


def _python(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TFMODE_IMPL_PATH", None)
    return subprocess.run([sys.executable, "-m", "conformance", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


def test_help_lists_every_command(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    out = capsys.readouterr().out
    for command in ("run", "certify", "release", "matrix", "diff", "snippet", "texts", "verify"):
        assert f"    {command} " in out, command


def test_certify_is_a_run_with_certify(tmp_path: Path) -> None:
    # --certify refuses a partial selection: the refusal shows that certify passed --certify on.
    done = _python("certify", "--impl", "reference_impl", "--rules", "TFM_ORDER_001",
                   "-p", "no:cacheprovider", cwd=tmp_path)
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert "--certify" in done.stderr and "--rules" in done.stderr
    plain = _python("run", "--impl", "reference_impl", "--rules", "TFM_ORDER_001", "-q",
                    "-p", "no:cacheprovider", cwd=tmp_path)
    assert plain.returncode == 0, plain.stdout[-2000:] + plain.stderr
    assert "level reached: none (a partial run reaches no level)" in plain.stdout
    assert (tmp_path / "reports" / "certificate.json").is_file()


def test_matrix_outside_a_checkout_refuses_in_one_line(tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["matrix", "--root", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "runs in a checkout" in err
    assert not any(tmp_path.iterdir())  # nothing half-written


def test_release_outside_a_checkout_refuses_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert release.is_checkout(ROOT)
    monkeypatch.setattr(release, "ROOT", tmp_path)  # where an installed package would be
    assert main(["release", "2.0.1", "--dry-run"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not a checkout" in err


def test_snippet_finds_an_implementation_through_impl_path(tmp_path: Path) -> None:
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "my_torchlike.py").write_text(  # a namespace that is reference_impl by another name
        "import sys\nimport reference_impl\nsys.modules[__name__] = reference_impl\n")
    missing = _python("snippet", str(SCENARIO), "--impl", "my_torchlike", cwd=tmp_path)
    assert missing.returncode == 2 and "my_torchlike" in missing.stderr
    found = _python("snippet", str(SCENARIO), "--impl", "my_torchlike", "--impl-path", str(folder),
                    cwd=tmp_path)
    assert found.returncode == 0, found.stderr
    assert "my_torchlike" in found.stdout
    bad = _python("snippet", str(SCENARIO), "--impl-path", str(tmp_path / "nowhere"), cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1 and "not a directory" in bad.stderr


def test_impl_path_is_one_function_that_changes_nothing_on_a_bad_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin and the commands share adapter.put_impl_path: folders relative to the base,
    in the order given, first on sys.path; one missing folder refuses all of them."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    monkeypatch.setattr(sys, "path", ["/elsewhere"])
    monkeypatch.delenv("TFMODE_IMPL_PATH", raising=False)
    with pytest.raises(AdapterError, match="'nowhere' is not a directory"):
        put_impl_path(os.pathsep.join(["a", "nowhere"]), tmp_path)
    assert sys.path == ["/elsewhere"]
    assert put_impl_path(os.pathsep.join(["a", "b"]), tmp_path) == [str(tmp_path / "a"), str(tmp_path / "b")]
    assert sys.path == [str(tmp_path / "a"), str(tmp_path / "b"), "/elsewhere"]
    monkeypatch.setenv("TFMODE_IMPL_PATH", "b")
    assert put_impl_path(None, tmp_path) == [str(tmp_path / "b")]


@pytest.mark.parametrize("argv", [
    ["run", "--impl", "reference_impl", "-n", "2"], ["certify", "-n2"],
    ["run", "--numprocesses=2"], ["verify", "no-such-certificate.json", "-n", "2"]])
def test_workers_without_pytest_xdist_is_one_line(
        argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import conformance.__main__ as entry

    monkeypatch.setattr(entry, "_has_xdist", lambda: False)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "-n needs pytest-xdist" in err, err
    assert err.startswith(f"python -m conformance {argv[0]}: error: ")


def test_only_a_workers_option_asks_for_workers() -> None:
    from conformance.__main__ import _asks_for_workers

    for rest in (["-n", "2"], ["-n2"], ["-nauto"], ["--numprocesses", "2"], ["-q", "-n", "1"]):
        assert _asks_for_workers(rest), rest
    for rest in ([], ["-q"], ["--impl", "reference_impl"], ["--", "-n", "2"], ["--no-header"]):
        assert not _asks_for_workers(rest), rest
