"""The rule catalogue's loader: a malformed catalogue is refused with one line naming the
file, the rule and the field."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from spec.catalogue import (
    CatalogueError,
    load_catalogue,
    validate_area_document,
)

if sys.version_info >= (3, 11):
    pass
else:  # Python 3.10
    pass


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


def test_example_stack_is_loaded_and_needs_the_stack_generation(tmp_path: Path) -> None:
    example = "'''\n>>> import torch\n'''"
    _write(tmp_path, _area(_rule(generations='["2022", "stack"]', example_stack=example)))
    assert load_catalogue(tmp_path).by_id("TFM_DEMO_001").example_stack == ">>> import torch\n"
    _write(tmp_path, _area(_rule(example_stack=example)))
    message = _error(tmp_path)
    assert "rule TFM_DEMO_001" in message and "field 'example_stack'" in message
    assert "does not apply to the stack generation" in message
    _write(tmp_path, _area(_rule(generations='["2022", "stack"]', example_stack="'import torch'")))
    assert "field 'example_stack'" in _error(tmp_path)
    _write(tmp_path, _area(_rule()))
    assert load_catalogue(tmp_path).by_id("TFM_DEMO_001").example_stack is None
