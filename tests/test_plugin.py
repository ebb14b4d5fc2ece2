"""The pytest plugin, driven through pytester on small suites marked with real rule IDs."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.certificate import validate_certificate
from conformance.report import MUST_LEVELS
from spec.catalogue import load_catalogue
from spec.texts import load_texts

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = load_catalogue()
#: MUST rules of the 2022 generation (all the reference implementation is checked against).
MUST_2022 = [r.id for r in CATALOGUE.for_generation("2022") if r.level in MUST_LEVELS]
NOT_2022 = len(CATALOGUE) - len(CATALOGUE.for_generation("2022"))
ONLY_2022 = next(r.id for r in CATALOGUE if r.generations == ("2022",))
BOTH = next(r.id for r in CATALOGUE if r.generations == ("2022", "stack"))
#: As a user would name it; where the package is installed, the plugin blocks its own entry
#: point so that it is not registered twice.
PLUGIN = ("-p", "conformance.plugin", "-p", "no:cacheprovider")

TOY = '''
import pytest

@pytest.mark.rule("TFM_ORDER_001")
def test_passes(adapter):
    assert adapter.generation == "2022"

@pytest.mark.rule("TFM_ORDER_002", "TFM_ORDER_003")
def test_fails_for_one_rule(record_property):
    record_property("failed_rules", "TFM_ORDER_003")
    record_property("scenario", '{"generation": "2022", "setup": [{"push": "M"}]}')
    record_property("snippet", "print('repro')")
    record_property("examples", 12)
    assert 1 == 2, "the order is wrong for <object at 0x7f00deadbeef>"

@pytest.mark.rule("TFM_ORDER_004")
def test_order_4_passes():
    pass

@pytest.mark.rule("TFM_ORDER_004")
def test_order_4_fails():
    raise AssertionError("left to right broken")

@pytest.mark.rule("TFM_ORDER_005")
def test_expected_to_fail():
    raise AssertionError("known divergence")

@pytest.mark.generation("stack")
@pytest.mark.rule("TFM_ORDER_006")
def test_for_the_stack_only():
    pass

@pytest.mark.feature("disable-subclass")
@pytest.mark.rule("TFM_ORDER_007")
def test_needs_a_feature():
    pass
'''

EXPECTED = '''
[TFM_ORDER_005]
reason = "this implementation tries types twice"
'''


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for name in ("CI", "TFMODE_PROFILE", "TFMODE_IMPL", "TFMODE_REPORTS", "TFMODE_EXPECTED_FAILURES"):
        monkeypatch.delenv(name, raising=False)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN, *args, timeout=300)


def certificate(pytester: pytest.Pytester, reports: str = "reports") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / reports / "certificate.json").read_text())
    return data


def verdicts(cert: dict[str, Any]) -> dict[str, str]:
    return {k: v["verdict"] for k, v in cert["rules"].items() if v["tests"]}


# -- usage errors -------------------------------------------------------------------------------

USAGE = {
    "no_such_module_xyz": "ERROR: --impl 'no_such_module_xyz': no module named 'no_such_module_xyz'",
    "notns": "ERROR: notns is not a torch-like namespace: it has no Tensor, Tensor.add, Tensor.neg, "
             "Tensor.tolist, Tensor.as_subclass, Tensor.__torch_function__, tensor, add, sub, ",
    "boom": "ERROR: --impl 'boom': importing boom raised RuntimeError: kaput",
    "halfad:Ad": "ERROR: --impl 'halfad:Ad': the adapter lacks ",
}


@pytest.mark.parametrize("impl", list(USAGE))
def test_an_unusable_implementation_is_one_line_and_exit_4(pytester: pytest.Pytester,
                                                           impl: str) -> None:
    pytester.makepyfile(notns="x = 1\n", boom="raise RuntimeError('kaput')\n",
                        halfad="class Ad:\n    name = 'half'\n", test_toy=TOY)
    result = run(pytester, "--impl", impl)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.errlines if line.strip()]
    assert len(errors) == 1, result.errlines
    assert errors[0].startswith(USAGE[impl])
    assert "Traceback" not in "\n".join(result.outlines + result.errlines)


def test_unknown_rule_ids_stop_collection(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY + '\n@pytest.mark.rule("TFM_NOPE_001")\ndef test_x():\n    pass\n')
    result = run(pytester, "--impl", "reference_impl")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown rule ID TFM_NOPE_001 (test_toy.py::test_x)" in result.stderr.str()
    assert not (pytester.path / "reports").exists()


# -- activation ---------------------------------------------------------------------------------


def test_ordinary_runs_are_left_alone(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester)
    result.assert_outcomes(passed=4, failed=3)
    assert "implementation:" not in result.stdout.str()
    assert "tfmode conformance" not in result.stdout.str()
    assert not (pytester.path / "reports").exists()


def test_the_real_suite_activates_without_impl(pytester: pytest.Pytester) -> None:
    result = run(pytester, "--pyargs", "conformance.suite", "-k", "test_rule_markers_are_known")
    result.stdout.fnmatch_lines(["implementation: reference_impl *generation 2022*",
                                 "*= tfmode conformance =*"])
    assert result.ret == 0
    assert (pytester.path / "reports" / "certificate.json").exists()


# -- header -------------------------------------------------------------------------------------


def test_header_names_everything_that_decides_the_run(pytester: pytest.Pytester,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TFMODE_NOTE", "typo-check")
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--impl", "reference_impl", "--hypothesis-seed", "7")
    result.stdout.fnmatch_lines([
        f"tfmode-conformance 0.1.0: spec of {len(CATALOGUE)} rules (sha256:*), certify: no",
        "implementation: reference_impl * (--impl reference_impl), generation 2022, "
        f"features: {', '.join(sorted(NamespaceAdapter(reference_impl).features))}",
        "hypothesis: profile 'dev', seed 7",
        "TFMODE_NOTE=typo-check",
    ])


def test_certify_header_and_profile(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy='''
import pytest
from hypothesis import settings

@pytest.mark.rule("TFM_ORDER_001")
def test_profile():
    assert settings.get_current_profile_name() == "certify"
    assert settings.default.derandomize and settings.default.database is None
''')
    result = run(pytester, "--impl", "reference_impl", "--certify")
    result.stdout.fnmatch_lines(["*certify: yes", "hypothesis: profile 'certify', seed derandomized"])
    result.assert_outcomes(passed=1)


def test_an_explicit_hypothesis_profile_wins(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy='''
import pytest
from hypothesis import settings

@pytest.mark.rule("TFM_ORDER_001")
def test_profile():
    assert settings.get_current_profile_name() == "thorough"
''')
    result = run(pytester, "--impl", "reference_impl", "--hypothesis-profile", "thorough")
    result.stdout.fnmatch_lines(["hypothesis: profile 'thorough', seed random"])
    result.assert_outcomes(passed=1)


# -- verdicts -----------------------------------------------------------------------------------


def test_verdicts_per_rule(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected=EXPECTED)
    result = run(pytester, "--impl", "reference_impl", "--expected-failures", "expected.toml", "-rs")
    result.assert_outcomes(passed=2, failed=2, skipped=2, xfailed=1)
    result.stdout.fnmatch_lines(["*SKIPPED*not applicable: the test is for generation stack; "
                                 "reference_impl is of generation 2022",
                                 "*SKIPPED*not applicable: reference_impl does not declare "
                                 "feature disable-subclass"])
    cert = certificate(pytester)
    assert verdicts(cert) == {
        "TFM_ORDER_001": "pass",
        "TFM_ORDER_002": "pass",  # the failure names TFM_ORDER_003 only
        "TFM_ORDER_003": "fail",
        "TFM_ORDER_004": "fail",  # one failing test is enough
        "TFM_ORDER_005": "expected_failure",
        "TFM_ORDER_006": "not_applicable",
        "TFM_ORDER_007": "not_applicable",
    }
    assert cert["summary"] == {"pass": 2, "fail": 2, "expected_failure": 1,
                               "not_applicable": 2 + NOT_2022, "untested": len(CATALOGUE) - 7 - NOT_2022,
                               "not_selected": 0, "not_compiled": 0}
    failure = cert["rules"]["TFM_ORDER_003"]["failures"][0]
    assert failure == {
        "test": "test_toy.py::test_fails_for_one_rule",
        "message": "AssertionError: the order is wrong for <object at 0x…>\nassert 1 == 2",
        "scenario": {"generation": "2022", "setup": [{"push": "M"}]},
        "snippet": "print('repro')",
        "examples": 12,
    }
    order5 = cert["rules"]["TFM_ORDER_005"]
    assert order5["expected_failure_reason"] == "this implementation tries types twice"
    assert order5["failures"][0]["message"] == "AssertionError: known divergence"
    assert cert["rules"]["TFM_ORDER_004"]["tests"] == ["test_toy.py::test_order_4_fails",
                                                       "test_toy.py::test_order_4_passes"]
    assert cert["level"] == {"reached": "none", "features": []}
    assert cert["stale_expected_failures"] == []
    result.stdout.fnmatch_lines([
        "*= tfmode conformance =*",
        "reference_impl * (generation 2022): fails 3 MUST",
        "area *pass *fail *xfail *n/a *untested *not sel. *not comp.",
        "ORDER *2 *2 *1 *2 *0",
        "total *2 *2 *1 *",
        "    fail TFM_ORDER_003 [[]MUST[]] Subclasses before superclasses (1 failing test)",
        "   xfail TFM_ORDER_005 [[]MUST[]] Each type tried once (1 failing test) expected: *",
        "level reached: none (optional features: none)",
    ])


def test_a_stack_adapter_finds_2022_rules_not_applicable(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(stacklike='''
import reference_impl
from conformance.adapter import NamespaceAdapter

class StackLike(NamespaceAdapter):
    def __init__(self):
        super().__init__(reference_impl)
        self.generation = "stack"
        self.name = "stacklike"
''', test_toy=f'''
import pytest

@pytest.mark.rule("{ONLY_2022}")
def test_2022_only_rule():
    raise AssertionError("never runs")

@pytest.mark.rule("{ONLY_2022}", "{BOTH}")
def test_mixed():
    pass
''')
    result = run(pytester, "--impl", "stacklike:StackLike", "-rs")
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines([f"*not applicable: {ONLY_2022} hold for no generation "
                                 "stacklike has (stack)"])
    cert = certificate(pytester)
    assert cert["implementation"]["generation"] == "stack"
    assert verdicts(cert) == {ONLY_2022: "not_applicable", BOTH: "pass"}
    only_2022 = len(CATALOGUE) - len(CATALOGUE.for_generation("stack"))
    # The adapter reports reference_impl's release, pr75154, which has none of the stack's texts.
    no_texts = [r for r in CATALOGUE.for_generation("stack") if r.area == "TEXT"
                and load_texts().rule_status(r.id, "pr75154") == "absent"]
    assert no_texts and cert["summary"]["not_applicable"] == only_2022 + len(no_texts)


# -- isolation ----------------------------------------------------------------------------------

ISOLATION = '''
import time
import pytest
from hypothesis import given, strategies as st
from conformance.bodies import sandboxed

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
    rules = cert["rules"]
    assert rules["TFM_REENTRY_002"]["failures"][0]["message"] == (
        "implementation leaked state: mode <test_toy.test_leaks.<locals>.Left object at 0x…> "
        "left current (the state was reset)")
    timeout = "conformance.recording.RuleTimeout: Timeout (>2s) from pytest-timeout (--rule-timeout)"
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


# -- certification ------------------------------------------------------------------------------


def test_certify_refuses_expected_failures_on_must_rules(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected=EXPECTED + '\n[TFM_REACH_002]\nreason = "a SHOULD"\n')
    result = run(pytester, "--impl", "reference_impl", "--certify",
                 "--expected-failures", "expected.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == ("ERROR: --certify refuses expected failures on MUST rules: "
                                  "TFM_ORDER_005 (in expected.toml)")


def test_certify_refuses_an_explicit_example_database(pytester: pytest.Pytester) -> None:
    pytester.makeconftest('''
from hypothesis import settings
from hypothesis.database import InMemoryExampleDatabase

settings.register_profile("withdb", database=InMemoryExampleDatabase())
''')
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--impl", "reference_impl", "--certify", "--hypothesis-profile", "withdb")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--certify refuses an explicitly configured example database" in result.errlines[0]


def test_certify_derives_a_profile_without_database(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy='''
import pytest
from hypothesis import settings

@pytest.mark.rule("TFM_ORDER_001")
def test_profile():
    assert settings.get_current_profile_name() == "dev-certify"
    assert settings.default.derandomize and settings.default.database is None
''')
    result = run(pytester, "--impl", "reference_impl", "--certify", "--hypothesis-profile", "dev")
    result.assert_outcomes(passed=1)


def test_certify_fails_on_untested_must_rules(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy='''
import pytest

@pytest.mark.rule("TFM_ORDER_001")
def test_passes():
    pass
''')
    plain = run(pytester, "--impl", "reference_impl")
    assert plain.ret == 0
    certified = run(pytester, "--impl", "reference_impl", "--certify")
    certified.assert_outcomes(passed=1)
    assert certified.ret == pytest.ExitCode.TESTS_FAILED
    certified.stdout.fnmatch_lines([f"certification FAILED: 0 MUST rule(s) fail, "
                                    f"{len(MUST_2022) - 1} untested"])
    assert certificate(pytester)["certify"] is True


def test_stale_expected_failures_are_reported(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy='''
import pytest

@pytest.mark.rule("TFM_ORDER_005")
def test_now_passes():
    pass
''')
    pytester.makefile(".toml", expected=EXPECTED)
    result = run(pytester, "--impl", "reference_impl", "--expected-failures", "expected.toml")
    result.stdout.fnmatch_lines([
        "stale expected failures (their rule did not fail): TFM_ORDER_005",
        "WARNING: 1 stale expected-failure entry; remove it from expected.toml",
    ])
    assert certificate(pytester)["stale_expected_failures"] == ["TFM_ORDER_005"]


def test_a_bad_expected_failures_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected='[TFM_ORDER_005]\nreason = ""\n')
    result = run(pytester, "--impl", "reference_impl", "--expected-failures", "expected.toml")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert result.errlines[0] == ("ERROR: expected.toml: [TFM_ORDER_005] reason must be a "
                                  "non-empty string")


HYPOTHESIS_TOY = '''
import pytest
from hypothesis import given, settings, strategies as st

@pytest.mark.rule("TFM_ORDER_001")
@settings(max_examples=200)  # derandomized and without a database: from the certify profile
@given(st.integers(0, 1000), st.lists(st.integers()))
def test_finds_a_counterexample(n, xs):
    assert n < 300 or len(xs) < 2

@pytest.mark.rule("TFM_ORDER_002")
@settings(max_examples=50)
@given(st.integers())
def test_holds(n):
    assert n == n
'''


def test_two_certify_runs_give_identical_rule_sections(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=HYPOTHESIS_TOY)
    run(pytester, "--impl", "reference_impl", "--certify", "--reports-dir", "one")
    run(pytester, "--impl", "reference_impl", "--certify", "--reports-dir", "two")
    first, second = certificate(pytester, "one"), certificate(pytester, "two")
    assert first["rules"]["TFM_ORDER_001"]["verdict"] == "fail"
    assert "n=300" in first["rules"]["TFM_ORDER_001"]["failures"][0]["message"]
    assert first["rules"] == second["rules"]
    assert first["summary"] == second["summary"] and first["level"] == second["level"]


def test_deselected_tests_give_no_verdict(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--impl", "reference_impl", "-k", "test_passes or test_order_4_passes")
    result.assert_outcomes(passed=2)
    found = verdicts(certificate(pytester))
    # TFM_ORDER_004's failing test was deselected: its passing one alone gives it no verdict
    assert found["TFM_ORDER_001"] == "pass" and found["TFM_ORDER_004"] == "not_selected"


def test_xdist_runs_give_the_verdicts_of_a_serial_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected=EXPECTED)
    common = ("--impl", "reference_impl", "--expected-failures", "expected.toml")
    serial = run(pytester, *common, "--reports-dir", "serial")
    spread = run(pytester, *common, "--reports-dir", "spread", "-n", "2")
    assert spread.ret == serial.ret == pytest.ExitCode.TESTS_FAILED
    assert "2 workers" in spread.stdout.str()
    one, two = certificate(pytester, "serial"), certificate(pytester, "spread")
    assert one["rules"] == two["rules"] and one["summary"] == two["summary"]
    assert verdicts(two)["TFM_ORDER_005"] == "expected_failure"
    # the workers' tests report the settings they read back, as the serial run's do
    assert one["hypothesis"] == two["hypothesis"] and two["hypothesis"]["tests"] == 5


BLAME = '''
import pytest
from conformance.bodies import sandboxed

@pytest.mark.rule("TFM_ARGS_003")
def test_exposes_another_rules_fault(record_property):
    record_property("failed_rules", "TFM_PUSH_003")
    raise AssertionError("after the scenario: expected current mode None, observed 'M'")

@pytest.mark.rule("TFM_ARGS_001")
@sandboxed
def test_leaks_but_checks_nothing_of_restoring(adapter):
    import reference_impl
    from reference_impl.overrides import TorchFunctionMode

    class Left(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            return func(*args, **(kwargs or {}))

    reference_impl._C._set_torch_function_mode(Left(inner=None))
'''


def test_failures_blame_the_attributed_rules_and_leaks_the_restoring_ones(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=BLAME)
    run(pytester, "--impl", "reference_impl").assert_outcomes(failed=2)
    cert = certificate(pytester)
    failing = {rule: [f["test"].split("::")[-1] for f in entry["failures"]]
               for rule, entry in cert["rules"].items() if entry["verdict"] == "fail"}
    assert failing == {
        "TFM_PUSH_003": ["test_exposes_another_rules_fault", "test_leaks_but_checks_nothing_of_restoring"],
        "TFM_ENABLE_001": ["test_leaks_but_checks_nothing_of_restoring"],
        "TFM_REENTRY_002": ["test_leaks_but_checks_nothing_of_restoring"],
        "TFM_REENTRY_003": ["test_leaks_but_checks_nothing_of_restoring"],
    }
    assert cert["rules"]["TFM_ARGS_003"]["verdict"] == "pass"
    assert cert["rules"]["TFM_ARGS_001"]["verdict"] == "pass"


def test_impl_path_imports_an_uninstalled_implementation(pytester: pytest.Pytester,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_toy=TOY)
    (pytester.path / "vendored").mkdir()
    (pytester.path / "vendored" / "mytorch.py").write_text("from reference_impl import *\n"
                                                          "import reference_impl as _r\n"
                                                          "overrides, _C = _r.overrides, _r._C\n")
    missing = run(pytester, "--impl", "mytorch")
    assert missing.ret == 4 and "no module named 'mytorch'" in missing.errlines[0]
    assert run(pytester, "--impl-path", "vendored", "--impl", "mytorch").ret in (0, 1)
    monkeypatch.setenv("TFMODE_IMPL_PATH", "vendored")
    found = run(pytester, "--impl", "mytorch")
    assert found.ret in (0, 1) and "mytorch" in found.stdout.str()
    bad = run(pytester, "--impl-path", "nowhere", "--impl", "mytorch")
    assert bad.errlines[0] == "ERROR: --impl-path: 'nowhere' is not a directory"


def test_impl_path_wins_over_the_working_folder(pytester: pytest.Pytester) -> None:
    # A same-named copy in the folder pytest runs in must not be the one certified.
    pytester.makepyfile(test_toy=TOY)
    pytester.makepyfile(mytorch="raise ImportError('the copy in the working folder was imported')")
    (pytester.path / "vendored").mkdir()
    (pytester.path / "vendored" / "mytorch.py").write_text("from reference_impl import *\n"
                                                          "import reference_impl as _r\n"
                                                          "overrides, _C = _r.overrides, _r._C\n")
    found = run(pytester, "--impl-path", "vendored", "--impl", "mytorch")
    assert "working folder was imported" not in found.stdout.str() + found.stderr.str()
    assert found.ret in (0, 1) and "implementation: mytorch" in found.stdout.str()


def test_every_missing_name_is_reported_at_once_methods_included() -> None:
    import types

    import reference_impl
    from conformance.adapter import AdapterError, NamespaceAdapter

    module = types.ModuleType("halfns")
    module.__dict__.update({k: v for k, v in vars(reference_impl).items()
                            if k not in ("mean", "ones") and not k.startswith("__")})
    module.Tensor = type("Tensor", (), {"add": reference_impl.Tensor.add})  # type: ignore[attr-defined]
    with pytest.raises(AdapterError) as caught:
        NamespaceAdapter(module)
    assert str(caught.value) == (
        "halfns is not a torch-like namespace: it has no Tensor.neg, Tensor.tolist, "
        "Tensor.as_subclass, Tensor.__torch_function__, mean, ones")
