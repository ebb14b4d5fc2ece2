"""The per-rule example scenarios of ``spec/examples``: coverage, model agreement, implementation agreement.

(a) every catalogue rule is named by at least one example, and every rule that holds for the
stack generation by a stack example of a version it holds for; (b) the model agrees that each
example exercises the rules it names (predicted for the example's version); (c) reference_impl
does what the model predicts for each 2022 example; (c') torch, when it is installed, does what
the model predicts for each stack example of torch 2.x (``version`` absent or ``"2.x"``), except
the known divergences, which must still diverge; (d) the loader turns every kind of broken file
into a one-line ExampleError.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any

import pytest

import reference_impl
from conformance.adapter import Adapter, NamespaceAdapter, load_adapter
from conformance.judge.compare import differences
from conformance.target.runner import execute
from spec.boundary import Boundary
from spec.catalogue import load_catalogue
from spec.examples import Example, ExampleError, examples_for, load_examples
from spec.model import predict, scenario_to_dict
from tests.torch_divergences import NUMPY_DIVERGENCES, TORCH_DIVERGENCES

EXAMPLES = load_examples()
CATALOGUE = load_catalogue()
ADAPTER = NamespaceAdapter(reference_impl)
TORCH_FOUND = importlib.util.find_spec("torch") is not None

NUMPY_FOUND = importlib.util.find_spec("numpy") is not None

#: Rules that hold for the stack generation but that no stack scenario can show: rule -> reason.
#: The coverage tests check that no stack example names them, so an entry cannot go stale.
STACK_INEXPRESSIBLE: dict[str, str] = {
    "TFM_STACK_003": "set-up steps and handler pushes are nested with-blocks, so the stack is "
                     "never empty when a mode exits; popping an empty stack needs an unbalanced exit",
    "TFM_PUSH_009": "a stack scenario cannot put a BaseTorchFunctionMode instance on the stack",
    "TFM_ERROR_007": "the stack profile of the model does not specify a mode handler that calls "
                     "super().__torch_function__ (the action 'default' is Unspecified there)",
}


#: Rules that no scenario of the model expresses and that the suite's own tests check instead
#: (the device context is not part of the scenario language): rule -> the suite module whose
#: tests carry the rule's marker. test_suite_checked_rules_are_tested checks the marks, so an
#: entry cannot outlive its tests.
SUITE_CHECKED: dict[str, str] = {
    **{f"TFM_OWNMODE_{n:03d}": "conformance.suite.test_ownmodes" for n in range(1, 7)},
    # bad input to has_torch_function: a non-iterable, a generator or an object whose
    # __iter__ or __len__ raises is not a value of the scenario language
    "TFM_REACH_008": "conformance.suite.test_contract",
    # every listed callable of the implementation; a scenario calls a handful of functions
    "TFM_REACH_009": "conformance.suite.test_surface",
    # an operand the operator does not take (object()) is not a value of the scenario language
    "TFM_SYNTAX_003": "conformance.suite.test_surface",
}


def _effective_version(example: Example) -> str | None:
    """The version the example is checked for: its own, 2.x for other stack examples, None for 2022."""
    if example.scenario.generation != "stack":
        return None
    return example.version or "2.x"


def _param(example: Example) -> Any:
    return pytest.param(example, id=example.name, marks=pytest.mark.rule(*example.rules))


def _cases() -> list[Any]:
    return [_param(example) for example in EXAMPLES]


def _cases_2022() -> list[Any]:
    return [_param(example) for example in EXAMPLES if example.scenario.generation == "2022"]


def _cases_torch() -> list[Any]:
    return [_param(example) for example in EXAMPLES if _effective_version(example) == "2.x"]


# -- (a) coverage ---------------------------------------------------------------


def test_every_rule_is_named_by_an_example() -> None:
    named = {rule for example in EXAMPLES for rule in example.rules}
    uncovered = [rule for rule in CATALOGUE.ids()
                 if rule not in named and rule not in STACK_INEXPRESSIBLE and rule not in SUITE_CHECKED]
    assert not uncovered, f"rules without an example: {', '.join(uncovered)}"


def test_every_stack_rule_is_named_by_a_stack_example_of_its_version() -> None:
    uncovered = []
    for rule in CATALOGUE.for_generation("stack"):
        if rule.id in STACK_INEXPRESSIBLE or rule.id in SUITE_CHECKED:
            continue
        if not any(rule.id in example.rules and example.scenario.generation == "stack"
                   and rule.applies_to("stack", _effective_version(example)) for example in EXAMPLES):
            uncovered.append(rule.id)
    assert not uncovered, f"stack rules without a stack example: {', '.join(uncovered)}"


def test_inexpressible_stack_rules_are_current() -> None:
    for rule_id, reason in STACK_INEXPRESSIBLE.items():
        assert "stack" in CATALOGUE.by_id(rule_id).generations and reason
        naming = [e.name for e in EXAMPLES if e.scenario.generation == "stack" and rule_id in e.rules]
        assert not naming, (f"{rule_id} has stack examples ({', '.join(naming)}): "
                            "drop it from STACK_INEXPRESSIBLE")


def _rule_marks(module_name: str) -> set[str]:
    """The rule IDs the ``@pytest.mark.rule(...)`` decorators of a module's tests name, read
    from its source (importing a suite module outside the plugin would warn of its marks)."""
    import ast
    import importlib.util

    spec = importlib.util.find_spec(module_name)
    assert spec is not None and spec.origin is not None, module_name
    tree = ast.parse(Path(spec.origin).read_text(encoding="utf-8"))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
            for deco in node.decorator_list:
                if (isinstance(deco, ast.Call) and isinstance(deco.func, ast.Attribute)
                        and deco.func.attr == "rule"):
                    found |= {a.value for a in deco.args
                              if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    return found


def test_suite_checked_rules_are_tested() -> None:
    for rule_id, module_name in SUITE_CHECKED.items():
        assert rule_id in CATALOGUE.ids(), rule_id
        naming = [e.name for e in EXAMPLES if rule_id in e.rules]
        assert not naming, f"{rule_id} has examples ({', '.join(naming)}): drop it from SUITE_CHECKED"
        assert rule_id in _rule_marks(module_name), (
            f"no test of {module_name} carries @pytest.mark.rule({rule_id!r})")


def test_named_rules_hold_for_the_example() -> None:
    wrong = [f"{example.name}: {rule}" for example in EXAMPLES for rule in example.rules
             if not CATALOGUE.by_id(rule).applies_to(example.scenario.generation,
                                                     _effective_version(example))]
    assert not wrong, ("rules named by an example of a generation/version they do not hold for: "
                       + "; ".join(wrong))


def test_one_example_file_per_area() -> None:
    areas = {area.name.lower() for area in CATALOGUE.areas
             if not all(rule.id in SUITE_CHECKED for rule in area.rules)}
    assert {example.area for example in EXAMPLES} == areas


def test_versions_only_on_stack_examples() -> None:
    assert all(example.version in (None, "1.13", "2.x") for example in EXAMPLES)
    assert all(example.version is None for example in EXAMPLES if example.scenario.generation != "stack")
    assert any(example.version == "1.13" for example in EXAMPLES)


def test_known_torch_divergences_are_stack_examples_for_2x() -> None:
    by_name = {example.name: example for example in EXAMPLES}
    for name, reason in {**TORCH_DIVERGENCES, **NUMPY_DIVERGENCES}.items():
        assert name in by_name, f"TORCH_DIVERGENCES names no example {name!r}"
        assert _effective_version(by_name[name]) == "2.x" and reason


def test_examples_for_finds_the_examples_naming_a_rule() -> None:
    names = [example.name for example in examples_for("TFM_PUSH_004")]
    assert "test_mode_stack" in names
    assert all("TFM_PUSH_004" in example.rules for example in examples_for("TFM_PUSH_004"))
    assert "same_mode_entered_twice" in [example.name for example in examples_for("TFM_STACK_004")]
    with pytest.raises(KeyError):
        examples_for("TFM_NOPE_001")


def test_default_examples_are_cached() -> None:
    assert load_examples() is load_examples()


# -- (b) the model agrees each example exercises its rules ------------------------


@pytest.mark.parametrize("example", _cases())
def test_model_exercises_the_named_rules(example: Example) -> None:
    exercised = predict(example.scenario, example.version).rules_exercised()
    missing = [rule for rule in example.rules if rule not in exercised]
    assert not missing, f"{example.name}: the model's trace is decided by none of {missing}"


# -- (c) reference_impl agrees with the model on each 2022 example -----------------


@pytest.mark.parametrize("example", _cases_2022())
def test_reference_impl_does_what_the_model_predicts(example: Example) -> None:
    expected = predict(example.scenario)
    try:
        observed, naming = execute(example.scenario, ADAPTER)
    finally:
        leaked = ADAPTER.reset()
    assert not leaked, leaked
    diff = differences(expected, observed, naming)
    assert not diff, "\n".join([json.dumps(scenario_to_dict(example.scenario)), *diff])


# -- (c') torch 2.x agrees with the model on each stack example of 2.x ---------------

if TORCH_FOUND:

    @pytest.fixture(scope="module")
    def torch_adapter() -> Adapter:
        adapter = load_adapter("torch")
        assert adapter.generation == "stack", f"torch {adapter.version} is not of the stack generation"
        return adapter

    @pytest.mark.parametrize("example", _cases_torch())
    def test_torch_does_what_the_model_predicts(example: Example, torch_adapter: Adapter) -> None:
        expected = predict(example.scenario, "2.x")
        try:
            observed, naming = execute(example.scenario, torch_adapter)
        finally:
            leaked = torch_adapter.reset()
        assert not leaked, leaked
        diff = differences(expected, observed, naming)
        table = ("TORCH_DIVERGENCES" if example.name in TORCH_DIVERGENCES else
                 "NUMPY_DIVERGENCES" if example.name in NUMPY_DIVERGENCES and NUMPY_FOUND else None)
        if table is not None:
            assert diff, (f"{example.name}: torch {torch_adapter.version} now does what the model "
                          f"predicts; remove it from {table}")
            return
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

_STACK = '''
[[example]]
name = "ok_stack"
rules = ["TFM_STACK_009"]
title = "1.13 rejects a classmethod mode handler"
version = "1.13"
[example.scenario]
generation = "stack"
modes = [{ name = "C", behaviour = { return = 5 }, classmethod_handler = true }]
setup = [{ enter = "C" }]
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
        pytest.param({"stack.toml": _STACK.replace('version = "1.13"', 'version = "2.0"')},
                     "example 'ok_stack': version must be '1.13' or '2.x', got '2.0'", id="bad-version"),
        pytest.param({"stack.toml": _STACK.replace('version = "1.13"', "version = 1.13")},
                     "example 'ok_stack': version must be '1.13' or '2.x', got 1.13",
                     id="version-not-a-string"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  'version = "2.x"\n[example.scenario]')},
                     "example 'ok_example': version '2.x' is only for generation 'stack' scenarios",
                     id="version-on-2022-example"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_outside = 2\n[example.scenario]")},
                     "example 'ok_example': compile_outside must be a number of set-up steps from 0 "
                     "to 1, got 2", id="compile-outside-past-the-set-up"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_outside = true\n[example.scenario]")},
                     "compile_outside must be a number of set-up steps from 0 to 1, got True",
                     id="compile-outside-not-a-number"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_break = 2\n[example.scenario]")},
                     "example 'ok_example': compile_break must be a number of set-up steps from 0 "
                     "(those entered outside) to 1, got 2", id="compile-break-past-the-set-up"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_outside = 1\ncompile_break = 0\n"
                                                  "[example.scenario]")},
                     "compile_break must be a number of set-up steps from 1 (those entered "
                     "outside) to 1, got 0", id="compile-break-outside"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_made_inside = 1\n[example.scenario]")},
                     "compile_made_inside must be true or false, got 1",
                     id="compile-made-inside-not-a-flag"),
        pytest.param({"order.toml": _GOOD.replace("[example.scenario]",
                                                  "compile_outside = 1\ncompile_made_inside = true\n"
                                                  "[example.scenario]")},
                     "compile_made_inside needs every set-up step inside the compiled function "
                     "(outside 0, got 1)", id="compile-made-inside-with-a-step-outside"),
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
    assert example.version is None


def test_loader_reads_where_the_compiled_run_begins(tmp_path: Path) -> None:
    (example,) = load_examples(_write(tmp_path, {"order.toml": _GOOD}))
    assert example.compile_boundary == Boundary()
    (outside,) = load_examples(_write(tmp_path, {"order.toml": _GOOD.replace(
        "[example.scenario]", "compile_outside = 1\n[example.scenario]")}))
    assert outside.compile_boundary == Boundary(outside=1)
    (broken,) = load_examples(_write(tmp_path, {"order.toml": _GOOD.replace(
        "[example.scenario]", "compile_break = 1\ncompile_made_inside = true\n[example.scenario]")}))
    assert broken.compile_boundary == Boundary(graph_break=1, made_inside=True)


def test_loader_reads_a_version(tmp_path: Path) -> None:
    (example,) = load_examples(_write(tmp_path, {"stack.toml": _STACK}))
    assert (example.name, example.version, example.scenario.generation) == ("ok_stack", "1.13", "stack")
    (plain,) = load_examples(_write(tmp_path, {"stack.toml": _STACK.replace('version = "1.13"\n', "")}))
    assert plain.version is None
