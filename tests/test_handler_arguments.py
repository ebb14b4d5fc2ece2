"""TFM_ARGS_002: a handler run's ``args`` and ``kwargs`` values, predicted, recorded and compared.

The model predicts what each handler receives, described by structure (spec.model.trace.ArgSeen);
the runner describes what it did receive (conformance.target.arguments), the description crosses the
sandbox's boundary as validated JSON (conformance.sandbox.wire), and the comparison
(conformance.judge.compare) reports a wrong argument on TFM_ARGS_002, allowing only what the rules
allow: a Python-path function's own keywords (TFM_ARGS_004) and None or ``{}`` for a call
spread as ``func(*args, **{})`` (TFM_ARGS_003).
"""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conformance.adapter import NamespaceAdapter, load_adapter
from conformance.judge.attribution import event_rules
from conformance.judge.compare import args_match, differences, event_matches, kwvalues_match
from conformance.judge.divergence import describe_differences
from conformance.sandbox.tracewire import decode_trace, encode_trace
from conformance.sandbox.wire import (
    WireError,
    decode_arg,
    decode_event,
    encode_arg,
    encode_event,
)
from conformance.target.arguments import MAX_DEPTH, describe, describe_args, describe_kwargs
from conformance.target.runner import execute
from spec.examples import load_examples
from spec.model import predict, scenario_from_dict
from spec.model.trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    NONE_PASSED,
    ArgSeen,
    HandlerRun,
    Trace,
    same_arg,
)
from tests.mutants._build import Mutation, build

_LEAVES: st.SearchStrategy[ArgSeen] = st.one_of(
    st.builds(lambda i: ("obj", f"x{i}"), st.integers(0, 5)),
    st.builds(lambda n: ("int", n), st.integers(-(2**62), 2**62)),
    st.builds(lambda b: ("bool", b), st.booleans()),
    st.builds(lambda f: ("float", f), st.floats(allow_nan=False)),
    st.builds(lambda s: ("str", s), st.text(max_size=20)),
    st.just(("none", None)),
    st.builds(lambda s: ("other", s), st.sampled_from(["dict", "Foo", "set"])),
    st.just(("ellipsis", None)),
)
ARGS: st.SearchStrategy[ArgSeen] = st.recursive(
    _LEAVES, lambda inner: st.one_of(
        st.builds(lambda tag, items: (tag, tuple(items)),
                  st.sampled_from(["list", "tuple"]), st.lists(inner, max_size=3)),
        st.builds(lambda *ends: ("slice", ends), inner, inner, inner)),
    max_leaves=8)
ARG_LISTS = st.lists(ARGS, max_size=4).map(tuple)
KWVALUES = st.dictionaries(st.sampled_from(["input", "other", "alpha", "dim"]), ARGS,
                           max_size=3).map(lambda d: tuple(sorted(d.items())))


def _run(args: tuple[ArgSeen, ...] | None, kwargs: Any = None,
         kwvalues: tuple[tuple[str, ArgSeen], ...] | None = None) -> HandlerRun:
    why = (("kwargs", ("TFM_ARGS_003", "TFM_ARGS_002")), ("args", ("TFM_ARGS_002",)),
           ("kwvalues", ("TFM_ARGS_002",)))
    return HandlerRun("Sub", "subclass", "add", ("Sub",), kwargs, None, None, ("TFM_ORDER_004",),
                      why, args, kwvalues)


_RETURNED = predict(scenario_from_dict({"call": {"func": "ones", "args": [2]}})).outcome


def _rules(expected: HandlerRun, observed: HandlerRun) -> tuple[str, ...]:
    """The rules the comparison blames for ``observed`` where ``expected`` was predicted."""
    return event_rules(Trace((expected,), _RETURNED, None), 0, expected, observed, {})


def _changed(arg: ArgSeen) -> ArgSeen:
    """A description of some other argument."""
    return ("obj", "x9") if arg != ("obj", "x9") else ("int", 0)


# -- the descriptions themselves ------------------------------------------------------------------


@given(ARGS)
def test_a_description_travels_as_json_unchanged(arg: ArgSeen) -> None:
    back = decode_arg(json.loads(json.dumps(encode_arg(arg))), "arg")
    assert back == arg and same_arg(back, arg)


@given(ARGS, ARGS)
def test_same_arg_is_equality_of_descriptions(a: ArgSeen, b: ArgSeen) -> None:
    assert same_arg(a, a)
    assert same_arg(a, b) == same_arg(b, a)
    if same_arg(a, b):
        assert encode_arg(a) == encode_arg(b)


def test_a_bool_an_int_and_a_float_are_different_arguments() -> None:
    # True == 1 == 1.0 in Python; as arguments they are not the same.
    assert not same_arg(("int", 1), ("bool", True))
    assert not same_arg(("int", 1), ("float", 1.0))
    assert not same_arg(("list", (("int", 1),)), ("tuple", (("int", 1),)))
    assert describe(True, {}) == ("bool", True) and describe(1, {}) == ("int", 1)


def test_a_slice_is_described_by_its_ends_and_an_ellipsis_as_itself() -> None:
    one_on = describe(slice(1, None, None), {})
    assert one_on == ("slice", (("int", 1), ("none", None), ("none", None)))
    assert not same_arg(one_on, ("tuple", (("int", 1), ("none", None), ("none", None))))
    assert not same_arg(one_on, describe(slice(0, None, None), {}))
    assert describe(..., {}) == ("ellipsis", None) and not same_arg(("ellipsis", None), ("none", None))
    assert describe(slice(_Hostile([1]), None), {})[1][0] == ("other", "_Hostile")  # type: ignore[index]
    assert describe(slice(None, None), {"ignored": "x0"}) == (
        "slice", (("none", None), ("none", None), ("none", None)))


@pytest.mark.parametrize(("value", "problem"), [
    (["exec", "x"], "is not one of"),
    (["int", True], "expected an integer"),
    (["int", 2**70], "expected an integer"),
    (["bool", 1], "expected a bool"),
    (["float", "1.0"], "expected a float"),
    (["none", 0], "expected a none"),
    (["obj", 3], "expected a string"),
    (["list", "x0"], "expected a list"),
    (["slice", [["int", 1]]], "start, stop and step"),
    (["ellipsis", 0], "expected a ellipsis"),
    ({"tag": "obj"}, r"expected \[tag, value\]"),
    (["obj", "x0", "extra"], r"expected \[tag, value\]"),
    (json.loads('["list", ' * 40 + '["none", null]' + "]" * 40), "nested at most"),
])
def test_a_malformed_description_is_refused(value: Any, problem: str) -> None:
    with pytest.raises(WireError, match=problem):
        decode_arg(value, "arg")


def test_an_event_with_malformed_kwargs_values_is_refused() -> None:
    event = encode_event(_run((("obj", "x0"),), ("alpha",), (("alpha", ("int", 2)),)))
    assert decode_event(event) == _run(None, ("alpha",))
    assert decode_event(event).kwvalues == (("alpha", ("int", 2)),)
    for bad in ([["alpha"]], [[1, ["int", 2]]], "alpha", [["alpha", ["int", "2"]]]):
        with pytest.raises(WireError):
            decode_event({**event, "kwvalues": bad})


class _Hostile(list):  # type: ignore[type-arg]
    def __iter__(self) -> Any:
        raise RuntimeError("iterated")

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("compared")

    __hash__ = None  # type: ignore[assignment]


def test_describing_runs_none_of_the_implementations_code() -> None:
    loop: list[Any] = []
    loop.append(loop)
    idents = {id(loop): "x0"}
    assert describe(_Hostile([1]), {}) == ("other", "_Hostile")
    assert describe([loop], idents) == ("list", (("obj", "x0"),))
    deep: Any = []
    for _ in range(3 * MAX_DEPTH):
        deep = [deep]
    assert describe(deep, {})[0] == "list"  # cut where it gets too deep, not a RecursionError
    assert describe(10**100, {}) == ("other", "int")
    assert describe_args([1], {}) == (("other", "args is a list, not a tuple of arguments"),)
    assert describe_kwargs({1: 2}, {}) is None and describe_kwargs(None, {}) is None
    assert describe_kwargs({"b": None, "a": 1}, {}) == (("a", ("int", 1)), ("b", ("none", None)))


# -- the comparison --------------------------------------------------------------------------------


@given(ARG_LISTS, st.data())
def test_any_change_to_args_is_a_difference_of_tfm_args_002(args: tuple[ArgSeen, ...],
                                                            data: st.DataObject) -> None:
    expected = _run(args, ("alpha",), (("alpha", ("int", 2)),))
    assert event_matches(expected, replace(expected, rules=(), why=()), {})
    changes = [args + (("int", 0),)]  # one too many (a keyword moved into args)
    if args:
        i = data.draw(st.integers(0, len(args) - 1))
        changes.append(args[:i] + args[i + 1:])  # one dropped
        changes.append(args[:i] + (_changed(args[i]),) + args[i + 1:])  # one changed
    for observed_args in changes:
        observed = replace(expected, args=observed_args, rules=(), why=())
        assert not args_match(expected.args, observed.args)
        assert not event_matches(expected, observed, {})
        assert _rules(expected, observed) == ("TFM_ARGS_002",)


@given(KWVALUES, KWVALUES)
def test_kwargs_values_named_by_the_prediction_must_arrive(predicted: tuple[tuple[str, ArgSeen], ...],
                                                           extra: tuple[tuple[str, ArgSeen], ...]) -> None:
    # Keys the prediction does not name are the kwargs field's to allow (ANY_DICT): extra ones pass.
    seen = tuple(sorted({**dict(extra), **dict(predicted)}.items()))
    assert kwvalues_match(predicted, seen)
    expected = _run((), ANY_DICT, predicted)
    observed = _run((), tuple(k for k, _ in seen), seen)
    assert event_matches(expected, observed, {})
    if predicted:
        key = predicted[0][0]
        wrong = tuple((k, _changed(v) if k == key else v) for k, v in seen)
        assert not kwvalues_match(predicted, wrong)
        assert _rules(expected, replace(observed, kwvalues=wrong)) == ("TFM_ARGS_002",)
        missing = tuple((k, v) for k, v in seen if k != key)
        assert not kwvalues_match(predicted, missing)


def test_a_spread_call_may_reach_the_handler_with_none_or_an_empty_dict() -> None:
    expected = _run((("obj", "x0"),), NONE_OR_EMPTY, ())
    assert event_matches(expected, _run((("obj", "x0"),), None, None), {})
    assert event_matches(expected, _run((("obj", "x0"),), (), ()), {})
    observed = _run((("obj", "x0"),), ("alpha",), (("alpha", ("int", 1)),))
    assert not event_matches(expected, observed, {})
    assert _rules(expected, observed) == ("TFM_ARGS_003", "TFM_ARGS_002")


def test_without_keywords_the_native_path_passes_none() -> None:
    expected = _run((("obj", "x0"),), None, ())
    assert event_matches(expected, _run((("obj", "x0"),), None, None), {})
    assert not event_matches(expected, _run((("obj", "x0"),), (), ()), {})


def test_nothing_predicted_is_nothing_compared() -> None:
    assert args_match(None, (("int", 1),)) and kwvalues_match(None, None) and kwvalues_match((), None)


# -- the model against reference_impl, and the two broken copies ----------------------------------

_2022 = [e for e in load_examples() if e.scenario.generation == "2022"]


def test_every_example_predicts_the_arguments_reference_impl_passes() -> None:
    adapter = load_adapter("reference_impl")
    compared = 0
    for example in _2022:
        expected = predict(example.scenario)
        observed, naming = execute(example.scenario, adapter)
        adapter.reset()
        assert not differences(expected, observed, naming), example.name
        for exp, obs in zip(expected.events, observed.events, strict=False):
            if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun):
                assert exp.args is not None and obs.args is not None, example.name
                compared += 1
        back = decode_trace(json.loads(json.dumps(encode_trace(observed))))
        assert [(e.args, e.kwvalues) for e in back.events if isinstance(e, HandlerRun)] == [
            (e.args, e.kwvalues) for e in observed.events if isinstance(e, HandlerRun)], example.name
    assert compared > 50


_SPLIT = {"classes": [{"name": "Sub", "behaviour": {"return": 1}}],
          "call": {"func": "split", "args": ["Sub", 1]}}
_ADD = {"classes": [{"name": "Sub", "behaviour": {"return": 1}}],
        "modes": [{"name": "M", "behaviour": "forward"}], "setup": [{"push": "M"}],
        "call": {"func": "add", "args": ["Sub", "plain"], "kwargs": {"alpha": 2}}}

#: A handler that redispatches hands on the arguments it got: the run of add it causes must see them.
_REDISPATCHED = {"classes": [{"name": "Sub", "behaviour": {"default": {"return": 1},
                                                           "on": {"sub": {"redispatch": "add"}}}}],
                 "call": {"func": "sub", "args": ["Sub", "plain"]}}


@pytest.mark.parametrize(("impl", "scenario", "observed"), [
    ("tests.mutants.split_keyword_positional", _SPLIT, "(x0, 1, 0)"),
    ("tests.mutants.add_replaces_other", _ADD, "(x0, <other Tensor>)"),
    ("tests.mutants.add_replaces_other", _REDISPATCHED, "(x0, <other Tensor>)"),
])
def test_a_broken_argument_fails_tfm_args_002(impl: str, scenario: dict[str, Any], observed: str) -> None:
    sc = scenario_from_dict(scenario)
    expected = predict(sc)
    for name, fails in (("reference_impl", False), (impl, True)):
        adapter = load_adapter(name)
        trace, naming = execute(sc, adapter)
        adapter.reset()
        lines = describe_differences(expected, trace, naming, sc)
        assert bool(lines) == fails, (name, lines)
    assert lines[0].endswith(", a handler run, its field 'args' [TFM_ARGS_002]:"), lines
    if scenario is _REDISPATCHED:  # the run of sub matched; that of the add it redispatched did not
        assert lines[0].startswith("event 1,") and "for add:" in lines[3], lines
    assert lines[2] == f"  observed: {observed}", lines


# -- TFM_ARGS_003: three arguments, or None as a fourth --------------------------------------------

#: reference_impl as torch 1.13 calls handlers: always four arguments, None the fourth when the
#: caller passed no keywords (built here, not a registered mutant).
_NONE_FOURTH = (
    Mutation("_dispatch.py",
             "            if kwargs:\n"
             "                result = mode.__torch_function__(func, types, args, kwargs)\n"
             "            else:\n"
             "                result = mode.__torch_function__(func, types, args)\n",
             "            result = mode.__torch_function__(func, types, args, kwargs or None)\n"),
    Mutation("_dispatch.py",
             "result = handler(func, types, args, kwargs) if kwargs else handler(func, types, args)",
             "result = handler(func, types, args, kwargs or None)"),
)
_NEG_UNDER_A_MODE = {"classes": [{"name": "Sub", "behaviour": {"return": 1}}],
                     "modes": [{"name": "M", "behaviour": "forward"}], "setup": [{"push": "M"}],
                     "call": {"func": "neg", "args": ["Sub"]}}


def test_none_as_a_fourth_argument_is_not_three_arguments() -> None:
    sc = scenario_from_dict(_NEG_UNDER_A_MODE)
    expected = predict(sc)
    reference, naming = execute(sc, load_adapter("reference_impl"))
    assert not differences(expected, reference, naming)
    assert [e.kwargs for e in reference.events if isinstance(e, HandlerRun)] == [None, None]
    fourth = NamespaceAdapter(build("tfmode_kwargs_none_fourth", _NONE_FOURTH))
    observed, naming = execute(sc, fourth)
    assert [e.kwargs for e in observed.events if isinstance(e, HandlerRun)] == [NONE_PASSED] * 2
    lines = describe_differences(expected, observed, naming, sc)
    assert lines[0].endswith("its field 'kwargs' [TFM_ARGS_003]:"), lines  # a count, no value
    assert lines[1:3] == ["  expected: None (three arguments, so the handler's own default)",
                          "  observed: None, passed as a fourth argument"], lines
    # what crosses the sandbox's boundary keeps the difference
    back = decode_trace(json.loads(json.dumps(encode_trace(observed))))
    assert [e.kwargs for e in back.events if isinstance(e, HandlerRun)] == [NONE_PASSED] * 2


def test_none_as_a_fourth_argument_is_allowed_where_a_dict_is_spread() -> None:
    expected = _run((("obj", "x0"),), NONE_OR_EMPTY, ())
    assert event_matches(expected, _run((("obj", "x0"),), NONE_PASSED, None), {})
    # but it is no dict, where the Python path must hand one on (TFM_ARGS_004)
    assert not event_matches(_run((("obj", "x0"),), ANY_DICT, None),
                             _run((("obj", "x0"),), NONE_PASSED, None), {}, "kwargs")
