"""The exhaustive part of a run, from the command line: a certification checks the default
scope whole and its certificate says so; a declared scope finds a mutant's bug and names the
scenario; a bad scope or one with --compile is refused in one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.exhaustive.enumeration import scenarios
from conformance.exhaustive.scope import DEFAULTS, parse_scope
from tests.quality.cli import certification, clean_run, run_suite


def test_a_certification_checks_the_default_scope_whole(tmp_path_factory: pytest.TempPathFactory) -> None:
    run = certification(tmp_path_factory)
    assert run.certificate is not None, run.tail()
    entry = run.certificate["run"]["exhaustive"]
    declared = frozenset(run.certificate["implementation"]["features"])
    expected = sum(1 for _ in scenarios(DEFAULTS["2022"], "2022", declared))
    assert entry["scope"] == "default" and entry["bounds"] == DEFAULTS["2022"].describe()
    assert entry["complete"] and entry["scenarios"] == expected >= 50_000, entry
    assert run.certificate["evidence"]["invocation"]["exhaustive"] is None
    assert run.certificate["level"]["reached"] != "none", run.tail()
    assert f"exhaustive scope default ({entry['bounds']}): {expected} scenarios checked" in run.output


def test_a_run_without_a_scope_has_no_exhaustive_part_and_is_whole(
        tmp_path_factory: pytest.TempPathFactory) -> None:
    run = clean_run(tmp_path_factory)  # a seeded triage run, made once per session
    assert run.certificate is not None, run.tail()
    assert "exhaustive" not in run.certificate["run"]
    assert run.certificate["run"]["selection"]["partial"] is False, run.certificate["run"]["selection"]
    assert not any("test_exhaustive" in test for rule in run.certificate["rules"].values()
                   for test in rule.get("tests", []))


def test_a_declared_scope_fails_the_rule_a_mutant_breaks(tmp_path: Path) -> None:
    bounds = "modes=0,classes=1,setup=0,functions=add"
    run = run_suite("tests.mutants.add_replaces_other", tmp_path,
                    ("--exhaustive", bounds, "-k", "exhaustive"), seed=None, profile="triage")
    assert run.certificate is not None, run.tail()
    entry = run.certificate["run"]["exhaustive"]
    declared = frozenset(run.certificate["implementation"]["features"])
    count = sum(1 for _ in scenarios(parse_scope(bounds, "2022"), "2022", declared))
    assert entry["complete"] and entry["scenarios"] == count, entry
    failed = run.failed()
    assert failed, run.tail()
    assert "enumerated scenario of chunk" in run.why(failed[0])


@pytest.mark.parametrize(("extra", "says"), [
    (("--exhaustive", "modes=9"), "ERROR: --exhaustive: modes must be a whole number from 0 to 3"),
    (("--exhaustive", "huge"), "ERROR: --exhaustive: 'huge' is not KEY=VALUE"),
    (("--exhaustive", "default", "--compile"), "ERROR: --exhaustive cannot be combined with --compile"),
])
def test_a_bad_scope_is_refused_in_one_line(tmp_path: Path, extra: tuple[str, ...], says: str) -> None:
    run = run_suite("reference_impl", tmp_path, extra, seed=None, profile="triage")
    errors = [line for line in run.output.splitlines() if line.startswith("ERROR")]
    assert run.returncode == 4 and len(errors) == 1 and errors[0].startswith(says), run.tail()
    assert run.certificate is None
