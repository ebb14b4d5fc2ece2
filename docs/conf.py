"""Sphinx configuration of the tfmode-conformance specification.

Build (from the repository root):

    sphinx-build -W --keep-going -n -b html docs docs/_build/html
    sphinx-build -W --keep-going -n -b doctest docs docs/_build/doctest

The build needs no network. Links to Python's documentation (intersphinx) are made when
``TFMODE_DOCS_ONLINE`` is set, or when a local copy of Python's ``objects.inv`` is found
(``TFMODE_DOCS_PYTHON_INV``, ``docs/_inventories/python.inv``, or Debian's ``python3-doc``);
otherwise references to the standard library are shown without a link.
"""

from __future__ import annotations

import doctest
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# The checkout's packages (spec, conformance, reference_impl) come first, so the pages
# describe this tree even where an older copy is installed; then the extension, and the
# example modules of the adapter page.
sys.path[:0] = [str(ROOT), str(DOCS / "_ext"), str(DOCS / "examples")]


def _reference_badge() -> str:
    """The badge message of reference_impl's committed certificate (a real run), e.g. MUST 93/93."""
    import json

    cert = json.loads((DOCS / "certificates" / "reference_impl.json").read_text(encoding="utf-8"))
    must = [r for r in cert["rules"].values()
            if r["level"] in ("MUST", "MUST NOT") and r["verdict"] != "not_applicable"]
    return f"MUST {sum(r['verdict'] == 'pass' for r in must)}/{len(must)}"


rst_prolog = f".. |must-badge| replace:: ``{_reference_badge()}``\n"

project = "tfmode-conformance"
author = "the tfmode-conformance maintainers"
copyright = "2026, the tfmode-conformance maintainers"
try:
    from conformance import __version__ as release
except ImportError:  # pragma: no cover - the checkout is always importable from here
    release = "unknown"
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "tfmdocs",
]

root_doc = "index"
exclude_patterns = ["_build", "_generated/*.rst", "examples", "test_*.py", "conftest.py",
                    "htmlpage.py", "requirements.txt", "Thumbs.db", ".DS_Store"]
templates_path: list[str] = []
nitpicky = True
default_role = "literal"
smartquotes = False  # generated text (option help, schema descriptions) is shown as written
highlight_language = "python"

# -- HTML ---------------------------------------------------------------------------------
html_theme = "furo"
html_title = "tfmode-conformance"
html_static_path = ["_static"]
html_css_files = ["tfm.css"]
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = False

# -- doctest: the rule examples run with the flags tests/test_catalogue_examples.py uses ----
doctest_default_flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
doctest_test_doctest_blocks = ""  # only explicit doctest blocks (the rule examples) are run
doctest_global_cleanup = """
import reference_impl
assert reference_impl._C._get_torch_function_mode() is None, "an example left a mode current"
"""

# -- autodoc ------------------------------------------------------------------------------
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
autodoc_preserve_defaults = True

# -- intersphinx, optional ------------------------------------------------------------------
PYTHON_DOCS = "https://docs.python.org/3"


def _local_python_inventory() -> str | None:
    candidates = [
        os.environ.get("TFMODE_DOCS_PYTHON_INV", ""),
        str(DOCS / "_inventories" / "python.inv"),
        f"/usr/share/doc/python{sys.version_info.major}.{sys.version_info.minor}/html/objects.inv",
        "/usr/share/doc/python3/html/objects.inv",
    ]
    return next((c for c in candidates if c and Path(c).is_file()), None)


if os.environ.get("TFMODE_DOCS_ONLINE"):
    intersphinx_mapping = {"python": (PYTHON_DOCS, None)}
elif (_inventory := _local_python_inventory()) is not None:
    intersphinx_mapping = {"python": (PYTHON_DOCS, _inventory)}
else:
    intersphinx_mapping = {}
    # Offline, references into the standard library cannot resolve; they are rendered
    # as plain code instead of failing the nitpicky build. Nothing else is ignored.
    nitpick_ignore_regex = [
        (r"py:(class|obj|func|meth|mod|exc|data|attr)",
         r"(collections\.abc|contextlib|types|typing|ast|doctest|tomllib|json|threading)(\..*)?"),
    ]
intersphinx_disabled_reftypes = ["*"]
