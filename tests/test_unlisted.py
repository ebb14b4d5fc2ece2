"""Every call a handler is handed is recorded (spec.model.trace.Unlisted), and one that neither
the scenario nor the suite made breaks TFM_REACH_010, named.

The scenario's handlers act on the functions the scenario knows by name; any other function a
handler is handed it lets through unchanged and records. tests.mutants.mode_handed_own_reads
hands its mode ``Tensor.tolist`` of the first argument before each call written in Python: the
judge names that call and blames TFM_REACH_010 alone; an excusal scoped to that function absorbs
it and one scoped to another does not. On torch 2.13.0 the suite's own ``tensor()`` (a Python
function's kernel) reaches a mode and breaks nothing; compiled, Dynamo's reads of a subclass
input's metadata reach the subclass's handler and are named.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import SimpleNamespace
from typing import Any

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.base.safe import function_name
from conformance.judge.comparison import compare_traces
from conformance.judge.divergence import describe
from conformance.judge.excusal import Excusals, judge
from conformance.judge.threeway import reference
from conformance.sandbox.tracewire import decode_trace, encode_trace
from conformance.sandbox.wire import WireError
from conformance.session.expectations import parse_scopes
from conformance.target.runner import execute
from spec.model import predict
from spec.model.codec import scenario_from_dict
from spec.model.trace import UNLISTED_RULE, HandlerRun, Returned, Trace, Unlisted, grouped

TORCH = importlib.util.find_spec("torch") is not None

#: A Python-path call under a mode that declines: the mutant hands the mode Tensor.tolist first.
PYTHON_PATH = scenario_from_dict({
    "modes": [{"name": "M", "behaviour": "notimpl"}],
    "classes": [{"name": "A", "behaviour": {"return": 3}}],
    "setup": [{"push": "M"}],
    "call": {"func": "split", "args": ["A", 1]},
})


def _mutant() -> NamespaceAdapter:
    return NamespaceAdapter(importlib.import_module("tests.mutants.mode_handed_own_reads"))


def test_function_names_are_as_a_user_spells_them_and_never_raise() -> None:
    assert function_name(reference_impl.tensor) == "tensor"
    assert function_name(reference_impl.Tensor.add) == "Tensor.add"
    assert function_name((1, 2)) == "<tuple>"

    class Lying:
        def __call__(self) -> None:
            """A callable whose every attribute raises."""

        def __getattribute__(self, name: str) -> Any:
            raise RuntimeError(name)

    assert function_name(Lying()) == "?"

    class Getter:  # a property's __get__ as a descriptor's method-wrapper shows it
        __name__ = "__get__"
        __self__ = SimpleNamespace(__name__="shape", __objclass__=type("TensorBase", (), {}))

        def __call__(self) -> None:
            """Callable, as a getter is."""

    assert function_name(Getter()) == "Tensor.shape.__get__"


@pytest.mark.rule("TFM_REACH_010")
def test_operators_of_torchs_registry_are_named_as_torch_ops_spells_them() -> None:
    """The two profiler operators torch's own record_function hands a mode (Dynamo 2.9 and 2.10
    open one for each step of a compilation): their ``__qualname__`` names a pybind11 function
    record of the build, or holds ``::``, which no expected-failures entry could spell."""

    class Packet:  # torch.ops.profiler._record_function_enter_new as the handler is handed it
        __name__ = "_record_function_enter_new"
        __qualname__ = ("pybind11_detail_function_record_v1_system_libstdcpp_gxx_abi_1xxx_use_"
                        "cxx11_abi_1._record_function_enter_new")
        __module__ = "torch._ops.profiler"

        def __call__(self) -> None:
            """Callable, as an operator is."""

    class Overload(Packet):  # torch.ops.profiler._record_function_exit._RecordFunction
        __name__ = "_record_function_exit._RecordFunction"
        __qualname__ = "profiler::_record_function_exit._RecordFunction"
        __module__ = "torch._ops.profiler"

    assert function_name(Packet()) == "ops.profiler._record_function_enter_new"
    assert function_name(Overload()) == "ops.profiler._record_function_exit._RecordFunction"
    names = [function_name(Packet()), function_name(Overload())]
    entry = f'[{UNLISTED_RULE}]\nreason = "profiler ops"\nfunctions = {names!r}\n'.replace("'", '"')
    assert parse_scopes(entry, [UNLISTED_RULE]) == {UNLISTED_RULE: frozenset(names)}


def test_grouped_keeps_one_entry_per_handler_function_and_maker() -> None:
    calls = [Unlisted("M", "mode", "Tensor.size", 0), Unlisted("A", "subclass", "Tensor.size", 1),
             Unlisted("M", "mode", "Tensor.size", 2), Unlisted("M", "mode", "tensor", 2, "kernel")]
    assert grouped(calls) == (Unlisted("M", "mode", "Tensor.size", 0, None, 2),
                              Unlisted("A", "subclass", "Tensor.size", 1),
                              Unlisted("M", "mode", "tensor", 2, "kernel"))


def test_the_wire_carries_unlisted_calls_and_refuses_what_does_not_fit() -> None:
    trace = Trace((), Returned(None), None,
                  unlisted=(Unlisted("M", "mode", "Tensor.size", 0, None, 3),))
    assert decode_trace(encode_trace(trace)).unlisted == trace.unlisted
    for bad, said in (([["M", "queen", "f", 0, None, 1]], "is not one of"),
                      ([["M", "mode", "f", 1, None, 1]], "expected an integer from 0 to 0"),
                      ([["M", "mode", "f", 0, None, 0]], "expected an integer from 1"),
                      ([["M", "mode", "f", 0, None, 1]] * 2, "a second entry for M handed f")):
        shown = encode_trace(trace) | {"unlisted": bad}
        with pytest.raises(WireError, match=said):
            decode_trace(shown)


@pytest.mark.rule("TFM_REACH_010")
def test_a_call_the_implementation_made_is_recorded_named_and_blamed_on_its_rule() -> None:
    expected = predict(PYTHON_PATH)
    assert UNLISTED_RULE in expected.rules_exercised()
    clean, naming = execute(PYTHON_PATH, NamespaceAdapter(reference_impl))
    assert clean.unlisted == () and not compare_traces(PYTHON_PATH, expected, clean, naming)

    observed, naming = execute(PYTHON_PATH, _mutant())
    # handed right before the call itself reaches the mode: where M's handler run comes
    first = next(i for i, e in enumerate(observed.events) if isinstance(e, HandlerRun))
    assert observed.unlisted == (Unlisted("M", "mode", "Tensor.tolist", first),), observed.unlisted
    comparison = compare_traces(PYTHON_PATH, expected, observed, naming)
    assert comparison.rules == (UNLISTED_RULE,) and [d.place for d in comparison.found] == [
        "unlisted"]
    text = "\n".join(describe(comparison))
    assert "handed to M's handler [TFM_REACH_010]" in text
    assert (f"observed: M (mode) handed Tensor.tolist once, the first time after {first} event(s)"
            in text)

    assert judge(PYTHON_PATH, expected, observed, naming).failed == (UNLISTED_RULE,)
    scoped = Excusals({UNLISTED_RULE: ["Tensor.tolist"]})
    assert judge(PYTHON_PATH, expected, observed, naming, scoped).excused == (UNLISTED_RULE,)
    elsewhere = Excusals({UNLISTED_RULE: ["Tensor.size"]})
    assert judge(PYTHON_PATH, expected, observed, naming, elsewhere).failed == (UNLISTED_RULE,)


@pytest.mark.rule("TFM_REACH_010")
def test_every_such_call_is_described_so_the_one_no_entry_excuses_is_named() -> None:
    """Two calls nobody but the implementation made, the first excused by its entry: the
    failure is the second's, and the description names both, on their handler's one line (it
    named the first alone, so a failure's message showed only the call its entry excuses)."""
    expected = predict(PYTHON_PATH)
    observed, naming = execute(PYTHON_PATH, _mutant())
    more = Unlisted("M", "mode", "Tensor.size", observed.unlisted[0].at)
    both = Trace(observed.events, observed.outcome, observed.after,
                 unlisted=(*observed.unlisted, more))
    comparison = compare_traces(PYTHON_PATH, expected, both, naming)
    assert [d.observed for d in comparison.found] == [observed.unlisted[0], more]
    text = "\n".join(describe(comparison))
    assert text.splitlines()[:3] == [
        "2 calls the scenario did not make, handed to handlers [TFM_REACH_010]:",
        "  expected: none of them: neither the scenario nor the suite called them",
        f"  observed: M (mode) handed Tensor.tolist once, the first time after {more.at} "
        f"event(s); Tensor.size once, the first time after {more.at} event(s)"]
    scoped = Excusals({UNLISTED_RULE: ["Tensor.tolist"]})
    judged = judge(PYTHON_PATH, expected, both, naming, scoped)
    assert judged.failed == (UNLISTED_RULE,) and judged.excused == (UNLISTED_RULE,)
    assert judge(PYTHON_PATH, expected, both, naming,
                 Excusals({UNLISTED_RULE: ["Tensor.tolist", "Tensor.size"]})).failed == ()


def test_a_call_eager_showed_is_accepted_in_the_compiled_runs_reference() -> None:
    expected = predict(PYTHON_PATH)
    eager, naming = execute(PYTHON_PATH, _mutant())
    oracle = reference(expected, eager, naming)
    assert oracle is not None and oracle.unlisted == eager.unlisted
    assert not compare_traces(PYTHON_PATH, oracle, eager, naming)
    more = Unlisted("M", "mode", "Tensor.size", 0)
    compiled = Trace(eager.events, eager.outcome, eager.after, unlisted=(*eager.unlisted, more))
    comparison = compare_traces(PYTHON_PATH, oracle, compiled, naming)
    assert comparison.unlisted == more and comparison.rules == (UNLISTED_RULE,)


if TORCH:
    from conformance.judge.compilecheck import check_compiled
    from spec.boundary import Boundary

    TORCH_ADAPTER = NamespaceAdapter(importlib.import_module("torch"))

    #: A Python function that checks no argument (an empty sequence has no torch function,
    #: even under a mode): it does not dispatch, and its kernel, run with N current, makes its
    #: result with tensor(), which reaches N.
    KERNEL = scenario_from_dict({
        "generation": "stack",
        "functions": [{"name": "foo", "params": 1, "relevant": []}],
        "modes": [{"name": "N", "behaviour": "forward"}],
        "setup": [{"enter": "N"}],
        "call": {"func": "foo", "args": ["plain"]}})
    #: A subclass instance as the call's argument: Dynamo wraps it as a graph input.
    SUBCLASS_INPUT = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "A", "behaviour": "forward_disabled"}],
        "call": {"func": "add", "args": ["A", "plain"]}})

    @pytest.mark.rule("TFM_REACH_010")
    def test_the_suites_own_tensor_call_reaches_the_mode_and_breaks_nothing() -> None:
        observed, naming = execute(KERNEL, TORCH_ADAPTER)
        made = [u for u in observed.unlisted if u.func == "tensor"]
        assert made and all(u.made_by is not None and u.who == "N" for u in made), observed
        release = TORCH_ADAPTER.ns.__version__.split("+")[0]
        assert not compare_traces(KERNEL, predict(KERNEL, "2.x", release), observed, naming)

    @pytest.mark.rule("TFM_REACH_010")
    def test_compiled_dynamos_metadata_reads_reach_the_subclass_and_are_named() -> None:
        TORCH_ADAPTER.compile = True  # type: ignore[attr-defined]
        try:
            checked = check_compiled(SUBCLASS_INPUT, TORCH_ADAPTER, 300, boundary=Boundary(0))
        finally:
            TORCH_ADAPTER.compile = False  # type: ignore[attr-defined]
            TORCH_ADAPTER.reset()
        assert checked is not None and checked.compilation.compiled, checked
        eager, _ = execute(SUBCLASS_INPUT, TORCH_ADAPTER)
        assert eager.unlisted == ()
        handed = {u.func for u in checked.observed.unlisted if u.who == "A"}
        assert {"Tensor.size", "Tensor.stride", "Tensor.dim"} <= handed, handed
        assert checked.rules == (UNLISTED_RULE,), checked.differences
        text = "\n".join(checked.differences)  # every one of them, one line each
        made = sum(u.made_by is None for u in checked.observed.unlisted)  # none the suite made
        assert f"{made} calls the scenario did not make" in text, text
        line = next(x for x in text.splitlines() if x.startswith("  observed: A (subclass) handed "))
        for func in ("Tensor.size", "Tensor.stride", "Tensor.dim"):  # all on A's one line
            assert f" {func} " in line, text


def test_an_expected_failure_of_the_rule_is_scoped_by_the_callables_handed() -> None:
    from conformance.session.expectations import ExpectationsError, parse_scopes
    from spec.catalogue import load_catalogue

    known = load_catalogue().ids()
    entry = '[TFM_REACH_010]\nreason = "Dynamo reads sizes"\nfunctions = ["Tensor.size", "%s"]\n'
    scopes = parse_scopes(entry % "Tensor.shape.__get__", known)
    assert scopes[UNLISTED_RULE] == frozenset({"Tensor.size", "Tensor.shape.__get__"})
    with pytest.raises(ExpectationsError, match=r"names of the callables handed"):
        parse_scopes(entry % "not a name", known)
    other = '[TFM_ORDER_001]\nreason = "r"\nfunctions = ["Tensor.size"]\n'
    with pytest.raises(ExpectationsError, match=r"vocabulary's function names"):
        parse_scopes(other, known)


def test_the_snippet_prints_the_call_the_implementation_made_where_the_trace_has_it() -> None:
    from conformance.snippet import describe as lines_of
    from conformance.snippet import snippet
    from tests.test_snippet import run_snippet

    observed, _ = execute(PYTHON_PATH, _mutant())
    code = snippet(PYTHON_PATH, "tests.mutants.mode_handed_own_reads", "2022")
    printed, _ = run_snippet(code)
    assert printed == lines_of(observed), code
    assert "handler M (mode) handed Tensor.tolist: a call the scenario did not make" in printed


if TORCH:
    #: x - y with y's handler raising TypeError: torch turns the TypeError into NotImplemented
    #: (an operator's own wrapping), so Python calls y.__rsub__(x), a call of the syntax.
    REFLECTED = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "D", "behaviour": {"raise": "boom", "error": "TypeError"}}],
        "call": {"func": "x - y", "args": ["plain", "D"]}})

    @pytest.mark.rule("TFM_REACH_010", "TFM_SYNTAX_002")
    def test_the_reflected_method_an_operator_calls_is_the_programs_call() -> None:
        observed, naming = execute(REFLECTED, TORCH_ADAPTER)
        reflected = [u for u in observed.unlisted if u.func == "Tensor.__rsub__"]
        assert reflected and all(u.made_by is not None and "operator protocol" in u.made_by
                                 for u in reflected), observed.unlisted
        release = TORCH_ADAPTER.ns.__version__.split("+")[0]
        comparison = compare_traces(REFLECTED, predict(REFLECTED, "2.x", release), observed, naming)
        # what differs is the TypeError the operator swallowed, not the call it then made
        assert comparison.rules == ("TFM_SYNTAX_002",), comparison.rules
