"""The expected-failures file: TOML keyed by rule ID, one-line errors, stale entries."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.session.expectations import (
    ExpectationsError,
    load_expectations,
    parse_expectations,
    stale_entries,
)
from spec.catalogue import load_catalogue

KNOWN = load_catalogue().ids()


def test_a_valid_file(tmp_path: Path) -> None:
    path = tmp_path / "xfails.toml"
    path.write_text('[TFM_ORDER_001]\nreason = "we try the\\n  subclasses first"\n\n'
                    "[TFM_REACH_002]\nreason = 'empty sequences count'\n", encoding="utf-8")
    assert load_expectations(path, KNOWN) == {
        "TFM_ORDER_001": "we try the subclasses first",
        "TFM_REACH_002": "empty sequences count",
    }


def test_an_empty_file_expects_nothing() -> None:
    assert parse_expectations("", KNOWN) == {}


@pytest.mark.parametrize(("text", "problem"), [
    ("[TFM_ORDER_001\nreason = 'x'", "f.toml: invalid TOML: "),
    ("[TFM_NOPE_001]\nreason = 'x'", "f.toml: unknown rule ID 'TFM_NOPE_001'"),
    ("[TFM_ORDER_001]\n", "f.toml: [TFM_ORDER_001] has no reason"),
    ("[TFM_ORDER_001]\nreason = '  '", "f.toml: [TFM_ORDER_001] reason must be a non-empty string"),
    ("[TFM_ORDER_001]\nreason = 3", "f.toml: [TFM_ORDER_001] reason must be a non-empty string"),
    ("[TFM_ORDER_001]\nreason = 'x'\nissue = 12", "f.toml: [TFM_ORDER_001] has unknown key 'issue'"),
    ("[TFM_ORDER_001]\nreason = 'x'\nsnippet = 1", "f.toml: [TFM_ORDER_001] snippet must be a string"),
    ("TFM_ORDER_001 = 'x'", "f.toml: [TFM_ORDER_001] must be a table with a reason"),
])
def test_problems_are_one_line(text: str, problem: str) -> None:
    with pytest.raises(ExpectationsError) as info:
        parse_expectations(text, KNOWN, "f.toml")
    message = str(info.value)
    assert message.startswith(problem)
    assert "\n" not in message


@pytest.mark.parametrize("make", ["missing", "directory", "binary"])
def test_an_unreadable_file(tmp_path: Path, make: str) -> None:
    path = tmp_path / "xfails.toml"
    if make == "directory":
        path.mkdir()
    elif make == "binary":
        path.write_bytes(b"\xff\xfe\x00bad")
    with pytest.raises(ExpectationsError) as info:
        load_expectations(path, KNOWN)
    assert str(info.value).startswith(f"{path}: cannot read the expected-failures file: ")
    assert "\n" not in str(info.value)


def test_entries_whose_rule_did_not_fail_are_stale() -> None:
    expected = {"TFM_ORDER_001": "a", "TFM_ORDER_002": "b", "TFM_ORDER_003": "c",
                "TFM_ORDER_004": "d"}
    verdicts = {"TFM_ORDER_001": "expected_failure", "TFM_ORDER_002": "pass",
                "TFM_ORDER_003": "untested", "TFM_ORDER_004": "fail"}
    assert stale_entries(expected, verdicts) == ["TFM_ORDER_002", "TFM_ORDER_003"]


def test_an_entry_may_carry_a_snippet() -> None:
    text = '[TFM_ORDER_001]\nreason = "x"\nsnippet = """\nimport torch\n"""\n'
    assert parse_expectations(text, KNOWN) == {"TFM_ORDER_001": "x"}


def test_the_shipped_files_load() -> None:
    folder = Path(__file__).parent.parent / "conformance" / "expected_failures"
    shipped = sorted(folder.glob("torch-*.toml"))
    for path in shipped:
        assert load_expectations(path, KNOWN), path
