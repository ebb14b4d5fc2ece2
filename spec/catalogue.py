"""The rule catalogue: load, validate and query the TOML files under ``spec/rules``.

The schema of a file and its validation are :mod:`spec.schema`'s; this module builds the
:class:`Catalogue` (numbering, duplicates, area order) and re-exports the schema's public names.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

from .schema import (
    EVIDENCE_KINDS,
    GENERATIONS,
    LEVELS,
    RULE_ID,
    SCHEMA,
    STACK_VERSIONS,
    CatalogueError,
    _fail,
    validate_area_document,
)

__all__ = [
    "AREA_ORDER",
    "EVIDENCE_KINDS",
    "GENERATIONS",
    "LEVELS",
    "RULES_DIR",
    "RULE_ID",
    "SCHEMA",
    "STACK_VERSIONS",
    "Area",
    "Catalogue",
    "CatalogueError",
    "Evidence",
    "Rule",
    "load_catalogue",
    "validate_area_document",
]

#: Where the shipped catalogue lives.
RULES_DIR: Final = Path(__file__).resolve().parent / "rules"

#: The order in which areas are presented; areas not listed here follow, alphabetically.
AREA_ORDER: Final = (
    "ORDER",
    "TYPES",
    "ARGS",
    "NOTIMPL",
    "REENTRY",
    "PUSH",
    "ENABLE",
    "SUBMODE",
    "SELF",
    "REACH",
    "SYNTAX",
    "DISABLE",
    "THREAD",
    "ERROR",
    "STACK",
    "OWNMODE",
    "TEXT",
)


@dataclass(frozen=True)
class Evidence:
    """One source a rule rests on."""

    kind: str
    ref: str
    note: str


@dataclass(frozen=True)
class Rule:
    """One normative rule of the specification."""

    id: str
    area: str
    level: str
    generations: tuple[str, ...]
    title: str
    statement: str
    rationale: str
    evidence: tuple[Evidence, ...]
    example: str
    uncertainty: str | None = None
    #: The namespace the example runs against.
    example_impl: str = "reference_impl"
    #: For the stack generation: the versions it holds for (empty: all of them).
    versions: tuple[str, ...] = ()
    #: For a rule of both generations: the example again in the stack generation's API, run
    #: against torch itself (``import torch``, ``with M():``) where a release it holds for is
    #: installed; ``None`` when there is none.
    example_stack: str | None = None
    #: The kinds of text (``spec/texts.toml``) of the error the rule requires, where another
    #: area's TEXT rules fix its message: its page shows each kind's text in every release.
    texts: tuple[str, ...] = ()

    def applies_to(self, generation: str, version: str | None = None) -> bool:
        """Whether the rule holds for an implementation of that generation (and stack version)."""
        if generation not in self.generations:
            return False
        return generation != "stack" or not self.versions or version is None or version in self.versions

    @property
    def number(self) -> int:
        """The rule's number within its area (``TFM_ORDER_003`` → 3)."""
        return int(self.id.rsplit("_", 1)[1])


@dataclass(frozen=True)
class Area:
    """One area file: its page title, its summary and its rules in number order."""

    name: str
    title: str
    summary: str
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Catalogue:
    """All areas, in presentation order, with lookups over their rules."""

    areas: tuple[Area, ...]

    @property
    def rules(self) -> tuple[Rule, ...]:
        """Every rule, ordered by area and then by number."""
        return tuple(rule for area in self.areas for rule in area.rules)

    def ids(self) -> tuple[str, ...]:
        """Every rule ID, in the order of :attr:`rules`."""
        return tuple(rule.id for rule in self.rules)

    def by_id(self, rule_id: str) -> Rule:
        """The rule called ``rule_id``; ``KeyError`` if there is none."""
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        raise KeyError(f"no rule {rule_id!r} in the catalogue")

    def area(self, name: str) -> Area:
        """The area called ``name`` (e.g. ``"ORDER"``); ``KeyError`` if there is none."""
        for area in self.areas:
            if area.name == name:
                return area
        raise KeyError(f"no area {name!r} in the catalogue")

    def for_generation(self, generation: str) -> tuple[Rule, ...]:
        """The rules that apply to ``generation`` (``"2022"`` or ``"stack"``)."""
        if generation not in GENERATIONS:
            raise ValueError(f"unknown generation {generation!r}; expected one of {GENERATIONS}")
        return tuple(rule for rule in self.rules if generation in rule.generations)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def __len__(self) -> int:
        return len(self.rules)


# ---------------------------------------------------------------------------

def _build_area(document: Mapping[str, Any], path: Path) -> Area:
    file = str(path)
    validate_area_document(document, file)
    name: str = document["area"]
    if name != path.stem.upper():
        raise _fail(
            file,
            None,
            "area",
            f"{name!r} does not match the file name (expected {path.stem.upper()!r})",
        )
    rules: list[Rule] = []
    seen: set[str] = set()
    for raw in document["rule"]:
        rule_id: str = raw["id"]
        match = RULE_ID.match(rule_id)
        assert match is not None  # guaranteed by the schema
        if match.group(1) != name:
            raise _fail(
                file, rule_id, "id", f"area prefix {match.group(1)!r} does not match area {name!r}"
            )
        if rule_id in seen:
            raise _fail(file, rule_id, "id", "duplicate rule id")
        seen.add(rule_id)
        level: str = raw["level"]
        statement: str = raw["statement"]
        if level not in statement:
            raise _fail(file, rule_id, "statement", f"does not contain its level keyword {level!r}")
        rules.append(
            Rule(
                id=rule_id,
                area=name,
                level=level,
                generations=tuple(g for g in GENERATIONS if g in raw["generations"]),
                title=raw["title"],
                statement=statement,
                rationale=raw["rationale"],
                evidence=tuple(Evidence(e["kind"], e["ref"], e["note"]) for e in raw["evidence"]),
                example=raw["example"],
                uncertainty=raw.get("uncertainty"),
                example_impl=raw.get("example_impl", "reference_impl"),
                versions=tuple(v for v in STACK_VERSIONS if v in raw.get("versions", ())),
                example_stack=raw.get("example_stack"),
                texts=tuple(raw.get("texts", ())),
            )
        )
        if "example_stack" in raw and "stack" not in raw["generations"]:
            raise _fail(file, rule_id, "example_stack",
                        "the rule does not apply to the stack generation")
    rules.sort(key=lambda r: r.number)
    for expected_number, rule in enumerate(rules, start=1):
        if rule.number != expected_number:
            expected_id = f"TFM_{name}_{expected_number:03d}"
            raise _fail(
                file,
                rule.id,
                "id",
                f"rules of area {name} are not numbered contiguously from 001 "
                f"(expected {expected_id})",
            )
    return Area(name=name, title=document["title"], summary=document["summary"], rules=tuple(rules))


def _area_sort_key(area: Area) -> tuple[int, str]:
    try:
        return AREA_ORDER.index(area.name), area.name
    except ValueError:
        return len(AREA_ORDER), area.name


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise _fail(str(path), None, None, f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise _fail(str(path), None, None, f"cannot read: {exc.strerror or exc}") from None


def _load(directory: Path) -> Catalogue:
    if not directory.is_dir():
        raise CatalogueError(f"{directory}: not a directory of rule files")
    paths: Sequence[Path] = sorted(directory.glob("*.toml"))
    if not paths:
        raise CatalogueError(f"{directory}: no *.toml rule files")
    areas: list[Area] = []
    owner: dict[str, Path] = {}
    area_files: dict[str, Path] = {}
    for path in paths:
        area = _build_area(_read(path), path)
        if area.name in area_files:
            raise _fail(
                str(path),
                None,
                "area",
                f"area {area.name} is also defined in {area_files[area.name]}",
            )
        area_files[area.name] = path
        for rule in area.rules:
            if rule.id in owner:
                raise _fail(
                    str(path), rule.id, "id", f"duplicate rule id (also in {owner[rule.id]})"
                )
            owner[rule.id] = path
        areas.append(area)
    areas.sort(key=_area_sort_key)
    return Catalogue(areas=tuple(areas))


@functools.lru_cache(maxsize=1)
def _load_default() -> Catalogue:
    return _load(RULES_DIR)


def load_catalogue(path: Path | None = None) -> Catalogue:
    """Load and validate every ``*.toml`` area file in ``path`` (default: the shipped catalogue).

    Raises :class:`CatalogueError` with a one-line message naming the file, the rule
    (when known), the field and the problem. The default catalogue is loaded once and cached.
    """
    if path is None:
        return _load_default()
    return _load(Path(path))
