"""What the extension reads from the repository, once per build: the catalogue and the markers."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging

from spec.catalogue import Catalogue, load_catalogue

from . import coverage

logger = logging.getLogger(__name__)


@dataclass
class Data:
    root: Path
    catalogue: Catalogue
    markers: list[coverage.Marker]
    covered: dict[str, list[str]]
    problems: list[tuple[str, int, str]]

    def area_docname(self, area: str) -> str:
        return f"rules/{area.lower()}"


def load(app: Sphinx) -> Data:
    if getattr(app, "_tfm_data", None) is None:
        root = Path(app.config.tfm_repository_root).resolve()
        catalogue = load_catalogue(root / "spec" / "rules")
        problems: list[tuple[str, int, str]] = []
        markers = coverage.scan(root, problems=problems)
        app._tfm_data = Data(root, catalogue, markers, coverage.by_rule(markers),  # type: ignore[attr-defined]
                             problems)
    return app._tfm_data  # type: ignore[attr-defined, no-any-return]


def check(app: Sphinx) -> None:
    """At the start of a build: every area has a page, every marker names a known rule."""
    data = load(app)
    known = set(data.catalogue.ids())
    for path, line, message in data.problems:
        logger.warning(message, location=f"{data.root / path}:{line}", type="tfm",
                       subtype="marker")
    for marker in data.markers:
        for rule in marker.rules:
            if rule not in known:
                logger.warning("%s marks an unknown rule %s", marker.nodeid, rule,
                               location=f"{data.root / marker.path}:{marker.line}",
                               type="tfm", subtype="marker")
    src = Path(app.srcdir)
    for area in data.catalogue.areas:
        page = src / f"{data.area_docname(area.name)}.rst"
        if not page.is_file():
            logger.warning("area %s has no page: create %s containing `.. tfm-area:: %s`",
                           area.name, page.relative_to(src.parent), area.name,
                           type="tfm", subtype="area")


# -- documents whose content comes from the repository are re-read on every build ------------


def note_generated(env: BuildEnvironment) -> None:
    generated: set[str] = env.__dict__.setdefault("tfm_generated", set())
    generated.add(env.docname)


def outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
             removed: set[str]) -> list[str]:
    generated: set[str] = env.__dict__.get("tfm_generated", set())
    return sorted(d for d in generated if d in env.found_docs and d not in removed)


def purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.__dict__.get("tfm_generated", set()).discard(docname)


def merge(app: Sphinx, env: BuildEnvironment, docnames: Any, other: BuildEnvironment) -> None:
    env.__dict__.setdefault("tfm_generated", set()).update(
        d for d in other.__dict__.get("tfm_generated", set()) if d in docnames
    )
