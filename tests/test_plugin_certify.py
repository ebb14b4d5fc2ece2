"""The pytest plugin on toys: certification (what --certify refuses and requires, stale
expected failures, identical runs, -n 2), blame, and --impl-path."""

from __future__ import annotations

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from tests.plugin_toys import (
    EXPECTED,
    MUST_2022,
    TOY,
    certificate,
    environment,  # noqa: F401 (an autouse fixture)
    run,
    verdicts,
)

pytest_plugins = ("pytester",)


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
    certified.stdout.fnmatch_lines([
        f"certification FAILED: {len(MUST_2022) - 1} MUST rule(s) not met (0 failing unexpectedly, "
        f"0 expected failure(s), {len(MUST_2022) - 1} untested); a certification counts an "
        "expected failure of a MUST rule as not met"])
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
from conformance.session.bodies import sandboxed

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

    from conformance.adapter import AdapterError

    module = types.ModuleType("halfns")
    module.__dict__.update({k: v for k, v in vars(reference_impl).items()
                            if k not in ("mean", "ones") and not k.startswith("__")})
    module.Tensor = type("Tensor", (), {"add": reference_impl.Tensor.add})  # type: ignore[attr-defined]
    with pytest.raises(AdapterError) as caught:
        NamespaceAdapter(module)
    assert str(caught.value) == (
        "halfns is not a torch-like namespace: it has no Tensor.neg, Tensor.tolist, "
        "Tensor.as_subclass, Tensor.__torch_function__, mean, ones")
