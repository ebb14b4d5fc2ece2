"""The per-rule example scenarios of ``spec/examples``: coverage, model agreement, reference_impl agreement.

(a) every catalogue rule is named by at least one example; (b) the model agrees that each
example exercises the rules it names; (c) reference_impl does what the model predicts for
each example; (d) the loader turns every kind of broken file into a one-line ExampleError.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.compare import differences
from conformance.runner import execute
from spec.catalogue import load_catalogue
from spec.examples import Example, ExampleError, examples_for, load_examples
from spec.model import predict, scenario_to_dict

EXAMPLES = load_examples()
ADAPTER = NamespaceAdapter(reference_impl)


def _cases() -> list[Any]:
    return [pytest.param(example, id=example.name, marks=pytest.mark.rule(*example.rules))
            for example in EXAMPLES]


# -- (a) coverage ---------------------------------------------------------------


def test_every_rule_is_named_by_an_example() -> None:
    named = {rule for example in EXAMPLES for rule in example.rules}
    uncovered = [rule for rule in load_catalogue().ids() if rule not in named]
    assert not uncovered, f"rules without an example: {', '.join(uncovered)}"


def test_one_example_file_per_area() -> None:
    areas = {area.name.lower() for area in load_catalogue().areas}
    assert {example.area for example in EXAMPLES} == areas


def test_examples_for_finds_the_examples_naming_a_rule() -> None:
    names = [example.name for example in examples_for("TFM_PUSH_004")]
    assert "test_mode_stack" in names
    assert all("TFM_PUSH_004" in example.rules for example in examples_for("TFM_PUSH_004"))
    with pytest.raises(KeyError):
        examples_for("TFM_NOPE_001")


def test_default_examples_are_cached() -> None:
    assert load_examples() is load_examples()


# -- (b) the model agrees each example exercises its rules ------------------------


@pytest.mark.parametrize("example", _cases())
def test_model_exercises_the_named_rules(example: Example) -> None:
    exercised = predict(example.scenario).rules_exercised()
    missing = [rule for rule in example.rules if rule not in exercised]
    assert not missing, f"{example.name}: the model's trace is decided by none of {missing}"


# -- (c) reference_impl agrees with the model on each example ----------------------


@pytest.mark.parametrize("example", _cases())
def test_reference_impl_does_what_the_model_predicts(example: Example) -> None:
    expected = predict(example.scenario)
    try:
        observed, naming = execute(example.scenario, ADAPTER)
    finally:
        leaked = ADAPTER.reset()
    assert not leaked, leaked
    diff = differences(expected, observed, naming)
    assert not diff, "\n".join([json.dumps(scenario_to_dict(example.scenario)), *diff])


# -- (d) loader errors ---------------------------------------------------------------

_GOOD = '''
[[example]]
name = "ok_example"
rules = ["TFM_ORDER_002"]
title = "A mode's answer is final"
[example.scenario]
modes = [{ name = "M", behaviour = { return = 1 } }]
setup = [{ push = "M" }]
call = { func = "neg", args = ["plain"] }
'''


def _write(directory: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        (directory / name).write_text(text, encoding="utf-8")
    return directory


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        pytest.param({"order.toml": "[[example]\nname = 1\n"}, "order.toml: invalid TOML", id="invalid-toml"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]", "colour = 1\n[example.scenario]")},
                     "example 'ok_example': unknown key 'colour'", id="unknown-example-key"),
        pytest.param({"order.toml": "version = 1\n" + _GOOD}, "order.toml: unknown key 'version'",
                     id="unknown-top-level-key"),
        pytest.param({"order.toml": _GOOD.replace('title = "A mode\'s answer is final"\n', "")},
                     "example 'ok_example': missing key 'title'", id="missing-title"),
        pytest.param({"order.toml": _GOOD.replace('rules = ["TFM_ORDER_002"]\n', "")},
                     "example 'ok_example': missing key 'rules'", id="missing-rules"),
        pytest.param({"order.toml": _GOOD.replace('name = "ok_example"\n', "")},
                     "example[0]: missing key 'name'", id="missing-name"),
        pytest.param({"order.toml": _GOOD.replace('name = "ok_example"', 'name = "Not Snake"')},
                     "name must be a snake_case string", id="bad-name"),
        pytest.param({"order.toml": _GOOD.replace('rules = ["TFM_ORDER_002"]', "rules = []")},
                     "rules must be a non-empty list", id="empty-rules"),
        pytest.param({"order.toml": _GOOD.replace("TFM_ORDER_002", "TFM_ORDER_999")},
                     "example 'ok_example': unknown rule ID 'TFM_ORDER_999'", id="unknown-rule"),
        pytest.param({"order.toml": _GOOD + _GOOD},
                     "example 'ok_example': duplicate name (also in order.toml)",
                     id="duplicate-name-same-file"),
        pytest.param({"order.toml": _GOOD, "push.toml": _GOOD},
                     "push.toml: example 'ok_example': duplicate name (also in order.toml)",
                     id="duplicate-name-across-files"),
        pytest.param({"order.toml": _GOOD.replace('func = "neg"', 'func = "frobnicate"')},
                     "example 'ok_example': scenario: call: unknown function 'frobnicate'",
                     id="scenario-unknown-function"),
        pytest.param({"order.toml": _GOOD.replace('push = "M"', 'push = "Nobody"')},
                     "example 'ok_example': scenario: setup[0]: unknown mode 'Nobody'",
                     id="scenario-unknown-mode"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]", "[example.scenario]\ncolour = 1")},
                     "example 'ok_example': scenario: unknown key 'colour'",
                     id="scenario-unknown-key"),
        pytest.param({"order.toml": "# nothing here\n"},
                     "order.toml: expected one or more [[example]] tables", id="no-examples"),
        pytest.param({}, "no *.toml example files", id="empty-directory"),
    ],
)
def test_loader_errors_are_one_line(tmp_path: Path, files: dict[str, str], expected: str) -> None:
    directory = _write(tmp_path, files)
    with pytest.raises(ExampleError) as info:
        load_examples(directory)
    message = str(info.value)
    assert "\n" not in message
    assert expected in message


def test_loader_reads_a_good_file(tmp_path: Path) -> None:
    (example,) = load_examples(_write(tmp_path, {"order.toml": _GOOD}))
    assert (example.name, example.rules, example.area) == ("ok_example", ("TFM_ORDER_002",), "order")
    assert example.scenario.title == example.title
