"""A rule whose error's text another area fixes (``texts`` in its TOML: kinds of
``spec/texts.toml``) names kinds that exist, and they give its error a text in every release
of every generation the rule holds for: its page then shows the text of both generations, not
only the 2022 text its first example prints (the NOTIMPL rules whose handlers all decline).
docs/test_required_texts.py checks the built page shows each of them exactly."""

from __future__ import annotations

from pathlib import Path

import pytest

from spec.catalogue import Rule, load_catalogue
from spec.texts import load_texts
from tests.test_catalogue_loader import _area, _error, _rule, _write

CATALOGUE = load_catalogue()
TABLE = load_texts()
WITH_TEXTS = [rule for rule in CATALOGUE if rule.texts]
#: The releases of the table in each generation (the 2022 design's: the PR and torch 1.12).
GENERATION_RELEASES = {"2022": ("pr75154", "1.12"),
                       "stack": tuple(r for r in TABLE.releases if r not in ("pr75154", "1.12"))}


def _releases(rule: Rule) -> list[str]:
    """The releases of the table that ``rule`` holds for."""
    found = []
    for generation in rule.generations:
        for release in GENERATION_RELEASES[generation]:
            version = "1.13" if release == "1.13" else "2.x"
            if rule.applies_to(generation, None if generation == "2022" else version):
                found.append(release)
    return found


def test_the_notimpl_rules_whose_handlers_all_decline_name_their_texts() -> None:
    for rule_id in ("TFM_NOTIMPL_002", "TFM_NOTIMPL_003"):
        assert CATALOGUE.by_id(rule_id).texts, rule_id
    assert GENERATION_RELEASES["stack"][0] == "1.13" and "2.13" in GENERATION_RELEASES["stack"]


@pytest.mark.parametrize("rule", WITH_TEXTS, ids=lambda r: r.id)
def test_each_kind_named_exists(rule: Rule) -> None:
    unknown = [name for name in rule.texts if name not in TABLE.kinds]
    assert not unknown, f"{rule.id}: texts names no kind of spec/texts.toml: {unknown}"


@pytest.mark.parametrize("rule", WITH_TEXTS, ids=lambda r: r.id)
def test_the_kinds_give_a_text_in_every_release_the_rule_holds_for(rule: Rule) -> None:
    releases = _releases(rule)
    assert releases
    missing = [r for r in releases
               if not any(TABLE.status(kind, r) == "text" for kind in rule.texts)]
    assert not missing, f"{rule.id}: no text of {rule.texts} in {missing}"


def test_the_notimpl_pages_show_both_forms_of_the_native_text() -> None:
    # both generations: the 'no implementation found' form (1.12 to 2.0) and the 'Multiple
    # dispatch failed' form (2.1 and later)
    for rule_id in ("TFM_NOTIMPL_002", "TFM_NOTIMPL_003"):
        texts = TABLE.every_text(*CATALOGUE.by_id(rule_id).texts)
        assert any(t.startswith("no implementation found for '{func}'") for t in texts), rule_id
        assert any(t.startswith("Multiple dispatch failed for '{func}'") for t in texts), rule_id


@pytest.mark.parametrize(("value", "expected"), [
    ('"no-implementation-native"', "field 'texts': expected array, got string"),
    ("[]", "field 'texts': expected at least 1 item(s), got 0"),
    ('["No Such Kind"]', "field 'texts[0]': 'No Such Kind' does not match pattern"),
])
def test_a_malformed_texts_field_is_refused(tmp_path: Path, value: str, expected: str) -> None:
    _write(tmp_path, _area(_rule(texts=value)))
    assert f"rule TFM_DEMO_001: {expected}" in _error(tmp_path)


def test_a_texts_field_loads(tmp_path: Path) -> None:
    _write(tmp_path, _area(_rule(texts='["empty-stack", "missing-inner"]')))
    assert load_catalogue(tmp_path).by_id("TFM_DEMO_001").texts == ("empty-stack", "missing-inner")
