"""The repros of the root causes that the installed release's compiled expected failures name
(compiled-causes.toml) exit 1 and print an eager and a compiled result that differ; those it
records an exit status for on the installed release (repro_exits) exit with it.

Each entry of ``conformance/expected_failures/torch-X-compiled.toml`` records a divergence of
``torch.compile(fn, backend="eager")`` from eager torch X and names its root causes; a cause's
repro, told once in compiled-causes.toml and shared by every entry that names it, is what
reproduces the entry (an entry has no snippet of its own). The repros of the causes the installed
release's file names run here (none where it has no compiled file; the release tool, ``python -m
conformance.release X --compile``, runs this module in the release's venv), each in a fresh
interpreter (Dynamo's caches and the warning filters of one repro never reach another).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

TORCH = importlib.util.find_spec("torch") is not None
#: seconds one repro may take (an import of torch and two compilations take a few)
TIMEOUT = 120


def _torch_release() -> str:
    import torch

    return str(torch.__version__).split("+")[0]


def _result(lines: list[str], prefix: str) -> str:
    """The text after ``prefix`` of the one line that starts with it."""
    found = [line[len(prefix):].strip() for line in lines if line.startswith(prefix)]
    assert len(found) == 1, f"expected exactly one line starting with {prefix!r}, got {len(found)}"
    return found[0]


def _run(repro: str) -> subprocess.CompletedProcess[str]:
    """``repro`` run in a fresh interpreter."""
    return subprocess.run([sys.executable, "-c", repro], capture_output=True, text=True,
                          timeout=TIMEOUT, check=False)


def _repros() -> list[object]:
    from conformance.report.causes import load_causes

    release = _torch_release()
    return [pytest.param(cause.name, cause.repro, id=cause.name)
            for cause in load_causes().values() if release in cause.rules]


if TORCH:  # each root cause's repro, on the releases whose compiled file names it

    @pytest.mark.parametrize(("name", "repro"), _repros())
    def test_each_cause_s_repro_exits_1_with_differing_lines(name: str, repro: str) -> None:
        done = _run(repro)
        lines = done.stdout.splitlines()
        assert done.returncode == 1, (f"{name}: the repro exited {done.returncode}:\n"
                                      f"{done.stdout}{done.stderr}")
        assert _result(lines, "EAGER:") != _result(lines, "COMPILED:"), done.stdout


def _recorded_exits() -> list[object]:
    from conformance.report.causes import load_causes

    release = _torch_release()
    return [pytest.param(cause.name, cause.repro, cause.repro_exits[release], id=cause.name)
            for cause in load_causes().values() if release in cause.repro_exits]


if TORCH:  # what compiled-causes.toml records of a repro on a release whose file does not name it

    @pytest.mark.parametrize(("name", "repro", "recorded"), _recorded_exits())
    def test_a_recorded_repro_exit_holds_on_its_release(name: str, repro: str,
                                                        recorded: int) -> None:
        done = _run(repro)
        assert done.returncode == recorded, (
            f"{name}: compiled-causes.toml records exit {recorded} on this release (repro_exits);"
            f" the repro exited {done.returncode}:\n{done.stdout}{done.stderr}")
        if recorded == 0:  # agreeing: the two lines it prints are the same
            lines = done.stdout.splitlines()
            assert _result(lines, "EAGER:") == _result(lines, "COMPILED:"), done.stdout
