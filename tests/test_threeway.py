"""Compiled against eager: the eager run is the oracle, the model names the rules.

No torch here: one implementation plays eager and another plays the compiled run. The
reference is built from the model's prediction and the eager trace; a "compiled" run that
does what eager did passes, one that does what the model says where eager does not fails the
rule of that step.
"""

from __future__ import annotations

from dataclasses import replace

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.judge.compare import differences
from conformance.judge.comparison import compare_traces
from conformance.judge.excusal import absorb, judge
from conformance.judge.threeway import eager_as_reference, reference, templated, to_common_depth
from conformance.target.runner import execute
from spec.model import predict
from spec.model.codec import scenario_from_dict
from spec.model.trace import Message, Raised, Ref, Returned, Trace
from tests.mutants._build import build
from tests.mutants.kwargs_empty_dict import MUTATIONS as KWARGS_DICT
from tests.test_blame import BUILT

RIGHT = NamespaceAdapter(reference_impl)
#: eager torch's stand-in that departs from the model: native handlers get kwargs == {}
DICT = NamespaceAdapter(build("tfmode_threeway_kwargs", KWARGS_DICT))
#: a pushed mode that forwards add(x, y): its handler sees kwargs None (TFM_ARGS_003)
FORWARD = scenario_from_dict({
    "modes": [{"name": "M", "behaviour": "forward"}],
    "setup": [{"push": "M"}],
    "call": {"func": "add", "args": ["plain", "plain"]},
})


def test_eager_that_follows_the_model_is_the_reference_with_its_choices_pinned() -> None:
    expected = predict(FORWARD)
    eager, naming = execute(FORWARD, RIGHT)
    oracle = reference(expected, eager, naming)
    assert oracle is not None
    assert not differences(oracle, eager, naming)
    assert [e.rules for e in oracle.events] == [e.rules for e in expected.events]


def test_a_compiled_run_that_differs_from_a_conforming_eager_fails_the_rule_of_that_step() -> None:
    expected = predict(FORWARD)
    eager, eager_naming = execute(FORWARD, RIGHT)
    compiled, naming = execute(FORWARD, DICT)
    oracle = reference(expected, eager, eager_naming)
    assert oracle is not None
    judged = judge(FORWARD, oracle, compiled, naming)
    assert "TFM_ARGS_003" in judged.failed


def test_eager_divergence_is_absorbed_so_a_compiled_run_like_eager_passes() -> None:
    expected = predict(FORWARD)
    eager, eager_naming = execute(FORWARD, DICT)
    assert differences(expected, eager, eager_naming)  # eager itself departs from the model
    oracle = reference(expected, eager, eager_naming)
    assert oracle is not None
    compiled, naming = execute(FORWARD, DICT)
    assert not differences(oracle, compiled, naming)
    # ...and a compiled run that does what the model says, where eager does not, fails
    right, right_naming = execute(FORWARD, RIGHT)
    assert "TFM_ARGS_003" in judge(FORWARD, oracle, right, right_naming).failed


def test_mode_reprs_become_references_that_match_another_runs_objects() -> None:
    text = "no implementation in mode <scenario.M object at 0x7f00aa>; again <scenario.M object at 0x7f00aa>"
    message = templated(Message((text,)), {("mode", "M"): "<scenario.M object at 0x7f00aa>",
                                            ("type", "M"): "<class 'scenario.M'>"})
    assert message.parts == ("no implementation in mode ", Ref("mode", "M"), "; again ",
                             Ref("mode", "M"))
    other = {("mode", "M"): "<scenario.M object at 0x7f1234>"}
    assert message.render(other) == text.replace("0x7f00aa", "0x7f1234")


def test_a_shape_divergence_compares_with_eager_itself_and_blames_eagers_rules() -> None:
    expected = predict(FORWARD)
    eager, naming = execute(FORWARD, RIGHT)
    shorter = replace(eager, events=eager.events[:-1])  # eager "lost" its last event
    assert reference(expected, shorter, naming) is None
    oracle = eager_as_reference(FORWARD, expected, shorter, naming)
    assert not differences(oracle, shorter, naming)
    assert oracle.outcome.rules  # every step carries the rules of eager's own divergence
    raised = replace(shorter, outcome=Raised("TypeError", Message(("boom",))))
    assert judge(FORWARD, oracle, raised, naming).failed == oracle.outcome.rules


def test_a_recursion_error_matches_whatever_text_says_where_the_limit_was_hit() -> None:
    """Eager's recursion may end in the suite's own recording, compiled code's elsewhere: the
    exception is compared, the text (where the limit was hit) is not."""
    eager, naming = execute(FORWARD, RIGHT)
    expected = replace(predict(FORWARD), outcome=Raised("RecursionError", Message(("deep",))))
    deep = replace(eager, outcome=Raised("RecursionError", Message((
        "maximum recursion depth exceeded while encoding a JSON object",))))
    compiled = replace(eager, outcome=Raised("RecursionError", Message((
        "maximum recursion depth exceeded while calling a Python object",))))
    oracle = reference(expected, deep, naming)
    assert oracle is not None
    assert not differences(oracle, compiled, naming)
    other = replace(eager, outcome=Raised("TypeError", Message(("boom",))))
    assert differences(oracle, other, naming)  # another exception still differs
    shape = eager_as_reference(FORWARD, expected, replace(deep, events=deep.events[:-1]), naming)
    assert not differences(shape, replace(compiled, events=compiled.events[:-1]), naming)


def _recursing(trace: Trace, runs: int) -> Trace:
    """``trace`` with its handler run repeated ``runs`` times and a RecursionError at the end,
    as a handler that recurses until Python's limit leaves it."""
    constructed, installed, handler, settled = trace.events
    return replace(trace, events=(constructed, installed, *[handler] * runs, settled),
                   outcome=Raised("RecursionError", Message(("maximum recursion depth exceeded",))))


def test_recursion_to_a_different_depth_is_not_a_difference_but_what_recursed_is() -> None:
    eager, naming = execute(FORWARD, RIGHT)
    deep, shallow = _recursing(eager, 498), _recursing(eager, 497)
    assert differences(deep, shallow, naming)  # compared as they are, the counts differ
    for a, b in ((deep, shallow), (shallow, deep)):
        cut_a, cut_b = to_common_depth(a, b)
        assert len(cut_a.events) == len(cut_b.events) == 500
        assert not differences(cut_a, cut_b, naming)
    # a run that recursed through another handler, or did not recurse, keeps its difference
    handler = eager.events[2]
    other = replace(shallow, events=(*shallow.events[:3], replace(handler, func="sub"),
                                     *shallow.events[4:]))
    assert differences(*to_common_depth(deep, other), naming)
    returned = replace(shallow, outcome=eager.outcome)
    assert to_common_depth(deep, returned) == (deep, returned)


#: compiled torch 2.5.1 and 2.8.0's stand-in: has_torch_function counts a subclass's override
#: inside DisableTorchFunction, so a function the default handler calls again dispatches there
#: (the planted fault of tests/test_blame.py, built here in-process)
IGNORES_GUARD = NamespaceAdapter(build("tfmode_threeway_guard", BUILT["blame_guard_ignores_disable"]))
#: foo(b), b of a subclass that keeps the default handler: it calls foo again, guarded
RECALL = scenario_from_dict({
    "classes": [{"name": "B", "handler": "inherit"}],
    "functions": [{"name": "foo", "params": 1, "relevant": ["a"]}],
    "call": {"func": "foo", "args": ["B"]},
})


def test_a_compiled_call_that_dispatches_past_a_guard_fails_the_guards_rule_alone() -> None:
    expected = predict(RECALL)
    eager, eager_naming = execute(RECALL, RIGHT)
    oracle = reference(expected, eager, eager_naming)
    assert oracle is not None
    compiled, naming = execute(RECALL, IGNORES_GUARD)
    assert isinstance(compiled.outcome, Raised) and compiled.outcome.exc_type == "TypeError"
    assert isinstance(expected.outcome, Returned) and len(expected.outcome.rules) > 1
    assert judge(RECALL, oracle, compiled, naming).failed == ("TFM_REACH_003",)


def test_an_absorbed_value_keeps_what_the_call_would_raise_otherwise() -> None:
    expected = predict(RECALL)
    assert isinstance(expected.outcome, Returned) and expected.outcome.if_raised
    other = replace(expected, outcome=Returned(7))
    absorbed = absorb(compare_traces(RECALL, expected, other, {}))
    assert absorbed is not None and isinstance(absorbed.outcome, Returned)
    assert absorbed.outcome.value == 7
    assert absorbed.outcome.rules == expected.outcome.rules
    assert absorbed.outcome.if_raised == expected.outcome.if_raised
