"""Nothing on the built pages is cut off: every code block wraps its long lines (tfm.css), and
the compatibility matrix scrolls inside one screen with its rule column and header row fixed.

The stylesheet is read as plain rules (selector, declarations); a rule applies to an element
of the built page when its descendant selector of ``tag.class[attr=value]`` parts matches the
element and its ancestors.
"""

from __future__ import annotations

import re
from pathlib import Path

from htmlpage import Element, parse

CSS = Path(__file__).resolve().parent / "_static" / "tfm.css"
_RULE = re.compile(r"([^{}]+)\{([^{}]*)\}")
_PART = re.compile(r"^(?P<tag>[a-z0-9]*)(?P<rest>(?:\.[\w-]+|\[[\w-]+=[^\]]+\])*)$")


def rules(css: str) -> list[tuple[str, dict[str, str]]]:
    """Each rule of ``css`` as ``(selector, {property: value})``, one entry per selector."""
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    found: list[tuple[str, dict[str, str]]] = []
    for selectors, body in _RULE.findall(css):
        declared = dict((k.strip(), v.strip()) for k, _, v in
                        (d.partition(":") for d in body.split(";") if ":" in d))
        found += [(" ".join(s.split()), declared) for s in selectors.split(",")]
    return found


def _matches(part: str, element: Element) -> bool:
    match = _PART.match(part)
    if not match:
        return False  # a pseudo-class or combinator this check does not read
    if match["tag"] and element.tag != match["tag"]:
        return False
    for piece in re.findall(r"\.[\w-]+|\[[\w-]+=[^\]]+\]", match["rest"]):
        if piece.startswith(".") and piece[1:] not in element.classes:
            return False
        if piece.startswith("["):
            name, _, value = piece[1:-1].partition("=")
            if element.attrs.get(name) != value.strip("\"'"):
                return False
    return True


def applies(selector: str, element: Element, ancestors: list[Element]) -> bool:
    """Whether the descendant selector ``selector`` selects ``element`` under ``ancestors``."""
    *outer, last = selector.split()
    if not _matches(last, element):
        return False
    remaining = list(outer)
    for ancestor in reversed(ancestors):
        if remaining and _matches(remaining[-1], ancestor):
            remaining.pop()
    return not remaining


def with_ancestors(root: Element, tag: str) -> list[tuple[Element, list[Element]]]:
    """Every ``tag`` element under ``root``, with its ancestors outermost first."""
    found: list[tuple[Element, list[Element]]] = []

    def visit(element: Element, path: list[Element]) -> None:
        if element.tag == tag:
            found.append((element, path))
        for child in element.children:
            if isinstance(child, Element):
                visit(child, [*path, element])

    visit(root, [])
    return found


def declared(selector: str, prop: str) -> str | None:
    values = [d[prop] for s, d in rules(CSS.read_text(encoding="utf-8")) if s == selector and prop in d]
    return values[-1] if values else None


def test_the_rule_reader_reads_descendant_selectors() -> None:
    page = Element("article", {"role": "main"}, [Element("div", {"class": "highlight-python"}, [
        Element("div", {"class": "highlight"}, [Element("pre", {})])])])
    pre, ancestors = with_ancestors(page, "pre")[0]
    assert applies("article div.highlight pre", pre, ancestors)
    assert applies("[role=main] pre", pre, ancestors)
    assert not applies("table div.highlight pre", pre, ancestors)
    assert not applies("div.highlight-text pre", pre, ancestors)
    assert rules("a, b.c { white-space: pre-wrap; color: red }") == [
        ("a", {"white-space": "pre-wrap", "color": "red"}),
        ("b.c", {"white-space": "pre-wrap", "color": "red"})]


def test_every_code_block_wraps_its_long_lines(html: Path) -> None:
    wrapping = [s for s, d in rules(CSS.read_text(encoding="utf-8"))
                if d.get("white-space") == "pre-wrap" and s.split()[-1] == "pre"]
    assert wrapping, "tfm.css has no rule that wraps the lines of a pre block"
    seen = 0
    for path in sorted(html.rglob("*.html")):
        page = parse(path)
        blocks = with_ancestors(page, "pre")
        if not blocks:
            continue
        name = path.relative_to(html)
        assert any(e.attrs.get("href", "").split("?")[0].endswith("_static/tfm.css")
                   for e in page.walk() if e.tag == "link"), f"{name} does not load tfm.css"
        unwrapped = [pre.text()[:60] for pre, ancestors in blocks
                     if not any(applies(s, pre, ancestors) for s in wrapping)]
        assert not unwrapped, f"{name}: code blocks whose long lines run off the page: {unwrapped}"
        seen += len(blocks)
    assert seen > 100  # the pages' code blocks were read: matrix, api, compile, quickstart ...


def test_the_matrix_scrolls_in_one_screen_with_its_rule_column_and_header_fixed(html: Path) -> None:
    page = parse(html / "matrix.html")
    wrappers = [e for e in page.walk() if e.tag == "div" and {"table-wrapper", "tfm-matrix"} <= e.classes]
    assert len(wrappers) == 1 and any(e.tag == "table" for e in wrappers[0].walk())
    box = "[role=main] div.table-wrapper.tfm-matrix"
    assert declared(box, "overflow") == "auto" and (declared(box, "max-height") or "").endswith("vh")
    for cell in ("table.tfm-matrix th:first-child", "table.tfm-matrix td:first-child"):
        assert declared(cell, "position") == "sticky" and declared(cell, "left") == "0"
    assert declared("table.tfm-matrix thead th", "position") == "sticky"
    assert declared("table.tfm-matrix thead th", "top") == "0"
