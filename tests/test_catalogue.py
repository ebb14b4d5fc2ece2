"""Tests of the rule catalogue: schema and plan coverage (the loader's errors:
test_catalogue_loader.py; the rules' runnable examples: test_catalogue_examples.py)."""

from __future__ import annotations

import re
import sys

import pytest

from spec.catalogue import (
    GENERATIONS,
    LEVELS,
    RULES_DIR,
    SCHEMA,
    Catalogue,
    load_catalogue,
    validate_area_document,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

#: Every rule ID of the plan, in plan order. The catalogue must hold exactly these.
PLANNED_IDS: tuple[str, ...] = (
    "TFM_ORDER_001",
    "TFM_ORDER_002",
    "TFM_ORDER_003",
    "TFM_ORDER_004",
    "TFM_ORDER_005",
    "TFM_ORDER_006",
    "TFM_ORDER_007",
    "TFM_TYPES_001",
    "TFM_TYPES_002",
    "TFM_TYPES_003",
    "TFM_TYPES_004",
    "TFM_TYPES_005",
    "TFM_TYPES_006", "TFM_TYPES_007",
    "TFM_ARGS_001",
    "TFM_ARGS_002",
    "TFM_ARGS_003",
    "TFM_ARGS_004",
    "TFM_NOTIMPL_001",
    "TFM_NOTIMPL_002",
    "TFM_NOTIMPL_003",
    "TFM_NOTIMPL_004",
    "TFM_REENTRY_001",
    "TFM_REENTRY_002",
    "TFM_REENTRY_003",
    "TFM_REENTRY_004",
    "TFM_REENTRY_005",
    "TFM_REENTRY_006",
    "TFM_REENTRY_007",
    "TFM_PUSH_001",
    "TFM_PUSH_002",
    "TFM_PUSH_003",
    "TFM_PUSH_004",
    "TFM_PUSH_005",
    "TFM_PUSH_006",
    "TFM_PUSH_007",
    "TFM_PUSH_008",
    "TFM_PUSH_009",
    "TFM_PUSH_010",
    "TFM_ENABLE_001",
    "TFM_ENABLE_002",
    "TFM_ENABLE_003",
    "TFM_ENABLE_004",
    "TFM_ENABLE_005",
    "TFM_ENABLE_006",
    "TFM_ENABLE_007",
    "TFM_ENABLE_008",
    "TFM_ENABLE_009",
    "TFM_ENABLE_010",
    "TFM_ENABLE_011",
    "TFM_ENABLE_012",
    "TFM_SUBMODE_001",
    "TFM_SUBMODE_002",
    "TFM_SUBMODE_003",
    "TFM_SUBMODE_004",
    "TFM_SELF_001",
    "TFM_SELF_002",
    "TFM_SELF_003",
    "TFM_SELF_004",
    "TFM_SELF_005",
    "TFM_SELF_006",
    "TFM_REACH_001",
    "TFM_REACH_002",
    "TFM_REACH_003",
    "TFM_REACH_004",
    "TFM_REACH_005",
    "TFM_REACH_006",
    "TFM_REACH_007",
    "TFM_REACH_008",
    "TFM_REACH_009",
    "TFM_REACH_010",
    "TFM_SYNTAX_001",
    "TFM_SYNTAX_002",
    "TFM_SYNTAX_003",
    "TFM_SYNTAX_004",
    "TFM_DISABLE_001",
    "TFM_DISABLE_002",
    "TFM_DISABLE_003",
    "TFM_DISABLE_004",
    "TFM_DISABLE_005",
    "TFM_DISABLE_006",
    "TFM_THREAD_001",
    "TFM_THREAD_002",
    "TFM_THREAD_003",
    "TFM_ERROR_001",
    "TFM_ERROR_002",
    "TFM_ERROR_003",
    "TFM_ERROR_004",
    "TFM_ERROR_005",
    "TFM_ERROR_006",
    "TFM_ERROR_007",
)

#: Levels the plan gives that are not MUST.
PLANNED_LEVELS: dict[str, str] = {"TFM_REACH_002": "SHOULD"}

#: Rules specific to the push/enable/inner design.
PLANNED_2022_ONLY: tuple[str, ...] = (
    "TFM_REENTRY_001",
    "TFM_REENTRY_004",
    "TFM_REENTRY_005",
    "TFM_REENTRY_006",
    "TFM_ERROR_002",
    "TFM_PUSH_010",
)

#: The stack generation's own rules (area STACK), added with the stack profile.
STACK_IDS: tuple[str, ...] = tuple(f"TFM_STACK_{n:03d}" for n in range(1, 16))

#: The rules of the implementation's own modes (area OWNMODE: the device context), checked by
#: the suite's tests in conformance/suite/test_ownmodes.py; all of the stack generation.
OWNMODE_IDS: tuple[str, ...] = tuple(f"TFM_OWNMODE_{n:03d}" for n in range(1, 7))

#: The texts of errors and warnings, per release (area TEXT), checked against spec/texts.toml.
TEXT_IDS: tuple[str, ...] = tuple(f"TFM_TEXT_{n:03d}" for n in range(1, 13))
#: The TEXT rules of texts only the stack generation has.
STACK_TEXT_IDS = ("TFM_TEXT_009", "TFM_TEXT_012")

#: Rules of both generations that hold for one stack version only.
VERSIONED: dict[str, tuple[str, ...]] = {
    "TFM_DISABLE_002": ("1.13",),
    "TFM_DISABLE_003": ("1.13",),
    "TFM_DISABLE_005": ("1.13",),
    "TFM_SELF_002": ("1.13",),
    "TFM_ERROR_001": ("1.13",),
}

AREAS: tuple[str, ...] = (
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

#: Areas whose every rule rests on API that only the stack generation has.
AREAS_STACK_ONLY: tuple[str, ...] = ("STACK", "OWNMODE")

#: Areas whose every rule rests on API that only the 2022 generation has.
AREAS_2022_ONLY: tuple[str, ...] = ("ENABLE", "SUBMODE")


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


# ---------------------------------------------------------------------------
# The shipped catalogue


def test_shipped_files_follow_the_schema() -> None:
    paths = sorted(RULES_DIR.glob("*.toml"))
    assert [p.stem.upper() for p in paths] == sorted(AREAS)
    for path in paths:
        with path.open("rb") as handle:
            validate_area_document(tomllib.load(handle), str(path))


def test_shipped_files_follow_the_schema_per_jsonschema() -> None:
    import jsonschema  # a test dependency (tox.ini): the schema is checked by a real validator

    validator = jsonschema.Draft202012Validator(SCHEMA)
    jsonschema.Draft202012Validator.check_schema(SCHEMA)
    for path in sorted(RULES_DIR.glob("*.toml")):
        with path.open("rb") as handle:
            errors = list(validator.iter_errors(tomllib.load(handle)))
        assert errors == [], f"{path.name}: {errors[0].message if errors else ''}"


def test_every_planned_id_is_present_and_nothing_else(catalogue: Catalogue) -> None:
    assert len(set(PLANNED_IDS)) == len(PLANNED_IDS)
    assert catalogue.ids() == PLANNED_IDS + STACK_IDS + OWNMODE_IDS + TEXT_IDS


def test_levels_match_the_plan(catalogue: Catalogue) -> None:
    for rule in catalogue:
        assert rule.level == PLANNED_LEVELS.get(rule.id, "MUST"), rule.id


def test_rules_ordered_by_area_then_number(catalogue: Catalogue) -> None:
    assert tuple(area.name for area in catalogue.areas) == AREAS
    for area in catalogue.areas:
        assert [r.number for r in area.rules] == list(range(1, len(area.rules) + 1))
        assert all(r.area == area.name for r in area.rules)
        assert area.title.strip() and area.summary.strip()


def test_every_statement_contains_its_level_keyword(catalogue: Catalogue) -> None:
    for rule in catalogue:
        assert rule.level in LEVELS
        assert re.search(rf"\b{rule.level}\b", rule.statement), rule.id


def test_generations(catalogue: Catalogue) -> None:
    for rule in catalogue:
        assert rule.generations, rule.id
        assert set(rule.generations) <= set(GENERATIONS), rule.id
        # Only the STACK and OWNMODE areas, and the TEXT rules of the stack's texts, hold rules
        # the 2022 design lacks.
        stack_only = rule.area in AREAS_STACK_ONLY or rule.id in STACK_TEXT_IDS
        assert ("2022" in rule.generations) is not stack_only, rule.id
        assert rule.versions == VERSIONED.get(rule.id, rule.versions), rule.id
        assert not rule.versions or "stack" in rule.generations, rule.id
    for rule_id in PLANNED_2022_ONLY:
        assert catalogue.by_id(rule_id).generations == ("2022",)
    for rule_id, versions in VERSIONED.items():
        rule = catalogue.by_id(rule_id)
        assert rule.applies_to("stack", versions[0]) and not rule.applies_to("stack", "2.x")


@pytest.mark.parametrize("area", AREAS)
def test_each_area_has_rules_in_its_generations(catalogue: Catalogue, area: str) -> None:
    rules = catalogue.area(area).rules
    assert any("2022" in r.generations for r in rules) is (area not in AREAS_STACK_ONLY)
    has_stack = any("stack" in r.generations for r in rules)
    assert has_stack is (area not in AREAS_2022_ONLY)


def test_queries(catalogue: Catalogue) -> None:
    assert load_catalogue() is catalogue
    assert catalogue.by_id("TFM_SELF_001").title == "Plain-method handlers are still called"
    with pytest.raises(KeyError):
        catalogue.by_id("TFM_NOPE_001")
    with pytest.raises(ValueError, match="unknown generation"):
        catalogue.for_generation("2023")
    stack = catalogue.for_generation("stack")
    assert stack and all("stack" in r.generations for r in stack)
    assert len(catalogue.for_generation("2022")) == (len(catalogue) - len(STACK_IDS) - len(OWNMODE_IDS)
                                                     - len(STACK_TEXT_IDS))
    assert catalogue.rules == tuple(catalogue)


def test_evidence_and_uncertainty(catalogue: Catalogue) -> None:
    for rule in catalogue:
        assert rule.evidence, rule.id
        assert rule.uncertainty is None or rule.uncertainty.strip()
    # The fixed choices are recorded where they were made.
    choices = {
        "TFM_PUSH_002": "BaseTorchFunctionMode",
        "TFM_PUSH_006": "space",
        "TFM_PUSH_007": "TorchModeFunction",
        "TFM_ENABLE_008": "as argument, got",
        "TFM_SELF_002": "every call",
        "TFM_DISABLE_002": "#75484",
        "TFM_DISABLE_005": "#75484",
    }
    for rule_id, needle in choices.items():
        uncertainty = catalogue.by_id(rule_id).uncertainty
        assert uncertainty is not None and needle in uncertainty, rule_id
    assert "skip" in catalogue.by_id("TFM_SELF_001").rationale



def test_generation_words_match_the_generations(catalogue: Catalogue) -> None:
    """A rule's text may call it "2022 only" only if it lists the 2022 generation alone (issue 23:
    TFM_ERROR_001 said so while listing the stack generation's 1.13 too)."""
    for rule in catalogue:
        text = " ".join((rule.statement, rule.rationale, rule.uncertainty or ""))
        if re.search(r"\b2022[- ]only\b", text):
            assert rule.generations == ("2022",), rule.id
    error = catalogue.by_id("TFM_ERROR_001")
    assert error.generations == ("2022", "stack") and error.versions == ("1.13",)
    assert "2.x replaced" not in (error.uncertainty or "")  # 2.0 keeps the text; 2.1 replaced it
