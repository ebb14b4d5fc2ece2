"""The built HTML has a page for every area and an anchor for every rule of the catalogue.

Run after ``sphinx-build -b html docs docs/_build/html``; ``TFMODE_DOCS_HTML`` points at
another build directory.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from spec.catalogue import Area, Rule, load_catalogue

ROOT = Path(__file__).resolve().parent.parent
HTML = Path(os.environ.get("TFMODE_DOCS_HTML", ROOT / "docs" / "_build" / "html"))
CATALOGUE = load_catalogue(ROOT / "spec" / "rules")


def _page(area: str) -> Path:
    return HTML / "rules" / f"{area.lower()}.html"


@pytest.fixture(scope="module", autouse=True)
def _built() -> None:
    if not (HTML / "index.html").is_file():
        pytest.fail(f"no HTML build in {HTML}: run sphinx-build -b html docs {HTML} first "
                    "(or set TFMODE_DOCS_HTML)")


def _ids(path: Path) -> set[str]:
    return set(re.findall(r'\bid="([^"]+)"', path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("area", CATALOGUE.areas, ids=lambda a: a.name)
def test_every_area_has_a_page(area: Area) -> None:
    assert _page(area.name).is_file(), f"no page for area {area.name}: {_page(area.name)}"


@pytest.mark.parametrize("rule", CATALOGUE.rules, ids=lambda r: r.id)
def test_every_rule_has_its_anchor(rule: Rule) -> None:
    page = _page(rule.area)
    assert page.is_file(), f"no page for area {rule.area}"
    assert rule.id in _ids(page), f'{page} has no id="{rule.id}"'


def test_the_rule_table_links_every_anchor() -> None:
    text = (HTML / "rules" / "index.html").read_text(encoding="utf-8")
    for rule in CATALOGUE.rules:
        assert f'href="{rule.area.lower()}.html#{rule.id}"' in text, rule.id


def test_no_anchor_for_a_rule_outside_the_catalogue() -> None:
    known = set(CATALOGUE.ids())
    for page in sorted((HTML / "rules").glob("*.html")):
        stray = {i for i in _ids(page) if re.fullmatch(r"TFM_[A-Z]+_\d{3}", i)} - known
        assert not stray, f"{page} has anchors for unknown rules: {sorted(stray)}"
