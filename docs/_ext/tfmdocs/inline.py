"""Catalogue text to docutils nodes: `code`, rule IDs as links, RFC 2119 keywords in bold.

The catalogue's prose is plain text with Markdown-style backticks for code. It is never
parsed as reStructuredText, so nothing in a rule's text can break the build or inject markup.
Line breaks in the prose are spaces, but a run of spaces inside a line is kept and shown (a
quoted message may have two spaces after a full stop). Required texts are never prose: they are
shown by :func:`required_text`, as they are.
"""

from __future__ import annotations

import re

from docutils import nodes
from sphinx.addnodes import pending_xref

from .nodes import tfm_text

RULE_ID = re.compile(r"\bTFM_[A-Z]+_\d{3}\b")
_SPACES = re.compile(r" {2,}")
_TOKENS = re.compile(
    r"`(?P<code>[^`]+)`"
    r"|(?P<rule>\bTFM_[A-Z]+_\d{3}\b)"
    r"|(?P<level>\b(?:MUST NOT|SHOULD NOT|MUST|SHOULD|MAY)\b)"
)


def rule_ref(rule_id: str, docname: str, text: str | None = None) -> nodes.Node:
    """A link to the anchor of ``rule_id``, shown as code; resolved (or reported) by Sphinx."""
    ref = pending_xref(
        "",
        refdomain="std",
        reftype="ref",
        reftarget=rule_id.lower(),
        refexplicit=True,
        refwarn=True,
        refdoc=docname,
    )
    ref += nodes.Text(text or rule_id)
    return nodes.literal("", "", ref, classes=["tfm-rule-ref"])


def spaced(text: str) -> list[nodes.Node]:
    """Plain text in which every run of two or more spaces shows as it is (HTML would fold it
    into one): the run becomes an inline of class ``tfm-ws``, styled ``white-space: pre``."""
    out: list[nodes.Node] = []
    pos = 0
    for match in _SPACES.finditer(text):
        if match.start() > pos:
            out.append(nodes.Text(text[pos : match.start()]))
        out.append(nodes.inline(match.group(), match.group(), classes=["tfm-ws"]))
        pos = match.end()
    if pos < len(text):
        out.append(nodes.Text(text[pos:]))
    return out


def required_text(text: str) -> list[nodes.Node]:
    """A required error or warning text, exactly: spaces, backticks and line breaks as they are.
    A text that ends with a line break, which nobody can see, says so after it."""
    out: list[nodes.Node] = [tfm_text(text, text)]
    if text.endswith("\n"):
        note = " (ends with a line break)"
        out.append(nodes.inline(note, note, classes=["tfm-text-note"]))
    return out


def inline(text: str, docname: str, *, levels: bool = False) -> list[nodes.Node]:
    """The nodes of one paragraph's text."""
    out: list[nodes.Node] = []
    pos = 0
    for match in _TOKENS.finditer(text):
        if match.start() > pos:
            out.extend(spaced(text[pos : match.start()]))
        if match.group("code") is not None:
            code = match.group("code")
            if RULE_ID.fullmatch(code):
                out.append(rule_ref(code, docname))
            else:
                out.append(nodes.literal(code, code))
        elif match.group("rule") is not None:
            out.append(rule_ref(match.group("rule"), docname))
        elif levels:
            out.append(nodes.strong(match.group("level"), match.group("level"), classes=["tfm-kw"]))
        else:
            out.append(nodes.Text(match.group("level")))
        pos = match.end()
    if pos < len(text):
        out.extend(spaced(text[pos:]))
    return out


def paragraphs(text: str, docname: str, *, levels: bool = False) -> list[nodes.paragraph]:
    """Blank-line separated paragraphs, each with :func:`inline` markup."""
    out = []
    for chunk in re.split(r"\n\s*\n", text.strip()):
        line = re.sub(r"[ \t]*\n\s*", " ", chunk.strip())
        if line:
            out.append(nodes.paragraph("", "", *inline(line, docname, levels=levels)))
    return out
