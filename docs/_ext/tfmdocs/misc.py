"""Smaller pieces: an include that may be missing, the adapter member table, command-line options."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import data as tfm_data

logger = logging.getLogger(__name__)


class IncludeIfExistsDirective(SphinxDirective):
    """``.. tfm-include-if-exists:: path`` — include the file if it exists, else the content."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0])
        tfm_data.note_generated(self.env)  # re-read every build: the file may appear
        file = Path(path)
        if file.is_file():
            self.env.note_dependency(rel)
            lines = file.read_text(encoding="utf-8").splitlines()
            self.state_machine.insert_input(lines, str(file))
            return []
        container = nodes.container()
        self.state.nested_parse(self.content, self.content_offset, container)
        return list(container.children)


def protocol_members() -> set[str]:
    from conformance.adapter import Adapter

    names = set(getattr(Adapter, "__annotations__", {}))
    names |= {n for n in vars(Adapter) if not n.startswith("_")}
    return names


class AdapterMembersDirective(SphinxDirective):
    """A definition list of the Adapter protocol's members; every member must be described."""

    has_content = True

    def run(self) -> list[nodes.Node]:
        tfm_data.note_generated(self.env)
        container = nodes.container(classes=["tfm-adapter-members"])
        self.state.nested_parse(self.content, self.content_offset, container)
        described: set[str] = set()
        for term in container.findall(nodes.term):
            for literal in term.findall(nodes.literal):
                described.add(literal.astext().split("(")[0].strip())
        members = protocol_members()
        for name in sorted(members - described):
            logger.warning("the Adapter protocol member %r is not described here", name,
                           location=(self.env.docname, self.lineno), type="tfm", subtype="adapter")
        for name in sorted(described - members):
            logger.warning("%r is described here but is not a member of the Adapter protocol",
                           name, location=(self.env.docname, self.lineno), type="tfm",
                           subtype="adapter")
        return list(container.children)


# -- command-line options named in the docs exist in the conformance plugin -------------------


def option_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
                options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``:tfm-opt:`--impl MODULE``` — shown as code; the option name is checked at the end."""
    env = inliner.document.settings.env
    flag = text.split()[0].split("=")[0]
    used: dict[str, set[tuple[str, int]]] = env.__dict__.setdefault("tfm_options", {})
    used.setdefault(flag, set()).add((env.docname, lineno))
    return [nodes.literal(rawtext, text, classes=["tfm-option"])], []


def check_options(app: Sphinx, env: BuildEnvironment) -> None:
    """Every option written with ``:tfm-opt:`` is one the conformance plugin defines."""
    from .suite import plugin_options

    used: dict[str, set[tuple[str, int]]] = env.__dict__.get("tfm_options", {})
    try:
        defined = {name for names, _ in plugin_options() for name in names}
    except ImportError as exc:
        logger.warning("cannot read the conformance plugin's options: %s", exc, type="tfm",
                       subtype="option")
        return
    for flag, places in sorted(used.items()):
        if places and flag not in defined:
            docname, line = sorted(places)[0]
            logger.warning("option %s is documented but the conformance plugin defines no such "
                           "option (it defines %s)", flag, ", ".join(sorted(defined)),
                           location=(docname, line), type="tfm", subtype="option")


def purge_options(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    for places in env.__dict__.get("tfm_options", {}).values():
        for place in [p for p in places if p[0] == docname]:
            places.discard(place)


def merge_options(app: Sphinx, env: BuildEnvironment, docnames: Any, other: BuildEnvironment) -> None:
    mine: dict[str, set[tuple[str, int]]] = env.__dict__.setdefault("tfm_options", {})
    for flag, places in other.__dict__.get("tfm_options", {}).items():
        mine.setdefault(flag, set()).update(p for p in places if p[0] in docnames)



#: Inline markup that reached the page as text: a literal inside bold (``**``x``**`` renders its
#: backticks) or a literal left open. (``**`` alone is Python's ``**kwargs`` in the rules' prose.)
_LEFT_OVER = re.compile(r"``")


def check_markup(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """Warn (an error in the build) where RST markup survived into a page's text."""
    for text in doctree.findall(nodes.Text):
        if _in_code(text):
            continue
        found = _LEFT_OVER.search(text.astext())
        if found is not None:
            logger.warning("markup shown as text: %r", text.astext()[max(0, found.start() - 30):
                                                                     found.end() + 30],
                           location=(docname, _line_of(text)), type="tfm", subtype="markup")


def _in_code(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, (nodes.literal, nodes.literal_block, nodes.raw, nodes.comment,
                               nodes.doctest_block, nodes.math, nodes.math_block)):
            return True
        parent = parent.parent
    return False


def _line_of(node: nodes.Node) -> int | None:
    while node is not None:
        if getattr(node, "line", None):
            return int(node.line)  # type: ignore[attr-defined]
        node = node.parent
    return None
