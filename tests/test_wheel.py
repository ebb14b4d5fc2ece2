"""The built wheel, used as a stranger would: outside the repository, with nothing else of it.

(Its suite run with a selection, from the command line, is tests/test_commands_wheel.py's run
of the docs' ``pytest --pyargs conformance.suite --impl reference_impl --rules ...``.)"""

from __future__ import annotations

import json
import os
import shutil
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


def test_the_suite_s_tests_are_named_from_the_package_wherever_it_is_installed(
        unpacked: Path, tmp_path: Path) -> None:
    # as tox installs it: in a virtual environment inside the project, which is the rootdir
    project = tmp_path / "project"
    site = project / ".tox" / "conformance" / "lib" / "python3" / "site-packages"
    shutil.copytree(unpacked, site)
    (project / "tox.ini").write_text("[pytest]\n", encoding="utf-8")
    code = ("import sys, pytest; sys.exit(pytest.main(['-p', 'conformance.plugin', "
            "'-p', 'no:cacheprovider', '--pyargs', 'conformance.suite', '--impl', "
            "'reference_impl', '--rules', 'TFM_ORDER_001', '-v', '-rA', "
            f"'--reports-dir={tmp_path / 'reports'}']))")
    done = _python(site, project, code)
    assert done.returncode == 0, done.stdout[-3000:]
    assert f"rootdir: {project}" in done.stdout
    shown = [line for line in done.stdout.splitlines() if "::test_" in line]
    assert any(line.startswith("conformance/suite/test_examples.py::test_example[") for line in shown)
    assert any(line.startswith("PASSED conformance/suite/test_generated.py::") for line in shown)
    assert not [line for line in shown if ".tox" in line or "site-packages" in line], shown
    junit = (tmp_path / "reports" / "junit.xml").read_text(encoding="utf-8")
    assert 'classname="conformance.suite.test_examples"' in junit
    cert = json.loads((tmp_path / "reports" / "certificate.json").read_text())
    tests = [t for rule in cert["rules"].values() for t in rule.get("tests", [])]
    assert tests and all(t.startswith("conformance/suite/test_") for t in tests)
