"""The build's check for markup shown as text (tfmdocs.misc.check_markup), on two small pages:
a literal inside bold, which RST renders with its backticks, and the same words written so
that they render."""

from __future__ import annotations

import sys
from pathlib import Path

from docutils import nodes
from docutils.core import publish_doctree

sys.path.insert(0, str(Path(__file__).resolve().parent / "_ext"))

from tfmdocs.misc import _LEFT_OVER, _in_code


def _shown(rst: str) -> list[str]:
    doctree = publish_doctree(rst, settings_overrides={"report_level": 5})
    return [t.astext() for t in doctree.findall(nodes.Text)
            if not _in_code(t) and _LEFT_OVER.search(t.astext())]


def test_a_literal_inside_bold_is_found() -> None:
    assert _shown("* **``DisableTorchFunction`` is left out of the graph.**\n") != []


def test_markup_that_renders_is_not() -> None:
    assert _shown("* **Left out of the graph:** ``DisableTorchFunction``, ``x ** y`` and "
                  "f(*args, **kwargs).\n") == []
