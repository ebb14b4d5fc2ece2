"""The snippets of the compiled expected-failures files, and the repros of the root causes they
name (compiled-causes.toml, which exit 1), print an eager and a compiled result that differ.

Each entry of ``conformance/expected_failures/torch-X-compiled.toml`` records a divergence of
``torch.compile(fn, backend="eager")`` from eager torch X; its snippet runs the same user code
both ways and prints one line starting with ``eager:`` and one starting with ``compiled:``. The
snippets of the installed release's file run (none where it has no compiled file; the
release tool, ``python -m conformance.release X --compile``, runs this module in the release's
venv), each in a fresh interpreter (Dynamo's caches and the warning filters of one snippet never
reach another).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

FILES = Path(__file__).resolve().parents[1] / "conformance" / "expected_failures"
TORCH = importlib.util.find_spec("torch") is not None
#: seconds one snippet may take (an import of torch and two compilations take a few)
TIMEOUT = 120


def _torch_release() -> str:
    import torch

    return str(torch.__version__).split("+")[0]


def _snippets() -> list[object]:
    file = FILES / f"torch-{_torch_release()}-compiled.toml"
    if not file.exists():
        return []
    data = tomllib.loads(file.read_text(encoding="utf-8"))
    return [pytest.param(rule_id, entry["snippet"], id=rule_id) for rule_id, entry in data.items()]


def _result(lines: list[str], prefix: str) -> str:
    """The text after ``prefix`` of the one line that starts with it."""
    found = [line[len(prefix):].strip() for line in lines if line.startswith(prefix)]
    assert len(found) == 1, f"expected exactly one line starting with {prefix!r}, got {len(found)}"
    return found[0]


if TORCH:  # defined only where torch is installed; the snippets of its release's compiled file

    @pytest.mark.parametrize(("rule_id", "snippet"), _snippets())
    def test_snippet_prints_differing_eager_and_compiled_results(rule_id: str, snippet: str) -> None:
        done = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
        assert done.returncode == 0, f"{rule_id}: the snippet exited {done.returncode}:\n{done.stderr}"
        lines = done.stdout.splitlines()
        eager = _result(lines, "eager:")
        compiled = _result(lines, "compiled:")
        assert eager != compiled, f"{rule_id}: eager and compiled agree: {eager}"


def _repros() -> list[object]:
    from conformance.report.causes import load_causes

    release = _torch_release()
    return [pytest.param(cause.name, cause.repro, id=cause.name)
            for cause in load_causes().values() if release in cause.rules]


if TORCH:  # each root cause's repro, on the releases compiled-causes.toml says it holds on

    @pytest.mark.parametrize(("name", "repro"), _repros())
    def test_each_cause_s_repro_exits_1_with_differing_lines(name: str, repro: str) -> None:
        done = subprocess.run([sys.executable, "-c", repro], capture_output=True, text=True,
                              timeout=TIMEOUT, check=False)
        lines = done.stdout.splitlines()
        assert done.returncode == 1, (f"{name}: the repro exited {done.returncode}:\n"
                                      f"{done.stdout}{done.stderr}")
        assert _result(lines, "EAGER:") != _result(lines, "COMPILED:"), done.stdout
