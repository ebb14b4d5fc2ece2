"""Tests of the rule catalogue: schema, plan coverage, loader errors and runnable examples."""

from __future__ import annotations

import doctest
import re
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from spec.catalogue import (
    GENERATIONS,
    LEVELS,
    RULES_DIR,
    SCHEMA,
    Catalogue,
    CatalogueError,
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


# ---------------------------------------------------------------------------
# Malformed catalogues


def _rule(rule_id: str = "TFM_DEMO_001", *, drop: tuple[str, ...] = (), **fields: str) -> str:
    values = {
        "id": f'"{rule_id}"',
        "level": '"MUST"',
        "generations": '["2022"]',
        "title": '"A title"',
        "statement": '"The thing MUST happen."',
        "rationale": '"Because."',
        "example": "'''\n>>> 1 + 1\n2\n'''",
    }
    values.update(fields)
    lines = ["[[rule]]"]
    lines += [f"{key} = {value}" for key, value in values.items() if key not in drop]
    if "evidence" not in drop:
        lines += ["", "[[rule.evidence]]", 'kind = "pr"', 'ref = "somewhere"', 'note = "says so"']
    return "\n".join(lines) + "\n"


def _area(*rules: str, area: str = "DEMO", head: str = "") -> str:
    top = head or f'area = "{area}"\ntitle = "Demo"\nsummary = "A demo area."\n'
    return top + "\n" + "\n".join(rules)


def _write(tmp_path: Path, text: str, name: str = "demo.toml") -> Path:
    (tmp_path / name).write_text(text, encoding="utf-8")
    return tmp_path


def _error(tmp_path: Path) -> str:
    with pytest.raises(CatalogueError) as info:
        load_catalogue(tmp_path)
    message = str(info.value)
    assert "\n" not in message, message
    return message


def test_minimal_valid_catalogue_loads(tmp_path: Path) -> None:
    _write(tmp_path, _area(_rule(), _rule("TFM_DEMO_002", level='"MAY"', statement='"It MAY."')))
    catalogue = load_catalogue(tmp_path)
    assert catalogue.ids() == ("TFM_DEMO_001", "TFM_DEMO_002")
    rule = catalogue.by_id("TFM_DEMO_001")
    assert rule.area == "DEMO" and rule.generations == ("2022",) and rule.uncertainty is None
    assert rule.evidence[0].kind == "pr"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(
            _area(_rule(drop=("rationale",))),
            r"demo\.toml: rule TFM_DEMO_001: field 'rationale': missing required field",
            id="missing-field",
        ),
        pytest.param(
            _area(_rule(drop=("evidence",))),
            r"rule TFM_DEMO_001: field 'evidence': missing required field",
            id="missing-evidence",
        ),
        pytest.param(
            _area(_rule(level='"MUSTY"')),
            r"rule TFM_DEMO_001: field 'level': 'MUSTY' is not one of 'MUST', 'MUST NOT'",
            id="bad-level",
        ),
        pytest.param(
            _area(_rule("TFM_DEMO_01")),
            r"demo\.toml: field 'rule\[0\]\.id': 'TFM_DEMO_01' does not match pattern",
            id="bad-id-pattern",
        ),
        pytest.param(
            _area(_rule("TFM_OTHER_001")),
            r"rule TFM_OTHER_001: field 'id': area prefix 'OTHER' does not match area 'DEMO'",
            id="wrong-area-prefix",
        ),
        pytest.param(
            _area(_rule(), _rule()),
            r"rule TFM_DEMO_001: field 'id': duplicate rule id",
            id="duplicate-id",
        ),
        pytest.param(
            _area(_rule(tests='["test_x"]')),
            r"rule TFM_DEMO_001: field 'tests': unknown field",
            id="unknown-field",
        ),
        pytest.param(
            _area(_rule(), _rule("TFM_DEMO_003")),
            r"rule TFM_DEMO_003: field 'id': rules of area DEMO are not numbered contiguously "
            r"from 001 \(expected TFM_DEMO_002\)",
            id="non-contiguous",
        ),
        pytest.param(
            _area(_rule("TFM_DEMO_002")),
            r"not numbered contiguously from 001 \(expected TFM_DEMO_001\)",
            id="not-from-001",
        ),
        pytest.param(
            'area = "DEMO"\ntitle = "Demo\nsummary = "x"\n',
            r"demo\.toml: invalid TOML: ",
            id="invalid-toml",
        ),
        pytest.param(
            _area(_rule(generations='["2022", "2021"]')),
            r"field 'generations\[1\]': '2021' is not one of '2022', 'stack'",
            id="bad-generation",
        ),
        pytest.param(
            _area(_rule(generations="[]")),
            r"field 'generations': expected at least 1 item\(s\), got 0",
            id="no-generation",
        ),
        pytest.param(
            _area(_rule(generations='"2022"')),
            r"field 'generations': expected array, got string",
            id="generations-not-a-list",
        ),
        pytest.param(
            _area(_rule(statement='"The thing happens."')),
            r"field 'statement': does not contain its level keyword 'MUST'",
            id="statement-without-keyword",
        ),
        pytest.param(
            _area(_rule(example='"1 + 1"')),
            r"field 'example': '1 \+ 1' does not match pattern",
            id="example-not-doctest",
        ),
        pytest.param(
            _area(_rule(), head='area = "DEMO"\ntitle = "Demo"\n'),
            r"demo\.toml: field 'summary': missing required field",
            id="missing-summary",
        ),
        pytest.param(
            _area(_rule(), head='area = "DEMO"\ntitle = "Demo"\nsummary = "s"\nowner = "me"\n'),
            r"demo\.toml: field 'owner': unknown field",
            id="unknown-top-level-field",
        ),
        pytest.param(
            _area(head='area = "DEMO"\ntitle = "Demo"\nsummary = "s"\n'),
            r"demo\.toml: field 'rule': missing required field",
            id="no-rules",
        ),
        pytest.param(
            _area(_rule("TFM_OTHER_001"), area="OTHER"),
            r"demo\.toml: field 'area': 'OTHER' does not match the file name",
            id="area-not-file-name",
        ),
    ],
)
def test_malformed_files_are_rejected_with_one_line(
    tmp_path: Path, text: str, expected: str
) -> None:
    _write(tmp_path, text)
    message = _error(tmp_path)
    assert re.search(expected, message), message
    assert str(tmp_path / "demo.toml") in message


def test_bad_evidence_kind_names_rule_and_field(tmp_path: Path) -> None:
    text = _area(_rule()).replace('kind = "pr"', 'kind = "rumour"')
    _write(tmp_path, text)
    message = _error(tmp_path)
    assert "rule TFM_DEMO_001: field 'evidence[0].kind': 'rumour' is not one of" in message


def test_same_area_in_two_files(tmp_path: Path) -> None:
    _write(tmp_path, _area(_rule()))
    _write(tmp_path, _area(_rule()), name="Demo.toml")
    message = _error(tmp_path)
    assert "area DEMO is also defined in" in message


def test_empty_directory_and_missing_directory(tmp_path: Path) -> None:
    assert "no *.toml rule files" in _error(tmp_path)
    with pytest.raises(CatalogueError, match="not a directory"):
        load_catalogue(tmp_path / "absent")


def test_validate_area_document_directly() -> None:
    with pytest.raises(CatalogueError, match=r"^doc: field 'area': expected string, got integer$"):
        validate_area_document({"area": 1, "title": "t", "summary": "s", "rule": []}, "doc")


# ---------------------------------------------------------------------------
# Examples run against the reference implementation


def _runnable(rule: Any) -> bool:
    """Examples for reference_impl always; for torch when it is installed, of the right version."""
    if rule.example_impl == "reference_impl":
        return True
    try:
        import torch
    except ImportError:
        return False
    if torch.__version__.startswith("1.12."):  # the 2022 generation: torch examples use the stack API
        return False
    version = "1.13" if torch.__version__.startswith("1.") else "2.x"
    return bool(rule.applies_to("stack", version))


def _examples() -> list[Any]:
    return [pytest.param(rule.example, id=rule.id) for rule in load_catalogue() if _runnable(rule)]


@pytest.mark.parametrize("example", _examples())
def test_example_runs(example: str, request: pytest.FixtureRequest) -> None:
    rule_id = request.node.callspec.id
    parser = doctest.DocTestParser()
    globs: dict[str, Any] = {"__name__": f"example_{rule_id}"}
    test = parser.get_doctest(example, globs, rule_id, f"{rule_id}.example", 0)
    assert test.examples, f"{rule_id}: the example has no doctest lines"
    runner = doctest.DocTestRunner(
        verbose=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    report: list[str] = []
    result = runner.run(test, out=report.append)
    assert result.failed == 0, textwrap.indent("".join(report), "  ")
    # Examples must clean up after themselves: no mode left behind.
    import reference_impl

    assert reference_impl._C._get_torch_function_mode() is None
