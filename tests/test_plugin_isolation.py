"""The pytest plugin on toys: a leak, a hang or a recursion fails only its test; the
reports (certificate, badge, junit) and a crash while writing them."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from conformance.report.certificate import validate_certificate
from tests.plugin_toys import (
    TOY,
    certificate,
    environment,  # noqa: F401 (an autouse fixture)
    run,
    verdicts,
)

pytest_plugins = ("pytester",)


# -- isolation ----------------------------------------------------------------------------------

ISOLATION = '''
import time
import pytest
from hypothesis import given, strategies as st
from conformance.session.bodies import sandboxed

@pytest.mark.rule("TFM_REENTRY_002")
@sandboxed
def test_leaks(adapter):
    import reference_impl
    from reference_impl.overrides import TorchFunctionMode

    class Left(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    reference_impl._C._set_torch_function_mode(Left(inner=None))

@pytest.mark.rule("TFM_REENTRY_003")
def test_hangs():
    time.sleep(60)

@pytest.mark.rule("TFM_REENTRY_007")
@given(st.integers(0, 100))
def test_hangs_on_some_examples(n):
    if n > 20:
        time.sleep(60)  # hypothesis must not replay this while shrinking

@pytest.mark.rule("TFM_REENTRY_004")
def test_recurses():
    def again():
        return again()
    again()

@pytest.mark.rule("TFM_REENTRY_005")
@sandboxed
def test_after_them_all(adapter):
    assert adapter.current_mode() is None
'''


def test_leaks_hangs_and_recursion_fail_only_their_test(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=ISOLATION)
    result = run(pytester, "--impl", "reference_impl", "--rule-timeout", "2")
    result.assert_outcomes(passed=1, failed=4)
    assert result.duration < 50
    result.stdout.fnmatch_lines(["*implementation leaked state: mode <*Left object at 0x*> left "
                                 "current (the state was reset)"])
    cert = certificate(pytester)
    assert verdicts(cert) == {"TFM_REENTRY_002": "fail", "TFM_REENTRY_003": "fail",
                              "TFM_REENTRY_004": "fail", "TFM_REENTRY_005": "pass",
                              "TFM_REENTRY_007": "fail"}
    # the option's value is recorded as the number it is (the schema refused the text "2")
    validate_certificate(cert)
    assert cert["evidence"]["invocation"]["rule_timeout"] == 2.0
    rules = cert["rules"]
    assert rules["TFM_REENTRY_002"]["failures"][0]["message"] == (
        "implementation leaked state: mode <test_toy.test_leaks.<locals>.Left object at 0x…> "
        "left current (the state was reset)")
    timeout = "conformance.session.recording.RuleTimeout: Timeout (>2s) from pytest-timeout (--rule-timeout)"
    assert rules["TFM_REENTRY_003"]["failures"][0]["message"] == timeout
    assert rules["TFM_REENTRY_007"]["failures"][0]["message"] == timeout
    assert rules["TFM_REENTRY_004"]["failures"][0]["message"].startswith("RecursionError")


# -- reports ------------------------------------------------------------------------------------


def test_certificate_badge_and_junit(pytester: pytest.Pytester,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFMODE_REPORTS", "out/reports")
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--impl", "reference_impl")
    reports = pytester.path / "out" / "reports"
    assert sorted(p.name for p in reports.iterdir()) == ["badge.json", "certificate.json",
                                                        "junit.xml"]
    cert = certificate(pytester, "out/reports")
    assert validate_certificate(cert) == []
    assert cert["certify"] is False
    assert cert["hypothesis"] == {  # read back by the five tests that ran (two do not apply)
        "profile": "dev", "seed": None, "derandomize": False, "max_examples": 100, "database": True,
        "tests": 5, "requested": {"profile": "dev", "seed": None}, "disagreements": []}
    assert cert["implementation"]["name"] == "reference_impl"
    badge = json.loads((reports / "badge.json").read_text())
    assert badge == {"schemaVersion": 1, "label": "tfmode conformance", "message": "fails 3 MUST",
                     "color": "red"}
    suite = ET.parse(reports / "junit.xml").getroot()
    names = {case.get("name") for case in suite.iter("testcase")}
    assert "test_passes" in names and "test_fails_for_one_rule" in names
    result.stdout.fnmatch_lines([f"*generated xml file: {reports / 'junit.xml'}*"])


def test_a_user_junit_path_is_kept(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    run(pytester, "--impl", "reference_impl", "--junitxml", "mine.xml", "--reports-dir", "r")
    assert (pytester.path / "mine.xml").exists()
    assert sorted(p.name for p in (pytester.path / "r").iterdir()) == ["badge.json",
                                                                      "certificate.json"]


def test_a_crash_while_writing_leaves_no_half_certificate(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('''
import os

def _crash(fd):
    raise OSError("disk full (simulated)")

os.fsync = _crash
''')
    pytester.makepyfile(test_toy=TOY)
    reports = pytester.path / "reports"
    reports.mkdir()
    (reports / "certificate.json").write_text('{"old": true}\n')
    result = run(pytester, "--impl", "reference_impl")
    result.stdout.fnmatch_lines(["ERROR: could not write the conformance reports: disk full "
                                 "(simulated)"])
    assert result.ret != 0
    # The earlier run's files were removed when the run started (docs/trust.rst), and
    # nothing of this run is left half-written: the folder is empty.
    assert sorted(p.name for p in reports.iterdir()) == []
