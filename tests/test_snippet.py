"""Reproduction snippets run on their own and see exactly what the conformance runner sees."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.generate.strategies import FORWARD_ADD, scenarios
from conformance.snippet import describe, snippet
from conformance.target.runner import execute
from spec.examples import Example, load_examples
from spec.model import Scenario, predict, scenario_from_dict, scenario_to_dict
from spec.model.functions import FORMS
from tests.example_counts import examples

ADAPTER = NamespaceAdapter(reference_impl)
ROOT = Path(__file__).resolve().parent.parent
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def run_snippet(code: str) -> tuple[list[str], BaseException | None]:
    """Exec ``code`` in a fresh namespace (module ``scenario``, like the runner's classes)."""
    out = io.StringIO()
    error: BaseException | None = None
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        try:
            exec(compile(code, "<snippet>", "exec"), {"__name__": "scenario"})
        except Exception as exc:
            error = exc
    return [_ADDRESS.sub("0x?", line) for line in out.getvalue().splitlines()], error


def check(scenario: Scenario) -> None:
    assume(not any("RecursionError" in line for line in describe(_observed(scenario))))
    _same_as_the_runner(scenario)


def _observed(scenario: Scenario) -> Any:
    try:
        expected, _ = execute(scenario, ADAPTER)
    finally:
        ADAPTER.reset()
    return expected


def _same_as_the_runner(scenario: Scenario) -> None:
    expected = _observed(scenario)
    code = snippet(scenario, "reference_impl", "2022")
    try:
        lines, error = run_snippet(code)
    finally:
        leaked = ADAPTER.reset()
    assert not leaked, leaked
    header = json.dumps(scenario_to_dict(scenario))
    assert lines == describe(expected), f"{header}\n{code}"
    raised = expected.outcome.exc_type if hasattr(expected.outcome, "exc_type") else None
    assert (type(error).__name__ if error else None) == raised, header


@settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("2022"))
def test_snippet_reaches_the_runners_outcome(scenario: Scenario) -> None:
    check(scenario)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("2022", frozenset({"disable-subclass", "python-path", FORWARD_ADD})))
def test_snippet_of_a_handler_that_changes_what_it_forwards_reaches_the_runners_outcome(
        scenario: Scenario) -> None:
    check(scenario)


_FORM_EXAMPLES = [example for example in load_examples()
                  if example.scenario.generation == "2022" and example.scenario.call is not None
                  and example.scenario.call.func in FORMS]


@pytest.mark.parametrize("example", _FORM_EXAMPLES, ids=[e.name for e in _FORM_EXAMPLES])
def test_a_snippet_of_a_form_names_what_its_handlers_are_handed(example: Example) -> None:
    # The handlers of a snippet must know the form's callables (Tensor.lt for x < y, the
    # getter of x.real) as the runner does, or they take them for inner calls and forward.
    _same_as_the_runner(example.scenario)


def test_snippet_runs_as_a_script_in_a_fresh_interpreter(tmp_path: Path) -> None:
    scenario = scenario_from_dict({
        "classes": [{"name": "A", "behaviour": "notimpl"},
                    {"name": "B", "parent": "A", "handler": "plain", "behaviour": "forward_disabled"}],
        "modes": [{"name": "M", "behaviour": {"default": "notimpl", "on": {"add": {"return": 7}}}},
                  {"name": "N", "behaviour": {"redispatch": "add", "reenter": True}}],
        "setup": [{"push": "M"}, {"enable": "N", "replace": "M"}],
        "call": {"func": "sub", "args": ["A", "B"], "kwargs": {"alpha": 2}},
    })
    expected, _ = execute(scenario, ADAPTER)
    ADAPTER.reset()
    path = tmp_path / "repro.py"
    path.write_text(snippet(scenario, "reference_impl", "2022"), encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=False,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}, timeout=60)
    lines = [_ADDRESS.sub("0x?", line) for line in done.stdout.splitlines()]
    # Classes print as __main__.X in a script, as scenario.X in the runner.
    assert [x.replace("__main__.", "scenario.") for x in lines] == describe(expected), done.stderr
    assert done.returncode == (1 if expected.outcome.__class__.__name__ == "Raised" else 0)


def test_a_snippet_ends_with_the_predicted_outcome_beside_the_observed_one(tmp_path: Path) -> None:
    # The error_text mutant words the native TypeError otherwise: the script raises it, and
    # after the traceback says what the specification predicted (computed when it was written).
    scenario = scenario_from_dict({"classes": [{"name": "A", "behaviour": "notimpl"}],
                                   "call": {"func": "add", "args": ["A", "A"]}})
    predicted = predict(scenario)
    path = tmp_path / "repro.py"
    path.write_text(snippet(scenario, "tests.mutants.error_text", "2022", predicted),
                    encoding="utf-8")
    assert "import spec" not in path.read_text(encoding="utf-8")
    done = subprocess.run([sys.executable, str(path)], capture_output=True, text=True, check=False,
                          cwd=tmp_path, env={"PYTHONPATH": str(ROOT)}, timeout=60)
    assert done.returncode == 1 and "Traceback" in done.stderr, done.stderr
    lines = done.stdout.splitlines()
    observed = "raised TypeError: no implementation found for 'tests.mutants.error_text.add' on " \
               "types implementing __torch_function__: [<class '__main__.A'>]"
    assert lines[-4:] == [
        observed,
        "current mode afterwards: None",
        f"observed outcome:           {observed}",
        "the specification predicts: raised TypeError: no implementation found for '<func add>' "
        "on types that implement __torch_function__: [<type A>]",
    ], done.stdout


def test_adapter_specs_get_an_adapter_driven_script() -> None:
    scenario = scenario_from_dict({
        "classes": [{"name": "A", "behaviour": "default"}],
        "modes": [{"name": "M", "behaviour": "forward"}],
        "setup": [{"push": "M"}, {"enable": "M", "ignore_preexisting": True}, {"disable": True}],
        "call": {"func": "Tensor.add", "args": ["A", "plain"]},
    })
    expected, _ = execute(scenario, ADAPTER)
    ADAPTER.reset()
    code = snippet(scenario, "conformance.adapter:NamespaceAdapter", "2022")
    assert "load_adapter('conformance.adapter:NamespaceAdapter')" in code
    # That spec does not construct (NamespaceAdapter needs a module); run the same text
    # with the namespace's adapter put in its place.
    code = code.replace("ad = load_adapter('conformance.adapter:NamespaceAdapter')",
                        "import reference_impl\nad = NamespaceAdapter(reference_impl)")
    code = code.replace("from conformance.adapter import load_adapter",
                        "from conformance.adapter import NamespaceAdapter")
    lines, _ = run_snippet(code)
    ADAPTER.reset()
    assert lines == describe(expected)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(scenarios("stack"))
def test_stack_generation_snippets_are_python(scenario: Scenario) -> None:
    for impl in ("torch", "my_pkg.adapters:TorchAdapter"):
        code = snippet(scenario, impl, "stack")
        compile(code, "<snippet>", "exec")
        assert "push_torch_function_mode(" not in code or impl.endswith("Adapter")
