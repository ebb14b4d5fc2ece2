"""A built HTML page as a tree, for the docs tests: elements by id or class, and their text.

The text of an element is what a reader copies from it: every character of its data, entities
resolved, tags dropped (nothing is folded or trimmed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

#: Elements that never have an end tag.
VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                  "source", "track", "wbr"})


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def walk(self) -> list[Element]:
        out = [self]
        for child in self.children:
            if isinstance(child, Element):
                out.extend(child.walk())
        return out

    def by_id(self, ident: str) -> Element:
        found = [e for e in self.walk() if e.attrs.get("id") == ident]
        if len(found) != 1:
            raise LookupError(f"{len(found)} elements with id={ident!r}")
        return found[0]

    def by_class(self, name: str, tag: str | None = None) -> list[Element]:
        return [e for e in self.walk() if name in e.classes and (tag is None or e.tag == tag)]


class _Builder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.open = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.open[-1].children.append(element)
        if tag not in VOID:
            self.open.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.open[-1].children.append(Element(tag, {k: v or "" for k, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        # Close up to the matching open element; a stray end tag closes nothing.
        for depth in range(len(self.open) - 1, 0, -1):
            if self.open[depth].tag == tag:
                del self.open[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.open[-1].children.append(data)


def parse(path: Path) -> Element:
    builder = _Builder()
    builder.feed(path.read_text(encoding="utf-8"))
    builder.close()
    return builder.root
