"""A handler run where the rules dispatch to none is blamed on the rule that says so, and excused by it.

The implementation is the mutant ``empty_sequence_dispatches``: under a mode,
``has_torch_function(())`` is True, which breaks TFM_REACH_002, a SHOULD rule, and nothing else.
A scenario-defined function whose relevant arguments are empty is then dispatched to the mode
where the rules run the function itself. That handler run is the empty sequence's doing: it
must count against TFM_REACH_002 (not against the rule of the event the model predicts there,
the mode restored once the call is over), and an expected failure of TFM_REACH_002 must excuse
it, the model predicting what follows from the dispatch, so that the run still reaches MUST.
"""

from __future__ import annotations

from pathlib import Path

from conformance.adapter import NamespaceAdapter
from conformance.judge.check import check
from spec.catalogue import load_catalogue
from spec.model.codec import scenario_from_dict
from spec.model.scenario import Scenario
from tests.mutants._build import Mutation, build
from tests.mutants.empty_sequence_dispatches import MUTATIONS as EMPTY_SEQUENCE
from tests.quality.cli import run_suite

RULE = "TFM_REACH_002"
EMPTY = NamespaceAdapter(build("tfmode_excused_empty", EMPTY_SEQUENCE))
#: The same bug, and the Python path's mode handler given no keyword arguments.
NO_KWARGS = Mutation("overrides.py",
                     "            result = mode.__torch_function__(public_api, types, args, kwargs)\n",
                     "            result = mode.__torch_function__(public_api, types, args, {})\n")
BOTH = NamespaceAdapter(build("tfmode_excused_empty_both", (*EMPTY_SEQUENCE, NO_KWARGS)))


def scenario(behaviour: object) -> Scenario:
    """foo(a, b, c) guards on ``*b``, called with b empty under a mode doing ``behaviour``."""
    return scenario_from_dict({
        "generation": "2022",
        "functions": [{"name": "foo", "params": 3, "keywords": 2, "relevant": ["*b"]}],
        "modes": [{"name": "N", "behaviour": behaviour}],
        "setup": [{"enable": "N", "replace": "N"}],
        "call": {"func": "foo", "args": ["plain", [], "plain"]},
    })


def test_the_handler_run_is_blamed_on_the_empty_sequence_rule() -> None:
    checked = check(scenario({"return": 0}), EMPTY)
    assert checked is not None and checked.rules == (RULE,), checked.differences
    assert checked.differences[0].startswith("event 2: the call settled expected, a handler "
                                             f"run observed [{RULE}]"), checked.differences


def test_excused_the_rest_is_predicted_from_the_dispatch() -> None:
    # The mode declines: the rules say what follows a dispatch with no overloaded argument
    # (the Python path's TypeError), so the scenario is judged to its end.
    for behaviour in ({"return": 0}, "notimpl"):
        checked = check(scenario(behaviour), EMPTY, excused=(RULE,))
        assert checked is not None, behaviour
        assert checked.rules == (RULE,) and checked.excused == (RULE,), checked.differences
        assert not checked.cut_short, behaviour


def test_excused_a_second_bug_in_the_dispatched_call_still_fails() -> None:
    checked = check(scenario({"return": 0}), BOTH, excused=(RULE,))
    assert checked is not None and checked.excused == (RULE,) and not checked.cut_short
    # The handler's kwargs, compared once the dispatch is predicted, break the ARGS rules.
    assert set(checked.rules) - {RULE} == {"TFM_ARGS_002", "TFM_ARGS_004"}, checked.differences


def test_a_run_excusing_the_should_rule_reaches_must(tmp_path: Path) -> None:
    expected = tmp_path / "expected.toml"
    # Scoped to where the bug shows (a function the scenario defines, has_torch_function
    # itself) and to a word no eager run has: the certificate lists that word alone as unused.
    expected.write_text(f'[{RULE}]\nreason = "has_torch_function(()) is True under a mode"\n'
                        'functions = ["own function", "has_torch_function", "outside compile"]\n',
                        encoding="utf-8")
    run = run_suite("tests.mutants.empty_sequence_dispatches", tmp_path,
                    # a small exhaustive scope that calls the excused function, so the excusal
                    # is shown to hold there too (the default scope is 50,000 scenarios)
                    ["--expected-failures", str(expected), "--certify", "--exhaustive",
                     "modes=1,classes=1,setup=1,functions=has_torch_function|add"],
                    seed=None, profile=None,
                    timeout=900)
    assert run.certificate is not None, f"no certificate (exit {run.returncode})\n{run.tail()}"
    verdicts = run.verdicts()
    must = [r.id for r in load_catalogue().for_generation("2022") if r.level.startswith("MUST")]
    assert {r: verdicts[r] for r in must if verdicts[r] != "pass"} == {}, run.tail()
    assert verdicts[RULE] == "expected_failure"
    assert run.certificate["level"]["reached"] == "MUST"
    assert run.returncode == 0, run.tail()
    assert run.certificate["stale_expected_failures"] == []
    assert run.certificate["unused_scope"] == {RULE: ["outside compile"]}
