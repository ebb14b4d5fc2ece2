"""The certificate: verdict aggregation, its JSON Schema, and atomic writes."""

from __future__ import annotations

import copy
import importlib.metadata
import json
import os
from pathlib import Path
from typing import Any

import pytest

from conformance.report.certificate import (
    CERTIFICATE_SCHEMA,
    SCHEMA_VERSION,
    build_certificate,
    dumps,
    validate_certificate,
    write_atomically,
)
from conformance.report.headline import badge, headline, level_line
from conformance.report.verdicts import (
    Failure,
    TestOutcome,
    aggregate,
    level_reached,
    normalise,
    rule_entries,
    summary,
)
from conformance.session.observed import Observed, hypothesis_section
from spec.catalogue import load_catalogue

CATALOGUE = load_catalogue()
BOTH = [r.id for r in CATALOGUE if r.generations == ("2022", "stack") and r.level == "MUST"]
ONLY_2022 = next(r.id for r in CATALOGUE if r.generations == ("2022",))
SHOULD = next(r.id for r in CATALOGUE if r.level == "SHOULD")
CERTIFY = Observed("certify", 1000, True, False, None)


def outcome(nodeid: str, rules: tuple[str, ...], status: str, failed: tuple[str, ...] = (),
            features: tuple[str, ...] = ()) -> TestOutcome:
    failure = Failure(nodeid, "AssertionError") if status == "failed" else None
    return TestOutcome(nodeid, rules, features, status, failed or rules, failure)  # type: ignore[arg-type]


def test_aggregation() -> None:
    a, b, c, d, e = BOTH[:5]
    outcomes = [
        outcome("t::pass", (a,), "passed"),
        outcome("t::narrowed", (a, b), "failed", failed=(b,)),
        outcome("t::one_of_two_fails_1", (c,), "passed"),
        outcome("t::one_of_two_fails_2", (c,), "failed"),
        outcome("t::na", (d,), "not_applicable"),
        outcome("t::skipped", (e,), "skipped"),
        outcome("t::expected", (ONLY_2022,), "failed"),
    ]
    v = aggregate(CATALOGUE, "2022", outcomes, {ONLY_2022: "known"})
    assert {k: x.verdict for k, x in v.items() if x.tests} == {
        a: "pass", b: "fail", c: "fail", d: "not_applicable", e: "untested",
        ONLY_2022: "expected_failure"}
    assert v[a].tests == ["t::narrowed", "t::pass"]
    assert [f.test for f in v[c].failures] == ["t::one_of_two_fails_2"]
    assert v[a].failures == []
    assert v[ONLY_2022].expected_failure_reason == "known"
    stack = aggregate(CATALOGUE, "stack", outcomes, {})
    assert stack[ONLY_2022].verdict == "not_applicable"  # whatever its tests did
    counts = summary(v)
    assert sum(counts.values()) == len(CATALOGUE)
    assert counts["untested"] == len(CATALOGUE) - 5 - (len(CATALOGUE) - len(
        CATALOGUE.for_generation("2022")))


def all_pass(generation: str = "2022") -> list[TestOutcome]:
    return [outcome(f"t::{r.id}", (r.id,), "passed", features=("raw-slot",) if r.id == ONLY_2022
                    else ()) for r in CATALOGUE.for_generation(generation)]


def test_levels_and_badges() -> None:
    v = aggregate(CATALOGUE, "2022", all_pass(), {})
    features = {"raw-slot": {ONLY_2022}, "subclass-as-mode": set()}
    level = level_reached(v, {"raw-slot", "subclass-as-mode"}, features)
    assert level == {"reached": "SHOULD", "features": ["raw-slot"]}
    must = sum(r.level in ("MUST", "MUST NOT") for r in CATALOGUE.for_generation("2022"))
    assert badge(v, level) == {"schemaVersion": 1, "label": "tfmode conformance",
                               "message": f"MUST {must}/{must}", "color": "brightgreen"}

    failing_should = [o if o.rules != (SHOULD,) else outcome("t::s", (SHOULD,), "failed")
                      for o in all_pass()]
    v = aggregate(CATALOGUE, "2022", failing_should, {})
    level = level_reached(v, {"raw-slot"}, features)
    assert level == {"reached": "MUST", "features": ["raw-slot"]}
    assert badge(v, level)["color"] == "green"

    failing_must = [o if o.rules != (BOTH[0],) else outcome("t::m", (BOTH[0],), "failed")
                    for o in all_pass()]
    v = aggregate(CATALOGUE, "2022", failing_must, {})
    level = level_reached(v, {"raw-slot"}, features)
    assert level == {"reached": "none", "features": []}
    assert badge(v, level) == {"schemaVersion": 1, "label": "tfmode conformance",
                               "message": "fails 1 MUST", "color": "red"}

    assert headline(v) == f"MUST {must - 1}/{must}: 0 expected failures, 1 unexpected"
    assert level_line(v, level, {"raw-slot"}) == (
        "level reached: none (1 MUST rule not met: 1 unexpected); optional features declared: "
        "raw-slot; met: none (a feature is met once MUST is reached)")

    # The same failure excused: not met, yet not red, and the lines say it was expected.
    v = aggregate(CATALOGUE, "2022", failing_must, {BOTH[0]: "a known divergence"})
    level = level_reached(v, {"raw-slot"}, features)
    assert level == {"reached": "none", "features": []}
    assert badge(v, level) == {"schemaVersion": 1, "label": "tfmode conformance",
                               "message": f"MUST {must - 1}/{must}, 1 expected", "color": "yellowgreen"}
    assert headline(v) == f"MUST {must - 1}/{must}: 1 expected failure (listed below), 0 unexpected"
    assert level_line(v, level, ()).startswith("level reached: none (1 MUST rule not met: 1 expected);")

    untested = [o for o in all_pass() if o.rules != (BOTH[0],)]
    v = aggregate(CATALOGUE, "2022", untested, {})
    level = level_reached(v, set(), {})
    assert level["reached"] == "none"
    assert badge(v, level) == {"schemaVersion": 1, "label": "tfmode conformance",
                               "message": f"MUST {must - 1}/{must}", "color": "yellow"}


def test_messages_are_stable_and_short() -> None:
    assert normalise("E <M object at 0x7f3a9c0d1e20> here\n") == "E <M object at 0x…> here"
    long = "\n".join(f"line {i}" for i in range(50))
    assert normalise(long).splitlines() == [f"line {i}" for i in range(40)] + ["… (10 more lines)"]
    assert len(normalise("x" * 9000)) == 6000
    # Cut between whole lines, never inside one that fits: the lines kept are intact.
    wide = "\n".join(f"{i} " + "y" * 998 for i in range(10))
    kept = normalise(wide).splitlines()
    assert kept[:-1] == wide.splitlines()[:5] and kept[-1] == "… (5 more lines)"


def sample() -> dict[str, Any]:
    outcomes = all_pass()
    outcomes[0] = TestOutcome("t::f", outcomes[0].rules, (), "failed", outcomes[0].rules,
                              Failure("t::f", "boom", {"generation": "2022"}, "print(1)", 7))
    v = aggregate(CATALOGUE, "2022", outcomes, {})
    level = level_reached(v, {"raw-slot"}, {})
    return build_certificate(
        catalogue=CATALOGUE,
        implementation={"name": "reference_impl", "version": "0.1", "generation": "2022",
                        "features": ["raw-slot", "python-path"]},
        hypothesis_settings=hypothesis_section(CERTIFY, {"t::f": CERTIFY}),
        run={"complete": True, "selected_tests": 186, "reported_tests": 186, "problems": []},
        certify=True, level=level, summary=summary(v), rules=rule_entries(v), stale=[],
        generated_at="2026-01-01T00:00:00+00:00")


def test_a_built_certificate_is_valid() -> None:
    doc = sample()
    assert validate_certificate(doc) == []
    assert validate_certificate(json.loads(dumps(doc))) == []
    assert doc["implementation"]["features"] == ["python-path", "raw-slot"]
    assert doc["spec_version"]["rules"] == len(CATALOGUE)
    assert doc["rules"][BOTH[0]]["failures"] == [
        {"test": "t::f", "message": "boom", "scenario": {"generation": "2022"},
         "snippet": "print(1)", "examples": 7}]


def test_the_environment_says_which_numpy_is_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    def version(name: str) -> str:
        if name == "numpy":
            return "9.9.9"
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", version)
    assert sample()["environment"]["numpy"] == "9.9.9"

    def missing(name: str) -> str:
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    doc = sample()
    assert doc["environment"]["numpy"] is None
    assert validate_certificate(doc) == []


def test_rule_entries_carry_no_times() -> None:
    text = json.dumps(sample()["rules"])
    for word in ("time", "duration", "generated_at", "seconds"):
        assert word not in text


@pytest.mark.parametrize(("change", "problem"), [
    (lambda d: d.pop("level"), "$.level: missing"),
    (lambda d: d.update(extra=1), "$.extra: unknown field"),
    (lambda d: d.update(certify="yes"), "$.certify: expected boolean, got str"),
    (lambda d: d["summary"].update({"pass": -1}), "$.summary.pass: -1 is below 0"),
    (lambda d: d["rules"].update(TFM_BAD=d["rules"][BOTH[0]]),
     "$.rules key 'TFM_BAD': 'TFM_BAD' does not match"),
    (lambda d: d["rules"][BOTH[0]].update(verdict="great"), f"$.rules.{BOTH[0]}.verdict: 'great' is not"),
    (lambda d: d["rules"][BOTH[0]]["failures"][0].pop("message"), "message: missing"),
    (lambda d: d["hypothesis"].update(seed=3), "$.hypothesis.seed: expected string or null"),
    (lambda d: d["hypothesis"].update(max_examples=0), "$.hypothesis.max_examples: 0 is below 1"),
    (lambda d: d["hypothesis"]["requested"].pop("profile"), "$.hypothesis.requested.profile: missing"),
    (lambda d: d.update(schema_version=1), "$.schema_version: 1 is not one of [2, 3, 4, 5, 6, 7, 8]"),
    (lambda d: d.pop("evidence"), "$.evidence: missing"),
])
def test_the_validator_finds_problems(change: Any, problem: str) -> None:
    doc = copy.deepcopy(sample())
    change(doc)
    errors = validate_certificate(doc)
    assert any(problem in e for e in errors), errors


def test_the_schema_is_documented() -> None:
    assert CERTIFICATE_SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert CERTIFICATE_SCHEMA["description"]
    # every field is required; evidence, surface, unused_scope in today's schema (older: still read)
    required = {*CERTIFICATE_SCHEMA["required"], *CERTIFICATE_SCHEMA["then"]["required"]}
    assert required == set(CERTIFICATE_SCHEMA["properties"])
    json.dumps(CERTIFICATE_SCHEMA)  # plain JSON, publishable as is


def test_write_atomically(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "certificate.json"
    write_atomically(target, "one\n")
    write_atomically(target, "two\n")
    assert target.read_text() == "two\n"
    assert os.listdir(target.parent) == ["certificate.json"]
    assert target.stat().st_mode & 0o044 == 0o044  # readable by others


class _HalfWriter:
    """A file whose write puts half the text down and then the process is interrupted."""

    def __init__(self, handle: Any) -> None:
        self.handle = handle

    def __enter__(self) -> _HalfWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.handle.close()

    def write(self, text: str) -> None:
        self.handle.write(text[: len(text) // 2])
        self.handle.flush()
        raise KeyboardInterrupt


@pytest.mark.parametrize("where", ["write", "fsync", "replace"])
def test_a_crash_leaves_the_old_file_and_no_temporary(tmp_path: Path, where: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "certificate.json"
    target.write_text("old\n")
    if where == "write":
        real = os.fdopen
        monkeypatch.setattr(os, "fdopen",
                            lambda fd, *a, **k: _HalfWriter(real(fd, *a, **k)))
        expected: type[BaseException] = KeyboardInterrupt
    else:
        def crash(*args: object) -> None:
            raise OSError(f"{where} failed")

        monkeypatch.setattr(os, where, crash)
        expected = OSError
    with pytest.raises(expected):
        write_atomically(target, "a new certificate\n")
    monkeypatch.undo()
    assert target.read_text() == "old\n"
    assert os.listdir(tmp_path) == ["certificate.json"]


def test_a_failure_counts_against_the_rules_it_is_attributed_to_marked_or_not() -> None:
    a, b, c = BOTH[:3]
    outcomes = [
        outcome("t::about_a", (a,), "failed", failed=(c,)),  # exposes a fault of rule c
        outcome("t::a_passes", (a,), "passed"),
        outcome("t::c_passes", (c,), "passed"),
        outcome("t::b_unattributed", (b,), "failed"),
    ]
    v = aggregate(CATALOGUE, "2022", outcomes, {})
    assert (v[a].verdict, v[b].verdict, v[c].verdict) == ("pass", "fail", "fail")
    assert [f.test for f in v[c].failures] == ["t::about_a"]
    assert v[c].tests == ["t::about_a", "t::c_passes"]
    assert v[a].failures == []
    again = TestOutcome.from_json(outcomes[0].to_json())  # as pytest-xdist carries it
    assert again == outcomes[0]
    assert aggregate(CATALOGUE, "2022", [again], {})[c].verdict == "fail"


def _documented_example() -> dict[str, object]:
    text = (Path(__file__).resolve().parents[1] / "docs" / "certificate.rst").read_text(encoding="utf-8")
    block = text.split(".. tfm-certificate-example::\n", 1)[1].split("\n(The documentation build", 1)[0]
    loaded: dict[str, object] = json.loads(block)
    return loaded


def test_the_documented_example_is_of_today_s_schema_and_rules() -> None:
    example = _documented_example()
    assert validate_certificate(example) == []
    assert example["schema_version"] == SCHEMA_VERSION
    spec_version = example["spec_version"]
    assert isinstance(spec_version, dict) and spec_version["rules"] == len(CATALOGUE)


def test_reference_impl_s_committed_certificate_is_of_today_s_schema_and_rules() -> None:
    path = Path(__file__).resolve().parents[1] / "docs" / "certificates" / "reference_impl.json"
    committed = json.loads(path.read_text(encoding="utf-8"))
    assert committed["schema_version"] == SCHEMA_VERSION
    assert committed["spec_version"]["rules"] == len(CATALOGUE)
    assert committed["certify"] is True and committed["level"]["reached"] == "SHOULD"
    # The default exhaustive scope enumerated whole (a run made under load can run out of its
    # chunks' time limit and record less: that certificate is not the one to commit).
    exhaustive = committed["run"]["exhaustive"]
    assert exhaustive["scope"] == "default" and exhaustive["complete"] is True
    assert exhaustive["scenarios"] + exhaustive["unspecified"] >= 50_000
