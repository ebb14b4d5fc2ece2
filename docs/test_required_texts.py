"""Every required text renders exactly, on the page of the rule that requires it and on the page
of all texts: the same characters, spaces, backticks and line breaks included.

A reader writes their implementation's messages from these pages, so a text the HTML folds (two
spaces after a full stop become one) or marks up (a backtick taken for code) is a wrong
requirement. The comparison is with the element's text as a reader copies it; the style sheet
must keep it unfolded on screen too.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from htmlpage import Element, parse

from spec.catalogue import load_catalogue
from spec.texts import Entry, Kind, load_texts

TABLE = load_texts()
CATALOGUE = load_catalogue()
TEXTS = [(kind, entry) for kind in TABLE.kinds.values() for entry in kind.entries
         if entry.text is not None]


def _id(item: tuple[Kind, Entry]) -> str:
    kind, entry = item
    return f"{kind.name}@{entry.releases[0]}"


def shown(section: Element) -> list[str]:
    return [code.text() for code in section.by_class("tfm-text", "code")]


@pytest.fixture(scope="module")
def rule_page(html: Path) -> Element:
    return parse(html / "rules" / "text.html")


@pytest.fixture(scope="module")
def texts_page(html: Path) -> Element:
    return parse(html / "texts.html")


@pytest.mark.parametrize("item", TEXTS, ids=_id)
def test_the_rule_page_shows_the_text_exactly(rule_page: Element, item: tuple[Kind, Entry]) -> None:
    kind, entry = item
    section = rule_page.by_id(kind.rule)
    assert entry.text in shown(section), (
        f"{kind.rule}'s section does not show the {kind.name} text of {entry.releases[0]} "
        f"exactly: {entry.text!r} not among {shown(section)!r}")


@pytest.mark.parametrize("item", TEXTS, ids=_id)
def test_the_texts_page_shows_the_text_exactly(texts_page: Element, item: tuple[Kind, Entry]) -> None:
    kind, entry = item
    assert entry.text in shown(texts_page.by_id(f"text-{kind.name}"))


def test_each_text_rule_shows_its_texts_and_no_other(rule_page: Element) -> None:
    for rule in CATALOGUE.rules:
        if rule.area != "TEXT":
            continue
        expected = sorted(e.text for k in TABLE.kinds.values() if k.rule == rule.id
                          for e in k.entries if e.text is not None)
        assert sorted(shown(rule_page.by_id(rule.id))) == expected, rule.id


def test_a_rule_naming_texts_shows_each_of_them_exactly(html: Path) -> None:
    # a rule of another area whose error's text the TEXT rules fix (``texts``): the NOTIMPL
    # rules show the 'no implementation found' and the 'Multiple dispatch failed' forms
    named = [rule for rule in CATALOGUE.rules if rule.texts]
    assert {"TFM_NOTIMPL_002", "TFM_NOTIMPL_003"} <= {rule.id for rule in named}
    for rule in named:
        section = parse(html / "rules" / f"{rule.area.lower()}.html").by_id(rule.id)
        expected = sorted(TABLE.every_text(*rule.texts))
        assert sorted(set(shown(section))) == expected, rule.id
        assert "The error's texts" in section.text(), rule.id


def test_the_tricky_texts_are_among_them() -> None:
    # The checks above would pass vacuously if these were not in the table.
    texts = [entry.text or "" for _, entry in TEXTS]
    assert any(".  Consider using" in t for t in texts)
    assert any(t.count("`") == 1 for t in texts)
    assert any(t.startswith("  ") and t.endswith("\n") for t in texts)


def test_the_style_sheet_keeps_texts_and_runs_of_spaces_unfolded(html: Path) -> None:
    css = (html / "_static" / "tfm.css").read_text(encoding="utf-8")
    assert re.search(r"code\.tfm-text\s*\{[^}]*white-space:\s*pre-wrap", css)
    assert re.search(r"\.tfm-ws\s*\{[^}]*white-space:\s*pre\b", css)


def test_quoted_messages_in_evidence_keep_their_spaces(html: Path) -> None:
    # Evidence quotes the source of some texts; its runs of spaces are shown as written.
    noted = [(rule, e.note) for rule in CATALOGUE.rules for e in rule.evidence
             if "  " in e.note and "`" not in e.note]
    assert noted
    pages: dict[str, Element] = {}
    for rule, note in noted:
        page = pages.setdefault(rule.area, parse(html / "rules" / f"{rule.area.lower()}.html"))
        section = page.by_id(rule.id)
        assert note in section.text(), (rule.id, note)
        assert any("  " in ws.text() for ws in section.by_class("tfm-ws")), rule.id
