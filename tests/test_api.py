"""conformance.certify, Certificate, load_certificate, quick_check and the tfmode_certify fixture."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

import conformance
from conformance import Certificate, CertifyError, certify, load_certificate, quick_check

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def order_run(tmp_path_factory: pytest.TempPathFactory) -> Certificate:
    reports = tmp_path_factory.mktemp("reports")
    return certify("reference_impl", profile="dev", rules="ORDER", reports_dir=reports)


def test_a_partial_run_of_the_reference(order_run: Certificate) -> None:
    assert order_run.passed and order_run.partial and order_run.complete
    assert order_run.level == "none"  # a partial run certifies nothing
    order = {k: v for k, v in order_run.verdicts.items() if k.startswith("TFM_ORDER_")}
    assert set(order.values()) == {"pass"} and len(order) == 7
    assert order_run.verdicts["TFM_TYPES_001"] == "not_selected"
    assert order_run.failures == []
    assert order_run.implementation == "reference_impl 0.1.0 (generation 2022)"
    # the reports stay where they were asked for, and read back alike
    assert order_run.path is not None and order_run.path.name == "certificate.json"
    assert load_certificate(order_run.path).document == order_run.document
    assert "passed" in order_run.explain().splitlines()[0]


def test_failures_come_with_their_rule_message_and_snippet() -> None:
    cert = certify("tests.mutants.mode_order", profile="dev", rules="TFM_ORDER_001")
    assert not cert.passed and cert.path is None
    assert cert.verdicts["TFM_ORDER_001"] == "fail"
    failure = next(f for f in cert.failures if f.rule == "TFM_ORDER_001")
    assert failure.message and failure.snippet and "tests.mutants.mode_order" in failure.snippet
    report = cert.explain()
    assert report.startswith("tests.mutants.mode_order") and "FAILED" in report.splitlines()[0]
    assert "TFM_ORDER_001 [MUST]" in report and failure.snippet in report
    # the snippet is a standalone reproduction: it runs, and shows the divergence
    done = subprocess.run([sys.executable, "-c", failure.snippet], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.stdout or done.stderr


@pytest.mark.parametrize("impl, options, fragment", [
    ("no_such_module_xyz", {}, "--impl 'no_such_module_xyz': no module named 'no_such_module_xyz' "
                               "(not installed? --impl-path DIR, TFMODE_IMPL_PATH=DIR or "
                               "certify(impl_path=DIR) imports it"),
    ("reference_impl", {"rules": "TFM_NOPE_*"}, "--rules: 'TFM_NOPE_*' names no rule"),
    ("reference_impl", {"profile": "no-such-profile"}, "no hypothesis profile named"),
    ("reference_impl", {"rules": ["TFM_REACH_001"], "pytest_args": ["-k", "zzz_nothing"]},
     "the selection leaves none of the suite's"),
])
def test_nothing_certified_is_a_one_line_error(impl: str, options: dict[str, object],
                                               fragment: str) -> None:
    with pytest.raises(CertifyError) as caught:
        certify(impl, **options)  # type: ignore[arg-type]
    assert fragment in str(caught.value) and "\n" not in str(caught.value)


def test_a_run_past_its_timeout_is_stopped() -> None:
    start = time.monotonic()
    with pytest.raises(CertifyError, match="did not finish within 2 s"):
        certify("reference_impl", profile="thorough", timeout=2)
    assert time.monotonic() - start < 30


@pytest.mark.parametrize("content, fragment", [
    ("{not json", "not a readable certificate"),
    ('{"schema_version": 3}', "not a certificate: $.suite_version: missing"),
])
def test_load_certificate_refuses_what_is_not_one(tmp_path: Path, content: str,
                                                  fragment: str) -> None:
    path = tmp_path / "certificate.json"
    path.write_text(content)
    with pytest.raises(CertifyError, match=fragment.replace("$", r"\$")):
        load_certificate(path)


def test_quick_check() -> None:
    assert quick_check("reference_impl") == []
    found = quick_check("tests.mutants.mode_order")
    assert found and all(": " in line for line in found)


def test_the_api_is_typed_and_exported() -> None:
    assert set(conformance.__all__) >= {"certify", "Certificate", "CertifyError",
                                        "load_certificate", "quick_check"}
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        conformance.nope  # noqa: B018


FIXTURE_USER = '''
def test_mine_conforms(tfmode_certify):
    cert = tfmode_certify("reference_impl", profile="dev", rules="TFM_ORDER_001")
    assert cert.passed, cert.explain()
    again = tfmode_certify("reference_impl", profile="dev", rules="TFM_ORDER_001")
    assert again is cert  # one run per distinct call and session
    assert cert.verdicts["TFM_ORDER_001"] == "pass"

def test_a_broken_one_fails(tfmode_certify):
    cert = tfmode_certify("tests.mutants.mode_order", profile="dev", rules="TFM_ORDER_001")
    assert not cert.passed
'''


def test_the_fixture_in_a_projects_own_tests(pytester: pytest.Pytester,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    pytester.makepyfile(test_mine=FIXTURE_USER)
    result = pytester.runpytest_subprocess("-p", "conformance.plugin", "-p", "no:cacheprovider",
                                           timeout=600)
    result.assert_outcomes(passed=2)
    # the project's own run is no conformance run: it writes no reports of its own
    assert not (pytester.path / "reports").exists()
    assert "tfmode conformance" not in result.stdout.str()


def test_certificate_accessors_follow_the_document(order_run: Certificate) -> None:
    document = json.loads(json.dumps(order_run.document))
    document["rules"]["TFM_ORDER_002"]["verdict"] = "fail"
    document["rules"]["TFM_ORDER_002"]["failures"] = [{"test": "t", "message": "m"}]
    broken = Certificate(document)
    assert not broken.passed and [f.rule for f in broken.failures] == ["TFM_ORDER_002"]
    document["run"]["complete"] = False
    assert not Certificate(document).complete
