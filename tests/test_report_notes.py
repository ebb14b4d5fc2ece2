"""A verdict that does not explain itself carries a note: the terminal line says why."""

from __future__ import annotations

from conformance.report.headline import terminal_lines
from conformance.report.verdicts import TestOutcome, aggregate, level_reached
from spec.catalogue import load_catalogue

CATALOGUE = load_catalogue()
TEXT_RULE = next(r.id for r in CATALOGUE.for_generation("2022") if r.area == "TEXT")


def test_text_rules_of_an_unknown_release_say_why_they_are_untested() -> None:
    outcome = TestOutcome("t::x", (TEXT_RULE,), status="passed")
    verdicts = aggregate(CATALOGUE, "2022", [outcome], {}, release="0.1.0")
    assert verdicts[TEXT_RULE].verdict == "untested"
    assert "no texts of release '0.1.0'" in str(verdicts[TEXT_RULE].note)
    lines = terminal_lines(verdicts, level_reached(verdicts, (), {}), [], None)
    line = next(x for x in lines if TEXT_RULE in x)
    assert line.startswith("untested") and "__tfmode_release__" in line


def test_a_known_release_needs_no_note() -> None:
    outcome = TestOutcome("t::x", (TEXT_RULE,), status="passed")
    verdicts = aggregate(CATALOGUE, "2022", [outcome], {}, release="pr75154")
    assert verdicts[TEXT_RULE].verdict == "pass" and verdicts[TEXT_RULE].note is None
