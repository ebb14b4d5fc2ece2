"""Nodes of our own: the inline SVG (written into HTML as it is, with rule links made relative
to the page) and a required text (written character for character)."""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.util import logging
from sphinx.writers.html5 import HTML5Translator

logger = logging.getLogger(__name__)

_RULE_HREF = re.compile(r'href="tfm-rule:(TFM_[A-Z]+_\d{3})"')


class tfm_svg(nodes.General, nodes.Element):
    """``svg``: the markup, with ``href="tfm-rule:ID"`` placeholders."""


def rule_uri(translator: HTML5Translator, rule_id: str) -> str | None:
    builder = translator.builder
    std: Any = builder.env.get_domain("std")
    docname, labelid = std.anonlabels.get(rule_id.lower(), ("", ""))
    if not docname:
        return None
    return builder.get_relative_uri(builder.current_docname, docname) + "#" + labelid


def visit_tfm_svg_html(self: HTML5Translator, node: tfm_svg) -> None:
    def link(match: re.Match[str]) -> str:
        uri = rule_uri(self, match.group(1))
        if uri is None:
            logger.warning("figure links to unknown rule %s", match.group(1),
                           location=node, type="tfm", subtype="figure")
            return 'href="#"'
        return f'href="{uri}"'

    self.body.append(_RULE_HREF.sub(link, node["svg"]))
    raise nodes.SkipNode


class tfm_text(nodes.literal):
    """A required error or warning text: in HTML, ``<code class="tfm-text">`` holding exactly
    the text (escaped, nothing else), shown with ``white-space: pre-wrap`` so that runs of spaces,
    leading spaces and line breaks show as they are; other builders treat it as a literal."""


def visit_tfm_text_html(self: HTML5Translator, node: tfm_text) -> None:
    # Sphinx's own literal splits its text into words and writes a run of spaces as
    # non-breaking ones, which a reader copies as other characters: not for a required text.
    self.body.append(self.starttag(node, "code", "", CLASS="tfm-text docutils literal notranslate"))
    self.body.append(self.encode(node.astext()))
    self.body.append("</code>")
    raise nodes.SkipNode


def skip(self: Any, node: nodes.Node) -> None:
    raise nodes.SkipNode
