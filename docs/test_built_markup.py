"""No RST markup leaks into the text of the built pages: a reader never sees double backticks,
a role written out as text (``:ref:`x```, ``:tfm-opt:`--impl```) or the ``**`` of bold that did
not render. tfmdocs.misc.check_markup catches some of this in the doctree during the build; this
reads the HTML a reader gets, every page, generated tables and included files too.

Text inside code (inline literals, code blocks, doctests) is left out: there these characters
are what the reader must type.
"""

from __future__ import annotations

import re
from pathlib import Path

from htmlpage import Element, parse

#: Elements whose text is code, shown as written.
CODE_TAGS = frozenset({"code", "pre", "kbd", "samp", "tt", "script", "style", "textarea"})
CODE_CLASSES = frozenset({"highlight", "literal", "pre", "tfm-text"})
#: Pages that are Sphinx's own machinery, not text of ours.
SKIPPED = ("genindex.html", "search.html", "py-modindex.html")

LEAKS = {
    "double backticks": re.compile(r"``(?:[^`\n]*``)?"),
    "a role shown as text": re.compile(r":(?:[a-z][\w-]*:)?[a-z][\w-]*:`"),
    "bold markers": re.compile(r"(?<![\w*])\*\*(?=[^\s*])(.+?)(?<=[^\s*])\*\*(?![\w*])"),
}


#: Elements inside a line of text: their text joins that of the element around them.
INLINE = frozenset({"a", "abbr", "b", "cite", "em", "i", "small", "span", "strong", "sub", "sup",
                    "u", "var", "mark", "q", "s", "del", "ins", "dfn"})


def _own_text(element: Element) -> str:
    """The text of ``element`` as one line is read: its strings and those of its inline
    elements, code as a stand-in word, each block inside it as a line break."""
    parts: list[str] = []
    for child in element.children:
        if isinstance(child, str):
            parts.append(child)
        elif child.tag in CODE_TAGS or child.classes & CODE_CLASSES:
            parts.append("CODE")
        elif child.tag in INLINE:
            parts.append(_own_text(child))
        else:
            parts.append("\n")
    return "".join(parts)


def _texts(element: Element) -> list[str]:
    """The text of every block of ``element`` outside code, each block's as one string."""
    if element.tag in CODE_TAGS or element.classes & CODE_CLASSES:
        return []
    # an inline element's text is part of its block's; a block inside it has its own
    out = [] if element.tag in INLINE else [_own_text(element)]
    for child in element.children:
        if isinstance(child, Element):
            out.extend(_texts(child))
    return out


def leaks(page: Element) -> list[str]:
    """Each leak of ``page``: what it is and the text around it."""
    found: list[str] = []
    for text in _texts(page):
        for what, pattern in LEAKS.items():
            for match in pattern.finditer(text):
                around = " ".join(text[max(0, match.start() - 40):match.end() + 40].split())
                if f"{what}: {around!r}" not in found:
                    found.append(f"{what}: {around!r}")
    return found


def _page(body: str, tmp: Path) -> Element:
    path = tmp / "page.html"
    path.write_text(f"<html><body>{body}</body></html>", encoding="utf-8")
    return parse(path)


def test_each_kind_of_leak_is_found_and_code_is_not(tmp_path: Path) -> None:
    assert [k.split(":")[0] for k in leaks(_page(
        "<p>the ``--impl`` option</p><p>see :ref:`quickstart`</p>"
        "<p>pass :tfm-opt:`--impl-path`</p><li><strong>x</strong> and **bold** here</li>"
        '<p>**<code class="docutils literal">x</code> around code**</p>',
        tmp_path))] == ["double backticks", "a role shown as text", "a role shown as text",
                        "bold markers", "bold markers"]
    assert leaks(_page(
        '<p>f(*args, **kwargs) and g(**opts); 2 ** 3</p>'
        '<p><code class="docutils literal"><span class="pre">``x``</span></code></p>'
        '<div class="highlight"><pre>**bold** :ref:`x`</pre></div>'
        '<p>a time: 10:30 and a URL https://example.org/a:b</p>', tmp_path)) == []


def test_no_built_page_shows_markup_as_text(html: Path) -> None:
    pages = [p for p in sorted(html.rglob("*.html"))
             if p.name not in SKIPPED and not p.relative_to(html).parts[0].startswith("_")]
    assert len(pages) > 20
    found = [f"{page.relative_to(html)}: {leak}" for page in pages for leak in leaks(parse(page))]
    assert not found, "markup shown as text in the built pages:\n" + "\n".join(found)
