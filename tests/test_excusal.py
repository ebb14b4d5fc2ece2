"""Expected failures excuse exactly what they name; nothing else in the trace or the sweep hides.

The implementation here has two bugs at once: NEP-18 insertion inverted (superclasses first,
which a mode sees in ``types``) and native handlers always given a ``kwargs`` dict. In one
handler run both show: ``types`` in the wrong order and ``kwargs == {}`` where ``None`` is due.
Declaring the first bug an expected failure must not hide the second, in one trace or across
the generated sweep.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import core

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.judge.check import check
from conformance.judge.excusal import OWN_FUNCTION, Excusals
from conformance.search.sweep import run_sweep
from conformance.session.expectations import ExpectationsError, parse_scopes
from spec.model.codec import scenario_from_dict, scenario_to_dict
from tests.mutants._build import build
from tests.mutants.kwargs_empty_dict import MUTATIONS as KWARGS_DICT
from tests.mutants.superclass_first import MUTATIONS as SUPERCLASS_FIRST

pytest_plugins = ("pytester",)

PAIR = NamespaceAdapter(build("tfmode_excusal_pair", (*SUPERCLASS_FIRST, *KWARGS_DICT)))
ORDERING = build("tfmode_excusal_order", SUPERCLASS_FIRST)
#: A declining mode sees add(a, sub_a): types (SubA, A) and kwargs None are due.
BOTH_IN_ONE_RUN = scenario_from_dict({
    "classes": [{"name": "A", "behaviour": "notimpl"},
                {"name": "SubA", "parent": "A", "behaviour": {"return": 1}}],
    "modes": [{"name": "M", "behaviour": "notimpl"}],
    "setup": [{"push": "M"}],
    "call": {"func": "add", "args": ["A", "SubA"]},
})


def ordering_rules() -> tuple[str, ...]:
    """The rules the wrong order alone is attributed to (on the single-bug implementation)."""
    checked = check(BOTH_IN_ONE_RUN, NamespaceAdapter(ORDERING))
    assert checked is not None and checked.rules, "the ordering bug must show in the scenario"
    assert set(checked.rules) <= {"TFM_ORDER_003", "TFM_ORDER_004", "TFM_ORDER_005"}
    return checked.rules


def test_without_excusal_the_first_divergence_is_reported() -> None:
    checked = check(BOTH_IN_ONE_RUN, PAIR)
    assert checked is not None
    assert checked.rules == ordering_rules()
    assert checked.excused == ()


def test_an_excused_field_does_not_hide_the_next_one() -> None:
    excused = ordering_rules()
    checked = check(BOTH_IN_ONE_RUN, PAIR, excused=excused)
    assert checked is not None
    assert checked.excused == excused
    assert "TFM_ARGS_003" in checked.rules, checked.differences
    assert not set(checked.rules) <= set(excused)  # so the test showing both is a failure
    assert not checked.cut_short


def test_an_excused_divergence_alone_is_only_excused() -> None:
    excused = ordering_rules()
    checked = check(BOTH_IN_ONE_RUN, NamespaceAdapter(ORDERING), excused=excused)
    assert checked is not None and checked.rules == excused and checked.excused == excused


def test_what_follows_an_excused_types_divergence_is_predicted_from_it() -> None:
    # The declining mode is followed by the arguments in the order the implementation
    # collected them: A (declines) before SubA (returns 1). The model predicts that from
    # the observed types, so the excused bug explains the whole trace and nothing is cut.
    excused = ordering_rules()
    checked = check(BOTH_IN_ONE_RUN, NamespaceAdapter(ORDERING), excused=excused)
    assert checked is not None and not checked.cut_short
    assert checked.observed.events[-2].who == "SubA"  # type: ignore[union-attr]


def test_the_sweep_goes_on_past_an_excused_divergence(monkeypatch: pytest.MonkeyPatch) -> None:
    # Both sweeps draw the same scenarios (a given seed, as --hypothesis-seed sets it); the
    # rules the ordering bug alone breaks in them are excused.
    monkeypatch.setattr(core, "global_force_seed", 20261201)
    alone = run_sweep(NamespaceAdapter(ORDERING), "2022", 400, chunk=0)
    excused = frozenset(r for r, record in alone.rules.items() if record.failures)
    assert excused and "TFM_ARGS_003" not in excused
    sweep = run_sweep(PAIR, "2022", 400, keep=400, chunk=0, excused=excused)
    assert sweep.examples == 400 and not sweep.errors and not sweep.stopped
    assert sweep.excused > 0, "some scenario must show the excused bug"
    first_excused = min(f[0] for r in excused if r in sweep.rules for f in sweep.rules[r].failures)
    kwargs_failures = [f[0] for f in sweep.rules["TFM_ARGS_003"].failures]
    assert kwargs_failures, "the bug no expected failure names must be found"
    assert max(kwargs_failures) > first_excused, "scenarios after the excused one were checked"


TOY = '''
import json
import pytest
from conformance.judge.check import check
from tests.test_excusal import BOTH_IN_ONE_RUN, PAIR


@pytest.mark.rule("TFM_ORDER_003", "TFM_ORDER_004", "TFM_ARGS_003")
def test_both_in_one_trace(excused, record_property):
    checked = check(BOTH_IN_ONE_RUN, PAIR, excused=excused)
    record_property("failed_rules", ",".join(checked.rules))
    assert not checked.differences, checked.differences
'''


def test_an_unexpected_failure_beside_an_expected_one_fails_the_run(
        pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> None:
    pytester.makepyfile(test_toy=TOY)
    entries = "".join(f'[{r}]\nreason = "superclasses first"\n' for r in ordering_rules())
    pytester.makefile(".toml", expected=entries)
    root = str(Path(__file__).resolve().parent.parent)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    result = pytester.runpytest_subprocess("-p", "conformance.plugin", "-p", "no:cacheprovider",
                                           "--impl", "reference_impl", "--expected-failures",
                                           "expected.toml", timeout=300)
    result.assert_outcomes(failed=1)
    cert = json.loads((pytester.path / "reports" / "certificate.json").read_text())
    assert cert["rules"]["TFM_ARGS_003"]["verdict"] == "fail"
    for rule in ordering_rules():
        assert cert["rules"][rule]["verdict"] == "expected_failure"


def test_a_scoped_entry_excuses_only_in_its_functions() -> None:
    rules = ordering_rules()
    ordering = NamespaceAdapter(ORDERING)
    elsewhere = check(BOTH_IN_ONE_RUN, ordering, excused=Excusals({r: {"mul"} for r in rules}))
    here = check(BOTH_IN_ONE_RUN, ordering, excused=Excusals({r: {"add"} for r in rules}))
    assert elsewhere is not None and elsewhere.excused == () and elsewhere.rules == rules
    assert here is not None and here.excused == rules


def test_a_failure_names_the_rules_it_fails_apart_from_those_excused() -> None:
    rules = ordering_rules()
    ordering = NamespaceAdapter(ORDERING)
    here = check(BOTH_IN_ONE_RUN, ordering, excused=Excusals({r: {"add"} for r in rules}))
    elsewhere = check(BOTH_IN_ONE_RUN, ordering, excused=Excusals({r: {"mul"} for r in rules}))
    assert here is not None and elsewhere is not None
    assert elsewhere.breaks() == ", ".join(rules)
    assert here.breaks() == f"{', '.join(rules)} (excused by the expected failures)"
    beside = replace(here, rules=(*here.rules, "TFM_ARGS_003"))  # a later divergence not excused
    assert beside.breaks() == (f"TFM_ARGS_003 (and, excused by the expected failures, "
                               f"{', '.join(rules)})")
    clean = check(BOTH_IN_ONE_RUN, NamespaceAdapter(reference_impl))
    assert clean is not None and clean.breaks(("TFM_ORDER_001",)) == "TFM_ORDER_001"


#: BOTH_IN_ONE_RUN's call written as syntax: the handler runs are handed Tensor.add.
AS_SYNTAX = scenario_from_dict({**{k: v for k, v in scenario_to_dict(BOTH_IN_ONE_RUN).items()
                                   if k != "call"},
                                "call": {"func": "x + y", "args": ["A", "SubA"]}})


def test_a_scope_names_a_syntactic_form_or_the_callable_it_hands() -> None:
    ordering = NamespaceAdapter(ORDERING)
    rules = check(AS_SYNTAX, ordering)
    assert rules is not None and rules.rules, "the ordering bug must show through x + y"
    for scope, excused in (({"x + y"}, True), ({"Tensor.add"}, True), ({"k + x"}, False),
                           ({"add"}, False)):
        checked = check(AS_SYNTAX, ordering, excused=Excusals({r: scope for r in rules.rules}))
        assert checked is not None and bool(checked.excused) is excused, scope


def test_scopes_are_read_and_checked() -> None:
    known = {"TFM_TYPES_003", "TFM_ORDER_004"}
    text = '[TFM_TYPES_003]\nfunctions = ["Tensor.neg"]\nreason = "x"\n[TFM_ORDER_004]\nreason = "y"\n'
    assert parse_scopes(text, known) == {"TFM_TYPES_003": frozenset({"Tensor.neg"}),
                                         "TFM_ORDER_004": frozenset()}
    with pytest.raises(ExpectationsError, match=r"^f.toml: \[TFM_TYPES_003\] functions must be"):
        parse_scopes('[TFM_TYPES_003]\nfunctions = ["nope"]\nreason = "x"\n', known, "f.toml")


SCOPED_TOY = '''
import pytest


@pytest.mark.rule("TFM_ORDER_003")
def test_expected_rule_broken_where_not_excused(record_property):
    record_property("failed_rules", "TFM_ORDER_003")
    record_property("excused_rules", "")
    assert False, "TFM_ORDER_003 broken outside the functions its entry names"


@pytest.mark.rule("TFM_ORDER_004")
def test_expected_rule_broken_where_excused(record_property):
    record_property("failed_rules", "TFM_ORDER_004")
    record_property("excused_rules", "TFM_ORDER_004")
    assert False, "TFM_ORDER_004 broken where its entry excuses it"
'''


def test_an_expected_rule_broken_where_its_entry_does_not_excuse_it_fails(
        pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_toy=SCOPED_TOY)
    pytester.makefile(".toml", expected='[TFM_ORDER_003]\nfunctions = ["add"]\nreason = "a"\n'
                                        '[TFM_ORDER_004]\nfunctions = ["add"]\nreason = "b"\n')
    result = pytester.runpytest_subprocess("-p", "conformance.plugin", "-p", "no:cacheprovider",
                                           "--impl", "reference_impl", "--expected-failures",
                                           "expected.toml", timeout=300)
    result.assert_outcomes(failed=1, xfailed=1)
    cert = json.loads((pytester.path / "reports" / "certificate.json").read_text())
    assert cert["rules"]["TFM_ORDER_003"]["verdict"] == "fail"
    assert cert["rules"]["TFM_ORDER_004"]["verdict"] == "expected_failure"


#: BOTH_IN_ONE_RUN's call made to a Python function the scenario defines (dispatched through
#: handle_torch_function): the handler runs are for foo, a name no vocabulary word stands for.
AS_OWN_FUNCTION = scenario_from_dict({
    **{k: v for k, v in scenario_to_dict(BOTH_IN_ONE_RUN).items() if k != "call"},
    "functions": [{"name": "foo", "params": 2, "relevant": ["a", "b"]}],
    "call": {"func": "foo", "args": ["A", "SubA"]},
})


def test_a_scope_names_a_function_the_scenario_defines_by_the_word_own_function() -> None:
    ordering = NamespaceAdapter(ORDERING)
    rules = check(AS_OWN_FUNCTION, ordering)
    assert rules is not None and rules.rules, "the ordering bug must show through foo"
    for scope, excused in (({OWN_FUNCTION}, True), ({"foo"}, True), ({"add"}, False)):
        checked = check(AS_OWN_FUNCTION, ordering, excused=Excusals({r: scope for r in rules.rules}))
        assert checked is not None and bool(checked.excused) is excused, scope
    # the word excuses nothing in a vocabulary function's dispatch
    broken = check(BOTH_IN_ONE_RUN, ordering)
    assert broken is not None and broken.rules
    plain = check(BOTH_IN_ONE_RUN, ordering, excused=Excusals({r: {OWN_FUNCTION} for r in broken.rules}))
    assert plain is not None and plain.excused == () and plain.rules == broken.rules
    text = f'[TFM_TYPES_003]\nfunctions = ["split", "{OWN_FUNCTION}"]\nreason = "x"\n'
    assert parse_scopes(text, {"TFM_TYPES_003"}) == {
        "TFM_TYPES_003": frozenset({"split", OWN_FUNCTION})}


def test_a_scope_naming_the_boundary_excuses_only_runs_whose_set_up_began_outside() -> None:
    """"outside compile" in an entry's functions: a compiled run that entered set-up steps
    around the compiled function has its divergences of that rule excused wherever they show;
    the same divergence of a run compiled whole inside is not."""
    from conformance.session.expectations import parse_scopes
    from spec.boundary import OUTSIDE_COMPILE, Boundary

    text = ('[TFM_ORDER_002]\nreason = "applied again"\nfunctions = ["outside compile", "neg"]\n')
    scopes = parse_scopes(text, {"TFM_ORDER_002"})
    assert scopes == {"TFM_ORDER_002": frozenset({OUTSIDE_COMPILE, "neg"})}
    excusals = Excusals(scopes)
    assert not excusals.covers(("TFM_ORDER_002",), ("add",))
    inside, outside = Boundary(), Boundary(outside=2)
    assert excusals.in_compiled_run(inside).covers(("TFM_ORDER_002",), ("neg",))
    assert not excusals.in_compiled_run(inside).covers(("TFM_ORDER_002",), ("add",))
    assert excusals.in_compiled_run(outside).covers(("TFM_ORDER_002",), ("add",))
    assert not excusals.in_compiled_run(outside).covers(("TFM_ORDER_002", "TFM_ORDER_001"), ("add",))
    # the other boundaries have words of their own: "outside compile" is not one of them
    assert not excusals.in_compiled_run(Boundary(graph_break=0, made_inside=True)).covers(
        ("TFM_ORDER_002",), ("add",))


def test_scopes_name_a_forced_graph_break_and_tensors_made_inside() -> None:
    """"across a graph break" excuses a divergence of a compiled run with a graph break forced
    inside the compiled function, "made inside compile" one whose call's tensors were made in
    it; neither excuses a run without its feature."""
    from conformance.session.expectations import parse_scopes
    from spec.boundary import Boundary

    text = ('[TFM_TYPES_001]\nreason = "x"\nfunctions = ["across a graph break"]\n'
            '[TFM_TYPES_002]\nreason = "x"\nfunctions = ["made inside compile"]\n')
    excusals = Excusals(parse_scopes(text, {"TFM_TYPES_001", "TFM_TYPES_002"}))
    broken, made = Boundary(graph_break=1), Boundary(made_inside=True)
    assert excusals.in_compiled_run(broken).covers(("TFM_TYPES_001",), ("add",))
    assert not excusals.in_compiled_run(made).covers(("TFM_TYPES_001",), ("add",))
    assert excusals.in_compiled_run(made).covers(("TFM_TYPES_002",), ("add",))
    assert not excusals.in_compiled_run(broken).covers(("TFM_TYPES_002",), ("add",))
    assert not excusals.in_compiled_run(Boundary()).covers(("TFM_TYPES_001",), ("add",))


def test_a_scope_names_a_scenario_with_a_classmethod_mode() -> None:
    """"classmethod mode": a divergence of a compiled run of a scenario with a mode whose
    handler is a classmethod, wherever it shows (a set-up step that went missing has no
    function); a scenario whose modes have plain-method handlers is not covered."""
    from conformance.session.expectations import parse_scopes
    from spec.boundary import Boundary
    from spec.model.codec import scenario_from_dict

    def scenario(classmethod_handler: bool) -> Any:
        return scenario_from_dict({
            "generation": "stack", "setup": [{"enter": "M"}],
            "modes": [{"name": "M", "behaviour": "forward",
                       "classmethod_handler": classmethod_handler}],
            "call": {"func": "neg", "args": ["plain"]}})

    text = '[TFM_STACK_001]\nreason = "x"\nfunctions = ["classmethod mode"]\n'
    excusals = Excusals(parse_scopes(text, {"TFM_STACK_001"}))
    assert excusals.in_compiled_run(Boundary(1), scenario(True)).covers(("TFM_STACK_001",), ())
    assert not excusals.in_compiled_run(Boundary(1), scenario(False)).covers(("TFM_STACK_001",), ())
    assert not excusals.in_compiled_run(Boundary(1)).covers(("TFM_STACK_001",), ())


def test_the_failure_a_sweep_reports_is_the_first_no_entry_excuses(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A rule broken first where an expected failure excuses it (in scope) and later where none
    does: the sweep's first recorded failure of the rule is the later one, the one to report and
    shrink, not the excused one (which shrinking could only turn back into an excused case)."""
    from types import SimpleNamespace

    from conformance.search import sweep as sweep_module

    verdicts = iter([("TFM_ORDER_001",), (), ("TFM_ORDER_001",)] + [()] * 100)

    def fake_check(scenario: object, adapter: object, excused: object = (),
                   boundary: object = None) -> SimpleNamespace:
        excused_here = next(verdicts)
        return SimpleNamespace(
            compilation=None, not_compiled=False, rules=("TFM_ORDER_001",),
            excused=excused_here, cut_short=False, differences=(f"excused={excused_here}",),
            fault=None, expected=SimpleNamespace(rules_exercised=lambda: ("TFM_ORDER_001",)))

    monkeypatch.setattr(sweep_module, "check", fake_check)
    sweep = run_sweep(NamespaceAdapter(ORDERING), "2022", 5, keep=3, chunk=0)
    record = sweep.rules["TFM_ORDER_001"]
    assert record.unexcused_first and sweep.unexcused == {"TFM_ORDER_001"}
    assert [f[0] for f in record.failures] == [2, 1, 3]
    assert record.failures[0][2] == ("excused=()",)
