"""The built wheel, used as a stranger would: outside the repository, with nothing else of it.

(Its suite run with a selection, from the command line, is tests/test_commands_wheel.py's run
of the docs' ``pytest --pyargs conformance.suite --impl reference_impl --rules ...``.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.commands.wheel import installed_wheel


@pytest.fixture(scope="module")
def unpacked(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The wheel, built from a copy of the sources and installed into a folder of its own (once
    per session: tests/test_commands_wheel.py runs the docs' commands from the same one)."""
    return installed_wheel(tmp_path_factory)


def _python(site: Path, cwd: Path, code: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFMODE_", "CI"))}
    env["PYTHONPATH"] = str(site)  # ahead of site-packages, where a development install may be
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)


def test_the_wheel_ships_what_the_api_and_the_docs_use(unpacked: Path) -> None:
    for shipped in ("spec/scenarios", "spec/examples", "spec/rules"):
        assert list((unpacked / shipped).glob("*.toml")), shipped
    assert (unpacked / "spec" / "texts.toml").is_file()
    assert not (unpacked / "tests").exists() and not (unpacked / "docs").exists()


def test_quick_check_and_certify_from_the_wheel(unpacked: Path, tmp_path: Path) -> None:
    code = f"""
import json, conformance
assert conformance.__file__.startswith({str(unpacked)!r}), conformance.__file__
print(json.dumps(conformance.quick_check("reference_impl")))
cert = conformance.certify("reference_impl", profile="dev", rules="TFM_ORDER_001")
print(json.dumps([cert.passed, cert.partial, cert.verdicts["TFM_ORDER_001"]]))
"""
    done = _python(unpacked, tmp_path, code)
    assert done.returncode == 0, done.stderr[-3000:]
    checked, certified = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    assert checked == []
    assert certified == [True, True, "pass"]
