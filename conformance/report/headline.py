"""What a run says of its verdicts: the headline, the badge, the level line and the table.

Every line keeps unexpected failures apart from expected ones, and says the same as the
certificate (its ``summary``, ``level`` and ``implementation.features``).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from spec.catalogue import Rule

from .verdicts import _SHORT, MUST_LEVELS, SHOULD_LEVELS, VERDICTS, RuleVerdict

__all__ = ["Counts", "badge", "certificate_verdicts", "counts", "from_certificate", "headline",
           "level_line", "run_line", "terminal_lines"]


@dataclass(frozen=True)
class Counts:
    """How the applicable rules of some levels fared: ``unexpected`` fail, ``expected`` fail as
    an expected failure excuses, ``untested`` had no test that ran."""

    passed: int
    unexpected: int
    expected: int
    untested: int
    total: int

    @property
    def failed(self) -> int:
        return self.unexpected + self.expected


def counts(verdicts: Mapping[str, RuleVerdict], levels: Collection[str] = MUST_LEVELS) -> Counts:
    """The counts of the rules of ``levels`` that apply (MUST and MUST NOT by default)."""
    rules = [v for v in verdicts.values() if v.rule.level in levels and v.verdict != "not_applicable"]
    return Counts(sum(v.verdict == "pass" for v in rules), sum(v.verdict == "fail" for v in rules),
                  sum(v.verdict == "expected_failure" for v in rules),
                  sum(v.verdict == "untested" for v in rules), len(rules))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def headline(verdicts: Mapping[str, RuleVerdict]) -> str:
    """One line that keeps unexpected failures apart from expected ones:
    ``MUST 61/65: 4 expected failures (listed below), 0 unexpected``."""
    c = counts(verdicts)
    unselected = sum(v.verdict == "not_selected" for v in verdicts.values()
                     if v.rule.level in MUST_LEVELS)
    parts = [f"{_plural(c.expected, 'expected failure')}{' (listed below)' if c.expected else ''}",
             f"{c.unexpected} unexpected"]
    if c.untested:
        parts.append(f"{c.untested} untested")
    if unselected:
        parts.append(f"{unselected} not selected")
    uncompiled = sum(v.verdict == "not_compiled" for v in verdicts.values()
                     if v.rule.level in MUST_LEVELS)
    if uncompiled:
        parts.append(f"{uncompiled} not compiled")
    return f"MUST {c.passed}/{c.total - unselected}: {', '.join(parts)}"


def badge(verdicts: Mapping[str, RuleVerdict], level: Mapping[str, Any]) -> dict[str, Any]:
    """A shields.io endpoint document, coloured by unexpected failures: ``fails 3 MUST`` (red)
    when some MUST rule fails unexpectedly; ``MUST 61/65, 4 expected`` (yellowgreen: no level
    is reached) when the only MUST failures are expected ones; ``MUST 81/81`` otherwise
    (yellow with untested rules); for a partial run ``partial: MUST 7/7`` (of the MUST rules
    whose every test ran)."""
    c = counts(verdicts)
    unselected = sum(v.verdict == "not_selected" for v in verdicts.values()
                     if v.rule.level in MUST_LEVELS)
    if unselected and not c.failed:
        return {"schemaVersion": 1, "label": "tfmode conformance",
                "message": f"partial: MUST {c.passed}/{c.total - unselected}",
                "color": "lightgrey"}
    if c.unexpected:
        expected = f", {c.expected} expected" if c.expected else ""
        message, color = f"fails {c.unexpected} MUST{expected}", "red"
    elif c.expected:
        message, color = f"MUST {c.passed}/{c.total}, {c.expected} expected", "yellowgreen"
    else:
        message = f"MUST {c.passed}/{c.total}"
        color = "yellow" if c.untested else ("brightgreen" if level["reached"] == "SHOULD" else "green")
    return {"schemaVersion": 1, "label": "tfmode conformance", "message": message, "color": color}


def run_line(implementation: Mapping[str, Any], verdicts: Mapping[str, RuleVerdict],
             shield: Mapping[str, Any], incomplete: bool, partial: bool) -> str:
    """The terminal's line naming the implementation: the headline, or for an incomplete or a
    partial run the badge's message (``torch 2.13.0+cpu (generation stack): MUST 65/77: ...``)."""
    head = shield["message"] if incomplete or partial else headline(verdicts)
    return (f"{implementation['name']} {implementation['version']} "
            f"(generation {implementation['generation']}): {head}")


def certificate_verdicts(certificate: Mapping[str, Any]) -> dict[str, RuleVerdict]:
    """The rules' verdicts as ``certificate`` records them, each with its rule's level,
    generations and title: what the lines and the badge of this module read."""
    return {
        rule_id: RuleVerdict(Rule(id=rule_id, area=rule_id.split("_")[1], level=entry["level"],
                                  generations=tuple(entry["generations"]), title=entry["title"],
                                  statement="", rationale="", evidence=(), example=""),
                             entry["verdict"])
        for rule_id, entry in certificate["rules"].items()}


def from_certificate(certificate: Mapping[str, Any]) -> tuple[str, dict[str, Any]]:
    """The line naming the implementation (:func:`run_line`) and the badge that the run which
    wrote ``certificate`` printed and wrote, from the certificate alone: its rules' levels and
    verdicts, its level, and whether the run was complete and partial."""
    verdicts = certificate_verdicts(certificate)
    run = certificate["run"]
    shield = badge(verdicts, certificate["level"])
    if run["problems"]:
        shield = {**shield, "message": "incomplete run", "color": "red"}
    partial = run.get("selection", {}).get("partial", False)  # no selection before schema 3
    line = run_line(certificate["implementation"], verdicts, shield, bool(run["problems"]), partial)
    return line, shield


def level_line(verdicts: Mapping[str, RuleVerdict], level: Mapping[str, Any],
               declared: Iterable[str]) -> str:
    """The level reached, why not higher, and the optional features declared and met (the
    certificate's ``level`` and ``implementation.features``)."""
    line = f"level reached: {level['reached']}"
    if level["reached"] == "none":
        c = counts(verdicts)
        why = [f"{c.expected} expected" if c.expected else "", f"{c.unexpected} unexpected"
               if c.unexpected else "", f"{c.untested} untested" if c.untested else ""]
        shown = ", ".join(w for w in why if w)
        if shown:
            line += f" ({_plural(c.failed + c.untested, 'MUST rule')} not met: {shown})"
        elif any(v.verdict == "not_selected" for v in verdicts.values()):
            line += " (a partial run reaches no level)"
        else:
            line += " (the run is incomplete)"
    elif level["reached"] == "MUST":
        c = counts(verdicts, SHOULD_LEVELS)
        line += f" (SHOULD {c.passed}/{c.total})"
    names = sorted(declared)
    met = ", ".join(level["features"]) or ("none" if level["reached"] != "none"
                                          else "none (a feature is met once MUST is reached)")
    return f"{line}; optional features declared: {', '.join(names) or 'none'}; met: {met}"


def terminal_lines(verdicts: Mapping[str, RuleVerdict], level: Mapping[str, Any],
                   stale: Sequence[str], expected_path: str | None,
                   declared: Iterable[str] = ()) -> list[str]:
    """The compact table: one row per area with counts, then one line per non-passing rule."""
    areas: dict[str, dict[str, int]] = {}
    for v in verdicts.values():
        row = areas.setdefault(v.rule.area, dict.fromkeys(VERDICTS, 0))
        row[v.verdict] += 1
    head = f"{'area':<10}" + "".join(f"{_SHORT[x]:>10}" for x in VERDICTS)
    lines = [head]
    totals = dict.fromkeys(VERDICTS, 0)
    for area, row in areas.items():
        lines.append(f"{area:<10}" + "".join(f"{row[x]:>10}" for x in VERDICTS))
        for x in VERDICTS:
            totals[x] += row[x]
    lines.append(f"{'total':<10}" + "".join(f"{totals[x]:>10}" for x in VERDICTS))
    lines.append("(xfail: an expected failure; n/a: not applicable to the generation; not sel.: "
                 "not selected, its tests left out by --rules or -k; not comp.: not compiled, "
                 "Dynamo compiled none of its tests under --compile)")
    for rule_id, v in verdicts.items():
        if v.verdict in ("pass", "not_applicable", "not_selected"):
            continue
        detail = ""
        if v.failures:
            detail = f" ({len(v.failures)} failing test{'s' if len(v.failures) > 1 else ''})"
        if v.expected_failure_reason:
            detail += f" expected: {v.expected_failure_reason}"
        if v.note:
            detail += f" ({v.note})"
        lines.append(f"{_SHORT[v.verdict]:>8} {rule_id} [{v.rule.level}] {v.rule.title}{detail}")
    lines.append(level_line(verdicts, level, declared))
    if stale:
        lines.append(f"stale expected failures (their rule did not fail): {', '.join(stale)}")
        lines.append(f"WARNING: {len(stale)} stale expected-failure "
                     f"entr{'ies' if len(stale) > 1 else 'y'}; remove "
                     f"{'them' if len(stale) > 1 else 'it'} from {expected_path}")
    return lines


def unused_scope_lines(unused: Mapping[str, Sequence[str]], expected_path: str | None) -> list[str]:
    """A line per expected failure whose scope names functions (or scope words) that excused
    nothing in this run, then a warning: a scope wider than its divergences would excuse a
    new divergence there silently."""
    if not unused:
        return []
    lines = [f"unused scope of {rule_id} (excused no divergence): {', '.join(elements)}"
             for rule_id, elements in unused.items()]
    count = sum(len(e) for e in unused.values())
    lines.append(f"WARNING: {count} scope element{'s' if count > 1 else ''} of "
                 f"{len(unused)} expected-failure entr{'ies' if len(unused) > 1 else 'y'} "
                 f"excused nothing; remove {'them' if count > 1 else 'it'} from the "
                 f"functions of {expected_path}")
    return lines
