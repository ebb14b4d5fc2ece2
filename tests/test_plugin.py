"""The pytest plugin, driven through pytester on small suites marked with real rule IDs:
usage errors, activation, the header, verdicts."""

from __future__ import annotations

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from spec.texts import load_texts
from tests.plugin_toys import (
    BOTH,
    CATALOGUE,
    EXPECTED,
    NOT_2022,
    ONLY_2022,
    TOY,
    certificate,
    environment,  # noqa: F401 (an autouse fixture)
    run,
    verdicts,
)

pytest_plugins = ("pytester",)


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
        "reference_impl * (generation 2022): MUST 2/*: 1 expected failure (listed below), "
        "2 unexpected, * untested",
        "area *pass *fail *xfail *n/a *untested *not sel. *not comp.",
        "ORDER *2 *2 *1 *2 *0",
        "total *2 *2 *1 *",
        "    fail TFM_ORDER_003 [[]MUST[]] Subclasses before superclasses (1 failing test)",
        "   xfail TFM_ORDER_005 [[]MUST[]] Each type tried once (1 failing test) expected: *",
        "level reached: none (* MUST rules not met: 1 expected, 2 unexpected, * untested); "
        "optional features declared: *; met: none (a feature is met once MUST is reached)",
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
