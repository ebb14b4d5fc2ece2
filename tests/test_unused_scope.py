"""An expected failure's scope names only what it excuses: the certificate lists each element
of an entry's ``functions`` (a function name or a scope word) that excused no divergence in the
run (``unused_scope``), so a scope wider than its divergences, which would silently excuse a new
divergence of the same rule elsewhere, shows up as a stale entry does."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conformance.judge.excusal import Excusals
from conformance.report.headline import unused_scope_lines
from conformance.session.expectations import NOWHERE, unused_scope
from tests.plugin_toys import (
    certificate,
    environment,  # noqa: F401 (an autouse fixture)
    run,
)

pytest_plugins = ("pytester",)

RULE = "TFM_ORDER_005"
OTHER = "TFM_ORDER_004"


def test_an_excused_divergence_marks_the_elements_that_excused_it() -> None:
    excusals = Excusals({RULE: {"add", "x + y", "neg"}, OTHER: set()})
    assert excusals.covers([RULE], ["Tensor.add", "x + y"])
    assert excusals.covers([RULE, OTHER], ["add"])
    assert excusals.used == {RULE: {"x + y", "add"}}  # an unscoped entry has no element


def test_a_divergence_not_excused_marks_nothing() -> None:
    excusals = Excusals({RULE: {"add"}, OTHER: {"neg"}})
    assert not excusals.covers([RULE, OTHER], ["add"])  # OTHER is not excused in add
    assert not excusals.covers([RULE], ["neg"])
    assert excusals.used == {}


def test_a_compiled_run_s_excusals_mark_the_same_record_and_its_words() -> None:
    shared: dict[str, set[str]] = {}
    excusals = Excusals({RULE: {"outside compile", "neg"}}, used=shared)
    compiled = Excusals(excusals.scopes, ("outside compile",), excusals.used)
    assert compiled.covers([RULE], ["add"])
    assert shared == {RULE: {"outside compile"}}


def test_unused_elements_are_those_no_excusal_marked() -> None:
    scopes = {RULE: frozenset({"add", "neg", "x + y"}), OTHER: frozenset()}
    verdicts = {RULE: "expected_failure", OTHER: "expected_failure"}
    assert unused_scope(scopes, verdicts, {RULE: {"add"}}) == {RULE: ["neg", "x + y"]}
    assert unused_scope(scopes, verdicts, {RULE: {"add", "neg", "x + y"}}) == {}


@pytest.mark.parametrize("why, verdict, used, scope", [
    ("its rule did not fail: the entry is stale, reported as such", "pass",
     {RULE: {"add"}}, frozenset({"add", "neg"})),
    ("no element was used: the rule was excused through surface", "expected_failure", {},
     frozenset({"add", "neg"})),
    ("a surface-only entry has no functions", "expected_failure", {RULE: {"add"}}, NOWHERE),
])
def test_entries_whose_elements_say_nothing_are_left_out(
        why: str, verdict: str, used: dict[str, set[str]], scope: frozenset[str]) -> None:
    assert unused_scope({RULE: scope}, {RULE: verdict}, used) == {}, why


def test_the_terminal_says_which_elements_and_where_to_remove_them() -> None:
    assert unused_scope_lines({}, "x.toml") == []
    assert unused_scope_lines({RULE: ["neg", "x + y"], OTHER: ["cat"]}, "x.toml") == [
        f"unused scope of {RULE} (excused no divergence): neg, x + y",
        f"unused scope of {OTHER} (excused no divergence): cat",
        "WARNING: 3 scope elements of 2 expected-failure entries excused nothing; remove them "
        "from the functions of x.toml"]


#: Two tests whose divergences of RULE are excused where they show (add, then neg), as the
#: suite's own tests excuse theirs: through the run's excusals, saying which rules they excused.
TOY = f'''
import pytest

@pytest.mark.rule("{RULE}")
@pytest.mark.parametrize("func", ["add", "neg"])
def test_excused_where_it_shows(func, excused, record_property):
    assert excused.covers(["{RULE}"], [func])
    record_property("excused_rules", "{RULE}")
    pytest.fail(f"{RULE} broken in {{func}}")
'''

EXPECTED = f'''
[{RULE}]
reason = "tries types twice"
functions = ["add", "neg", "cat", "outside compile"]
'''


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["one process", "two workers"])
def test_the_certificate_lists_the_elements_no_test_used(pytester: pytest.Pytester,
                                                          workers: tuple[str, ...]) -> None:
    pytester.makepyfile(test_toy=TOY)
    pytester.makefile(".toml", expected=EXPECTED)
    result = run(pytester, "--impl", "reference_impl", "--expected-failures", "expected.toml",
                 *workers)
    result.assert_outcomes(xfailed=2)
    result.stdout.fnmatch_lines([
        f"unused scope of {RULE} (excused no divergence): cat, outside compile",
        "WARNING: 2 scope elements of 1 expected-failure entry excused nothing; remove them "
        "from the functions of expected.toml"])
    cert = certificate(pytester)
    assert cert["unused_scope"] == {RULE: ["cat", "outside compile"]}
    assert cert["rules"][RULE]["verdict"] == "expected_failure"
    assert cert["stale_expected_failures"] == []


CERTIFICATES = sorted((Path(__file__).resolve().parents[1] / "docs" / "certificates").glob("*.json"))


@pytest.mark.parametrize("path", CERTIFICATES, ids=[p.stem for p in CERTIFICATES])
def test_a_committed_certificate_has_no_stale_entry_and_no_unused_scope(path: Path) -> None:
    # Certificates of schema 7 and before did not record which scope elements were used.
    document = json.loads(path.read_text(encoding="utf-8"))
    assert document["stale_expected_failures"] == []
    assert document.get("unused_scope", {}) == {}
