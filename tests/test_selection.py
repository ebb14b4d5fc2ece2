"""Running part of the suite: --rules, -k and the rest make a partial run, which certifies nothing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from conformance.session.selection import SelectionError, parse_rules
from spec.catalogue import load_catalogue

pytest_plugins = ("pytester",)

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = load_catalogue()
PLUGIN = ("-p", "conformance.plugin", "-p", "no:cacheprovider")

TOY = '''
import pytest

@pytest.mark.rule("TFM_ORDER_001")
def test_order_1():
    pass

@pytest.mark.rule("TFM_ORDER_001", "TFM_TYPES_001")
def test_order_1_and_types_1():
    pass

@pytest.mark.rule("TFM_TYPES_001")
def test_types_1():
    pass

@pytest.mark.rule("TFM_ARGS_001")
def test_args_1_fails():
    raise AssertionError("func is a wrapper")

def test_unmarked():
    pass
'''


@pytest.fixture(autouse=True)
def _environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for name in ("CI", "TFMODE_PROFILE", "TFMODE_IMPL", "TFMODE_REPORTS", "TFMODE_EXPECTED_FAILURES"):
        monkeypatch.delenv(name, raising=False)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN, "--impl", "reference_impl", *args, timeout=600)


def certificate(pytester: pytest.Pytester, reports: str = "reports") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / reports / "certificate.json").read_text())
    return data


def verdict_of(cert: dict[str, Any], rule_id: str) -> str:
    return str(cert["rules"][rule_id]["verdict"])


# -- parsing --rules --------------------------------------------------------------------------


def test_rules_name_ids_globs_and_areas_in_catalogue_order() -> None:
    order = [r.id for r in CATALOGUE if r.area == "ORDER"]
    assert parse_rules("order", CATALOGUE) == tuple(order)
    assert parse_rules("TFM_ORDER_*", CATALOGUE) == tuple(order)
    assert parse_rules("TFM_TYPES_002, tfm_order_001", CATALOGUE) == ("TFM_ORDER_001", "TFM_TYPES_002")
    assert set(parse_rules("TFM_*_001", CATALOGUE)) == {r.id for r in CATALOGUE if r.id.endswith("_001")}


@pytest.mark.parametrize("text, fragment", [
    ("", "--rules is empty"),
    (" , ", "--rules is empty"),
    ("TFM_ORDER_999", "'TFM_ORDER_999' names no rule"),
    ("ORDER,NOSUCHAREA", "'NOSUCHAREA' names no rule"),
])
def test_rules_that_name_nothing_are_refused(text: str, fragment: str) -> None:
    with pytest.raises(SelectionError, match=fragment) as caught:
        parse_rules(text, CATALOGUE)
    assert "\n" not in str(caught.value) and "ORDER" in str(caught.value)


# -- a partial run, on a toy suite --------------------------------------------------------------


def test_rules_option_keeps_the_tests_of_the_chosen_rules(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--rules", "TFM_ORDER_001")
    result.assert_outcomes(passed=2)  # of the 4 tests marked with rules (test_unmarked is not)
    cert = certificate(pytester)
    # TFM_TYPES_001's test_types_1 did not run: one passing test of it is no verdict
    assert verdict_of(cert, "TFM_ORDER_001") == "pass"
    assert verdict_of(cert, "TFM_TYPES_001") == "not_selected"
    assert verdict_of(cert, "TFM_ARGS_001") == "not_selected"
    selection = cert["run"]["selection"]
    assert selection["partial"] is True and selection["rules_option"] == ["TFM_ORDER_001"]
    assert selection["covered_rules"] == ["TFM_ORDER_001"]
    assert selection["reasons"] == ["2 of 4 collected tests deselected (--rules 'TFM_ORDER_001')"]
    assert cert["level"] == {"reached": "none", "features": []}
    badge = json.loads((pytester.path / "reports" / "badge.json").read_text())
    assert badge["message"] == "partial: MUST 1/1"
    out = result.stdout.str()
    assert "PARTIAL RUN: 2 of 4 collected tests deselected" in out
    assert "a partial run certifies nothing (level none)" in out


def test_a_failure_stands_in_a_partial_run(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "-k", "args or test_order_1")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    cert = certificate(pytester)
    assert verdict_of(cert, "TFM_ARGS_001") == "fail"
    assert verdict_of(cert, "TFM_ORDER_001") == "pass"  # both its tests matched -k
    assert verdict_of(cert, "TFM_TYPES_001") == "not_selected"


def test_k_matches_rule_ids(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "-k", "TFM_TYPES")
    result.assert_outcomes(passed=2)
    cert = certificate(pytester)
    assert verdict_of(cert, "TFM_TYPES_001") == "pass"
    assert verdict_of(cert, "TFM_ORDER_001") == "not_selected"


def test_certify_refuses_rules_as_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--certify", "--rules", "TFM_ORDER_001,TFM_TYPES_001")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors == ["ERROR: --certify runs the whole suite: --rules makes a partial run, which "
                      "certifies nothing (run --rules without --certify)"]
    assert not (pytester.path / "reports").exists()


@pytest.mark.parametrize("keyword", ["order or types", "test_types_1"])
def test_certify_of_a_selection_is_an_incomplete_run(pytester: pytest.Pytester,
                                                    keyword: str) -> None:
    # "order or types" runs every test of two MUST rules, which pass: still no certification
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--certify", "-k", keyword)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.stdout.fnmatch_lines([
        "INCOMPLETE RUN: --certify runs the whole suite, and this run left tests out: * of 4 "
        f"collected tests deselected (-k '{keyword}')",
        "certification FAILED: the run is incomplete"])
    cert = certificate(pytester)
    assert cert["run"]["complete"] is False and cert["level"]["reached"] == "none"
    assert "certification: every MUST rule passes" not in result.stdout.str()


@pytest.mark.parametrize("args", [("-k", "nothing_matches_this"), ("--rules", "TFM_REACH_001")])
def test_an_empty_selection_is_an_error_and_writes_nothing(pytester: pytest.Pytester,
                                                           args: tuple[str, ...]) -> None:
    pytester.makepyfile(test_toy=TOY)
    (pytester.path / "reports").mkdir()
    (pytester.path / "reports" / "certificate.json").write_text("the previous run's\n")
    result = run(pytester, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stdout.fnmatch_lines(["ERROR: the selection leaves none of the suite's 4 tests to run "
                                 "(4 of 4 collected tests deselected (*)): nothing was certified "
                                 "and no report was written"])
    assert sorted(p.name for p in (pytester.path / "reports").iterdir()) == ["certificate.json"]
    assert (pytester.path / "reports" / "certificate.json").read_text() == "the previous run's\n"


def test_a_bad_rules_option_is_one_line(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    result = run(pytester, "--rules", "TFM_NOPE_*")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.strip()]
    assert errors[0].startswith("ERROR: --rules: 'TFM_NOPE_*' names no rule") and len(errors) == 1
    assert not (pytester.path / "reports").exists()


def test_xdist_partial_runs_agree_with_serial_ones(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    run(pytester, "--rules", "ORDER", "--reports-dir", "serial")
    spread = run(pytester, "--rules", "ORDER", "--reports-dir", "spread", "-n", "2")
    assert "2 workers" in spread.stdout.str()
    one, two = certificate(pytester, "serial"), certificate(pytester, "spread")
    assert one["rules"] == two["rules"] and one["run"]["selection"] == two["run"]["selection"]
    assert two["run"]["selection"]["partial"] is True


def test_a_whole_toy_run_is_not_partial(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=TOY)
    run(pytester)
    cert = certificate(pytester)
    assert cert["run"]["selection"] == {"partial": False, "reasons": [], "rules_option": None,
                                        "covered_rules": None}
    assert verdict_of(cert, "TFM_TYPES_001") == "pass"


# -- the real suite -----------------------------------------------------------------------------


def _suite(tmp_path: Path, *args: str,
           cwd: Path | None = None) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TFMODE_", "CI"))}
    env["PYTHONPATH"] = str(ROOT)
    done = subprocess.run([sys.executable, "-m", "pytest", *PLUGIN, "--impl", "reference_impl",
                           "--reports-dir", str(tmp_path / "reports"), *args],
                          cwd=cwd or tmp_path, env=env, capture_output=True, text=True, timeout=600)
    cert: dict[str, Any] = json.loads((tmp_path / "reports" / "certificate.json").read_text())
    return done, cert


def test_the_generated_tests_alone_certify_nothing(tmp_path: Path) -> None:
    # They carry every rule ID; the examples of each rule did not run.
    done, cert = _suite(tmp_path, "--pyargs", "conformance.suite", "--certify", "-k", "generated")
    assert done.returncode == pytest.ExitCode.TESTS_FAILED, done.stdout[-2000:]
    assert "certification FAILED: the run is incomplete" in done.stdout
    assert cert["run"]["complete"] is False
    assert "every MUST rule passes" not in done.stdout
    assert {v["verdict"] for v in cert["rules"].values()} == {"not_selected", "not_applicable"}
    assert cert["run"]["selection"]["covered_rules"] == []


def test_one_module_of_the_suite_is_a_partial_run(tmp_path: Path) -> None:
    done, cert = _suite(tmp_path, str(ROOT / "conformance" / "suite" / "test_examples.py"))
    assert done.returncode == pytest.ExitCode.OK, done.stdout[-2000:]
    reasons = cert["run"]["selection"]["reasons"]
    assert reasons == ["suite modules not collected: test_contract.py, test_exhaustive.py, "
                       "test_generated.py, test_meta.py, test_ownmodes.py, test_stateful.py, "
                       "test_surface.py, test_threads.py"]
    # which tests of a rule the other modules hold is unknown: no rule has a verdict
    assert "pass" not in {v["verdict"] for v in cert["rules"].values()}
    assert cert["level"]["reached"] == "none"


def test_tests_are_named_alike_whatever_folder_the_run_is_made_in(tmp_path: Path) -> None:
    args = ("--pyargs", "conformance.suite", "--rules", "TFM_ORDER_001", "--hypothesis-seed", "1")
    _, inside = _suite(tmp_path / "a", *args, cwd=ROOT)
    _, outside = _suite(tmp_path / "b", *args, cwd=tmp_path)
    names = inside["rules"]["TFM_ORDER_001"]["tests"]
    assert names == outside["rules"]["TFM_ORDER_001"]["tests"]
    assert names and all(n.startswith("conformance/suite/test_") for n in names)
