"""``python -m spec explain``: the predicted trace step by step, and one-line errors."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from spec.__main__ import main
from spec.model import ScenarioError, scenario_from_dict
from spec.model.functions import FORMS

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "spec" / "scenarios").glob("*.toml"))


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_every_shipped_scenario_explains(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["explain", str(path)]) == 0
    out = capsys.readouterr().out
    assert "prediction:" in out and "outcome:" in out and "TFM_" in out


@pytest.mark.rule("TFM_PUSH_004", "TFM_REENTRY_004")
def test_mode_stack_is_explained_innermost_first(capsys: pytest.CaptureFixture[str]) -> None:
    main(["explain", str(ROOT / "spec" / "scenarios" / "mode_stack.toml")])
    lines = [line for line in capsys.readouterr().out.splitlines() if "__torch_function__" in line]
    assert [line.split(":")[0].split()[-1] for line in lines] == ["B", "A"]
    assert "current mode inside: A" in lines[0] and "current mode inside: <base>" in lines[1]
    assert "TFM_PUSH_004" in lines[1]


@pytest.mark.parametrize(("text", "problem"), [
    ("call = ", "not valid TOML"),
    ('[call]\nfunc = "nope"\n', "unknown function 'nope'"),
    ('[[modes]]\nname = "M"\n', "missing key 'behaviour'"),
    ('[[setup]]\npush = "M"\n', "unknown mode 'M'"),
    ('[call]\nfunc = "add"\nargs = ["plain"]\n', "do not fit 'add': it takes (input, other, alpha=INT)"),
    ('[call]\nfunc = "split"\nargs = ["plain"]\n',
     "do not fit 'split': it takes (tensor, split_size): a tensor and an integer > 0, by position only"),
    ('[call]\nfunc = "split"\nargs = ["plain", 1]\nkwargs = { split_size = 1 }\n',
     "call.kwargs: unknown key 'split_size' (allowed: alpha, input, other)"),
    ('colour = "red"\n', "unknown key 'colour'"),
    ('[call]\nfunc = "x[k] = c"\nargs = ["plain", 5, 2]\n',
     "do not fit the form 'x[k] = c': (x, k, c): a tensor (plain or of a Tensor subclass), the int 0 "
     "or 1, then an int"),
])
def test_malformed_file_gives_one_line(tmp_path: Path, text: str, problem: str) -> None:
    path = tmp_path / "bad.toml"
    path.write_text(text)
    done = subprocess.run([sys.executable, "-m", "spec", "explain", str(path)], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 2
    assert done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and problem in lines[0] and "Traceback" not in done.stderr


def test_missing_file_gives_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "spec", "explain", str(tmp_path / "none.toml")],
                          cwd=ROOT, capture_output=True, text=True, check=False)
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1
    assert "cannot read" in done.stderr


def test_a_bundled_scenario_or_an_example_is_found_by_name(tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # From any folder (an installed package has no spec/scenarios beside the user's files).
    by_file = main(["explain", str(ROOT / "spec" / "scenarios" / "mode_stack.toml")]), capsys.readouterr().out
    assert main(["explain", "mode_stack"]) == 0 and capsys.readouterr().out == by_file[1]
    assert main(["explain", "with_mode_pushes"]) == 0
    assert "with mode: makes the mode current" in capsys.readouterr().out
    assert main(["explain", "no_such_name"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "mode_stack" in err and "rule example" in err


def test_help_is_plain_text() -> None:
    done = subprocess.run([sys.executable, "-m", "spec", "explain", "--help"], cwd=ROOT,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "``" not in done.stdout and "mode_stack" in done.stdout


@pytest.mark.parametrize("form", sorted(FORMS))
def test_every_form_refuses_arguments_that_do_not_fit_it(form: str) -> None:
    # A shrinker's variant or a hand-written file may give any form any arguments: the answer
    # is a ScenarioError naming the form, never a KeyError of the model's own tables.
    for args in ([], ["plain"] * 4, [3, 3, 3][:FORMS[form].takes]):
        with pytest.raises(ScenarioError, match="do not fit the form"):
            scenario_from_dict({"call": {"func": form, "args": args}})


def test_a_handler_that_adds_to_what_it_forwards_reads_and_writes_back() -> None:
    from spec.model import scenario_to_dict
    from spec.model.scenario import ForwardAdd

    data = {"generation": "stack", "modes": [{"name": "M", "behaviour": {"add": 100}}],
            "setup": [{"enter": "M"}], "call": {"func": "neg", "args": ["plain"]}}
    scenario = scenario_from_dict(data)
    assert scenario.modes[0].behaviour.default == ForwardAdd(100)
    assert scenario_from_dict(scenario_to_dict(scenario)) == scenario
    for bad in ("100", True, 1.5):
        broken = {**data, "modes": [{"name": "M", "behaviour": {"add": bad}}]}
        with pytest.raises(ScenarioError, match="add takes an integer"):
            scenario_from_dict(broken)
    with pytest.raises(ScenarioError, match="exactly one of add, enable"):
        scenario_from_dict({**data, "modes": [{"name": "M", "behaviour": {"add": 1, "return": 2}}]})


def test_a_handler_that_adds_to_what_it_forwards_is_predicted_with_the_addition() -> None:
    """The addition is a call the handlers still active see: the mode below sees add."""
    from spec.model import predict
    from spec.model.trace import HandlerRun, Returned

    scenario = scenario_from_dict({
        "generation": "stack",
        "modes": [{"name": "M", "behaviour": "forward"}, {"name": "N", "behaviour": {"add": 100}}],
        "setup": [{"enter": "M"}, {"enter": "N"}], "call": {"func": "neg", "args": ["plain"]}})
    trace = predict(scenario, "2.x")
    runs = [(e.who, e.func) for e in trace.events if isinstance(e, HandlerRun)]
    assert runs == [("N", "neg"), ("M", "neg"), ("M", "add")]
    assert isinstance(trace.outcome, Returned)
    assert trace.outcome.value.data == (99.0, 103.0)  # type: ignore[union-attr]


@pytest.mark.rule("TFM_SELF_001")
def test_a_plain_handler_reached_through_a_forwarded_result_is_bound_to_no_argument() -> None:
    """A plain-method handler is bound to the object dispatch found it on. Reached through the
    mode's addition to the result it forwarded, that object is no argument of the scenario's
    call: the prediction binds the handler to "?" (as the runner records any object it did not
    build), where the first run is bound to the call's x0."""
    from spec.model import predict
    from spec.model.trace import HandlerRun

    scenario = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "P", "handler": "plain", "behaviour": "default"}],
        "modes": [{"name": "N", "behaviour": {"add": 100}}],
        "setup": [{"enter": "N"}], "call": {"func": "neg", "args": ["P"]}})
    trace = predict(scenario, "2.x")
    runs = [(e.who, e.func, e.bound) for e in trace.events if isinstance(e, HandlerRun)]
    assert runs == [("N", "neg", None), ("P", "neg", "x0"), ("P", "add", "?")]
    assert all("TFM_SELF_001" in e.rules for e in trace.events
               if isinstance(e, HandlerRun) and e.who == "P")
