"""Per-rule verdicts from per-test outcomes, and the level reached (what the terminal and the
badge say of them: :mod:`conformance.report.headline`)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from spec.catalogue import Catalogue, Rule
from spec.texts import default_release, load_texts, release_key

__all__ = [
    "MUST_LEVELS",
    "SHOULD_LEVELS",
    "VERDICTS",
    "Failure",
    "RuleVerdict",
    "TestOutcome",
    "aggregate",
    "level_reached",
    "narrow",
    "normalise",
    "rule_entries",
    "summary",
]

Verdict = Literal["pass", "fail", "expected_failure", "not_applicable", "untested", "not_selected",
                  "not_compiled"]
#: Every verdict, in the order reports show them.
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "expected_failure", "not_applicable", "untested",
                                 "not_selected", "not_compiled")
#: The verdicts a certificate of schema version 2 (before partial runs) knows.
VERDICTS_V2: tuple[Verdict, ...] = VERDICTS[:5]
MUST_LEVELS = ("MUST", "MUST NOT")
SHOULD_LEVELS = ("SHOULD", "SHOULD NOT")
_SHORT = {"pass": "pass", "fail": "fail", "expected_failure": "xfail", "not_applicable": "n/a",
          "untested": "untested", "not_selected": "not sel.", "not_compiled": "not comp."}
Status = Literal["passed", "failed", "not_applicable", "skipped", "not_compiled"]

_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


def normalise(text: str, max_lines: int = 40, max_chars: int = 6000) -> str:
    """The first lines of a failure message, with object addresses blanked (stable across runs).

    A longer message keeps the whole lines that fit and says how many it leaves out: a
    failure's first difference, which comes first with both values in full, is never cut in
    the middle (only a single line longer than ``max_chars`` is, at its end)."""
    lines = [line.rstrip() for line in _ADDRESS.sub("0x…", text).strip().splitlines()]
    kept: list[str] = []
    size = 0
    for line in lines[:max_lines]:
        if kept and size + len(line) + 1 > max_chars:
            break
        kept.append(line)
        size += len(line) + 1
    out = "\n".join(kept)
    if len(out) > max_chars:
        out = out[: max_chars - 1] + "…"
    if len(kept) < len(lines):
        out += f"\n… ({len(lines) - len(kept)} more lines)"
    return out


@dataclass(frozen=True)
class Failure:
    """One failing test of a rule, with what the test attached to reproduce it."""

    test: str
    message: str
    scenario: Any = None
    snippet: str | None = None
    examples: int | None = None

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"test": self.test, "message": self.message}
        if self.scenario is not None:
            out["scenario"] = self.scenario
        if self.snippet is not None:
            out["snippet"] = self.snippet
        if self.examples is not None:
            out["examples"] = self.examples
        return out


@dataclass
class TestOutcome:
    """What one test did, and which rules a failure concerns.

    ``rules`` are the rules the test is marked with; ``failed_rules`` those its failure is
    attributed to, which need not be among them (an example about one rule can expose a
    mode left current, which fails the rule about restoring it).
    """

    __test__ = False  # not a pytest test class

    nodeid: str
    rules: tuple[str, ...]
    features: tuple[str, ...] = ()
    status: Status = "skipped"
    failed_rules: tuple[str, ...] = ()
    failure: Failure | None = None
    #: Of ``failed_rules``, those an expected failure excused wherever this test saw them
    #: (``None``: the test does not tell; an expected rule's failure is then excused).
    excused_rules: tuple[str, ...] | None = None
    #: how reports name the test (the same whatever folder pytest ran in); "" : ``nodeid``
    shown: str = ""
    #: under --compile, what the test counted of its scenarios (conformance.target.compiled.tally)
    compilation: dict[str, int] | None = None
    #: what the test checked of an exhaustive scope (conformance.exhaustive.report)
    exhaustive: dict[str, Any] | None = None
    #: under --compile, the rules a scenario this test judged compiled exercised (``None``: the
    #: test does not tell); a rule of the test outside them was not compiled here
    compiled_rules: tuple[str, ...] | None = None

    def excused(self, rule_id: str, expected: Mapping[str, str],
                scoped: Collection[str] = ()) -> bool:
        """Whether this test's failure of ``rule_id`` is one the expected failures excuse. A test
        that does not say which rules it excused (``excused_rules`` ``None``) is excused by an
        entry only where the entry is not ``scoped`` (to functions or to the surface sweep): such a
        test cannot tell where its failure shows, so a scope cannot be said to cover it."""
        if rule_id not in expected:
            return False
        if self.excused_rules is None:
            return rule_id not in scoped
        return rule_id in self.excused_rules

    def concerns(self) -> tuple[str, ...]:
        """Every rule this outcome says something about: its own, and those it failed."""
        extra = self.failed_rules if self.status == "failed" else ()
        return tuple(dict.fromkeys((*self.rules, *extra)))

    def status_for(self, rule_id: str) -> Status:
        status = self.status
        if status == "failed" and rule_id not in self.failed_rules:
            status = "passed"  # the failure concerns other rules of this test
        if status == "passed" and self.compiled_rules is not None \
                and rule_id not in self.compiled_rules:
            return "not_compiled"  # no scenario of it ran compiled: nothing of it was judged
        return status

    def to_json(self) -> str:
        """The outcome as a worker sends it to the controller (pytest-xdist)."""
        return json.dumps({"nodeid": self.nodeid, "rules": self.rules, "features": self.features,
                           "status": self.status, "failed_rules": self.failed_rules,
                           "excused_rules": self.excused_rules, "shown": self.shown,
                           "compilation": self.compilation, "exhaustive": self.exhaustive,
                           "compiled_rules": self.compiled_rules,
                           "failure": None if self.failure is None else self.failure.as_dict()})

    @classmethod
    def from_json(cls, text: str) -> TestOutcome:
        data = json.loads(text)
        failure = None if data["failure"] is None else Failure(**data["failure"])
        excused = data.get("excused_rules")
        return cls(data["nodeid"], tuple(data["rules"]), tuple(data["features"]), data["status"],
                   tuple(data["failed_rules"]), failure,
                   None if excused is None else tuple(excused), data.get("shown", ""),
                   data.get("compilation"), data.get("exhaustive"),
                   None if data.get("compiled_rules") is None else tuple(data["compiled_rules"]))


@dataclass
class RuleVerdict:
    """A rule's verdict, the tests that check it and their failures."""

    rule: Rule
    verdict: Verdict
    tests: list[str] = field(default_factory=list)
    failures: list[Failure] = field(default_factory=list)
    expected_failure_reason: str | None = None
    #: why the rule has the verdict it has, where the verdict alone does not say
    note: str | None = None


def _text_status(rule: Rule, generation: str, stack_version: str | None, release: str | None) -> str:
    """For a TEXT rule, whether the release has its texts (``text``), none (``absent``), or
    texts the table does not establish (``unknown``); ``text`` for every other rule."""
    if rule.area != "TEXT":
        return "text"
    key = release_key(release) if release is not None else None
    return load_texts().rule_status(rule.id, key or default_release(generation, stack_version))


def aggregate(catalogue: Catalogue, generation: str, outcomes: Iterable[TestOutcome],
              expected: Mapping[str, str], stack_version: str | None = None,
              release: str | None = None, scoped: Collection[str] = ()) -> dict[str, RuleVerdict]:
    """Every catalogue rule's verdict for an implementation of ``generation`` (and stack version).

    A TEXT rule is not applicable to a release that has none of its texts, and untested (never
    passed) for one whose texts the table does not establish: the model predicts any text there.
    """
    by_rule: dict[str, list[TestOutcome]] = {}
    for outcome in outcomes:
        for rule_id in outcome.concerns():
            by_rule.setdefault(rule_id, []).append(outcome)
    out: dict[str, RuleVerdict] = {}
    for rule in catalogue.rules:
        tests = by_rule.get(rule.id, [])
        statuses = [t.status_for(rule.id) for t in tests]
        failures = [t.failure for t in tests
                    if t.failure is not None and t.status_for(rule.id) == "failed"]
        verdict: Verdict
        texts = _text_status(rule, generation, stack_version, release)
        if not rule.applies_to(generation, stack_version) or texts == "absent":
            verdict = "not_applicable"
        elif texts == "unknown" and "failed" not in statuses:
            verdict = "untested"
        elif "failed" in statuses:
            # Expected only if every failing test's failure of it was excused where it was seen.
            excused = all(t.excused(rule.id, expected, scoped) for t in tests
                          if t.status_for(rule.id) == "failed")
            verdict = "expected_failure" if excused else "fail"
        elif "passed" in statuses:
            verdict = "pass"
        elif statuses and all(s == "not_applicable" for s in statuses):
            verdict = "not_applicable"
        elif "not_compiled" in statuses:
            verdict = "not_compiled"
        else:
            verdict = "untested"
        note = None
        if verdict == "untested" and texts == "unknown":
            shown = release or default_release(generation, stack_version)
            note = (f"the text table has no texts of release {shown!r}: declare the release "
                    "whose texts the implementation shows (__tfmode_release__)")
        out[rule.id] = RuleVerdict(
            rule, verdict, sorted(t.shown or t.nodeid for t in tests),
            sorted(failures, key=lambda f: f.test),
            expected.get(rule.id) if verdict == "expected_failure" else None, note)
    return out


def narrow(verdicts: Mapping[str, RuleVerdict], covers: Callable[[str], bool]) -> None:
    """A partial run: a rule some of whose tests did not run (``covers`` says which do) has no
    verdict but ``not_selected``, unless it failed (a failure stands in any selection) or does
    not apply to the implementation at all."""
    for rule_id, v in verdicts.items():
        if v.verdict in ("pass", "untested") and not covers(rule_id):
            v.verdict = "not_selected"


def summary(verdicts: Mapping[str, RuleVerdict]) -> dict[str, int]:
    """How many rules got each verdict."""
    counts: dict[str, int] = dict.fromkeys(VERDICTS, 0)
    for v in verdicts.values():
        counts[v.verdict] += 1
    return counts


def _all_hold(verdicts: Iterable[RuleVerdict]) -> bool:
    return all(v.verdict in ("pass", "not_applicable") for v in verdicts)


def level_reached(verdicts: Mapping[str, RuleVerdict], declared: Iterable[str],
                  feature_rules: Mapping[str, Iterable[str]]) -> dict[str, Any]:
    """``{"reached": "none" | "MUST" | "SHOULD", "features": [...]}``.

    MUST is reached when every MUST (NOT) rule passes or does not apply; SHOULD when, in
    addition, every SHOULD (NOT) rule does. Once MUST is reached, each declared optional
    feature whose rules (those of the tests marked with it) all pass, one at least, is listed.
    """
    must = [v for v in verdicts.values() if v.rule.level in MUST_LEVELS]
    should = [v for v in verdicts.values() if v.rule.level in SHOULD_LEVELS]
    reached = "none"
    if _all_hold(must):
        reached = "SHOULD" if _all_hold(should) else "MUST"
    features: list[str] = []
    if reached != "none":
        for feature in sorted(declared):
            checked = [verdicts[r] for r in sorted(set(feature_rules.get(feature, ())))
                       if r in verdicts]
            if any(v.verdict == "pass" for v in checked) and _all_hold(checked):
                features.append(feature)
    return {"reached": reached, "features": features}


def rule_entries(verdicts: Mapping[str, RuleVerdict]) -> dict[str, dict[str, Any]]:
    """The certificate's ``rules`` section: no times, no durations (stable for a fixed seed)."""
    out: dict[str, dict[str, Any]] = {}
    for rule_id, v in verdicts.items():
        entry: dict[str, Any] = {
            "level": v.rule.level,
            "generations": list(v.rule.generations),
            "title": v.rule.title,
            "verdict": v.verdict,
            "tests": list(v.tests),
            "failures": [f.as_dict() for f in v.failures],
        }
        if v.expected_failure_reason is not None:
            entry["expected_failure_reason"] = v.expected_failure_reason
        out[rule_id] = entry
    return out
