"""The surface sweep (conformance.surface): each kind of single bug in a listed callable fails
exactly the rule it breaks, the account is read as untrusted data, and the expected failures
scoped to callables excuse only there."""

from __future__ import annotations

import functools
import typing
from collections.abc import Callable
from typing import Any

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.session.expectations import NOWHERE, parse_scopes, parse_surface_scopes
from conformance.surface import judge, probe
from conformance.surface.arguments import TENSOR, construct, refine
from conformance.surface.probe import sweep
from conformance.surface.syntax import syntax
from conformance.surface.wrapped import NAME as WRAPPED
from reference_impl import Tensor
from reference_impl.overrides import (
    handle_torch_function,
    has_torch_function,
    has_torch_function_unary,
)
from spec.catalogue import load_catalogue


def good(input: Any, other: Any) -> Any:
    if has_torch_function((input, other)):
        return handle_torch_function(good, (input, other), input, other)
    return "computed"


def bypass(input: Any, other: Any) -> Any:  # forgets its has_torch_function check
    return "computed"


def wrong_func(input: Any, other: Any) -> Any:  # hands over another callable as func
    if has_torch_function((input, other)):
        return handle_torch_function(good, (input, other), input, other)
    return "computed"


def twice(input: Any, other: Any) -> Any:  # reaches the handler twice
    if has_torch_function((input, other)):
        handle_torch_function(twice, (input, other), input, other)
        return handle_torch_function(twice, (input, other), input, other)
    return "computed"


def swallows(input: Any, other: Any) -> Any:  # the handler's exception does not propagate
    if has_torch_function((input, other)):
        try:
            return handle_torch_function(swallows, (input, other), input, other)
        except Exception:
            return "swallowed"
    return "computed"


def moves(input: Any, *, dim: Any) -> Any:  # a keyword handed over as a positional argument
    if has_torch_function((input,)):
        return handle_torch_function(moves, (input,), input, dim)
    return "computed"


def ignores_disable(input: Any, other: Any) -> Any:  # asks a duck's handler even when disabled
    if has_torch_function((input, other)):
        return handle_torch_function(ignores_disable, (input, other), input, other)
    handler = getattr(type(input), "__torch_function__", None)
    if handler is not None and not isinstance(input, reference_impl.Tensor):
        return handler(ignores_disable, (type(input),), (input, other), {})
    return "computed"


def reads_first(input: Any, other: Any) -> Any:  # calls another overridable function first
    reference_impl.neg(input)
    return good(input, other)


def first_only(input: Any, other: Any) -> Any:  # asks about its first tensor alone
    if has_torch_function((input,)):
        return handle_torch_function(first_only, (input, other), input, other)
    return "computed"


def weight_unchecked(input: Any, weight: Tensor | None = None) -> Any:  # an optional tensor unasked
    if has_torch_function((input,)):
        return handle_torch_function(weight_unchecked, (input,), input, weight=weight)
    return "computed"


def falls_to_native(input: Any, other: Any) -> Any:  # unasked, the native add dispatches instead
    if has_torch_function((input,)):
        return handle_torch_function(falls_to_native, (input, other), input, other)
    return reference_impl.add(input, other)


class Listing(NamespaceAdapter):
    """reference_impl, listing the given callables instead of its own."""

    def __init__(self, functions: list[Callable[..., Any]]) -> None:
        super().__init__(reference_impl)
        self.functions = functions
        self.features = self.features - {"wrap-torch-function"}  # nor the sweep's own function

    def overridable(self) -> list[tuple[str, Callable[..., Any], Any]] | None:
        return [(f.__name__, f, None) for f in self.functions]


def _rules(functions: list[Callable[..., Any]]) -> dict[str, list[str]]:
    ad = Listing(functions)
    listed, checked, not_called = judge.read(sweep(ad))
    assert not not_called
    verdict = judge.judge(listed, checked, not_called, ad.generation, ad.stack_version, {}, {})
    return {name: entry["rules"] for name, entry in verdict.table["functions"].items()}


def test_reference_impl_passes_its_whole_listing() -> None:
    ad = NamespaceAdapter(reference_impl)
    listed, checked, not_called = judge.read(sweep(ad))
    assert listed == len(reference_impl.overrides.get_testing_overrides()) + 1 == len(checked)
    assert WRAPPED in [name for name, _ in checked]  # the function it decorates itself
    assert not not_called and all(not problems for _, problems in checked)


def _skips_its_check(dispatcher: Callable[..., Any]) -> Callable[..., Any]:
    return lambda f: functools.wraps(f)(lambda *args, **kwargs: f(*args, **kwargs))


def _hands_the_undecorated(dispatcher: Callable[..., Any]) -> Callable[..., Any]:
    def decorate(f: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(f)
        def public(*args: Any, **kwargs: Any) -> Any:
            relevant = tuple(dispatcher(*args, **kwargs))
            if has_torch_function(relevant):
                return handle_torch_function(f, relevant, *args, **kwargs)
            return f(*args, **kwargs)
        return public
    return decorate


@pytest.mark.parametrize(("decorator", "rules"), [
    (_skips_its_check, ["TFM_REACH_009"]), (_hands_the_undecorated, ["TFM_ARGS_001"])])
def test_a_wrap_torch_function_with_one_bug_fails_its_rule(
        decorator: Callable[..., Any], rules: list[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reference_impl.overrides, "wrap_torch_function", decorator)
    monkeypatch.setattr(probe, "_MADE", {})  # no listing made before the patch
    ad = NamespaceAdapter(reference_impl)
    listed, checked, not_called = judge.read(sweep(ad, [WRAPPED]))
    verdict = judge.judge(listed, checked, not_called, ad.generation, ad.stack_version, {}, {})
    assert verdict.table["functions"][WRAPPED]["rules"] == rules


@pytest.mark.parametrize(("bug", "rules"), [
    (good, []),
    (bypass, ["TFM_REACH_009"]),
    (wrong_func, ["TFM_ARGS_001"]),
    (twice, ["TFM_REACH_009"]),
    (swallows, ["TFM_ERROR_005"]),
    (moves, ["TFM_ARGS_002"]),
    (ignores_disable, ["TFM_DISABLE_001"]),
    (reads_first, ["TFM_REACH_009"]),
    (first_only, ["TFM_TYPES_006"]),
    (weight_unchecked, ["TFM_TYPES_006"]),
    (falls_to_native, ["TFM_ARGS_001"]),
], ids=lambda v: getattr(v, "__name__", str(v)))
def test_each_single_bug_fails_the_rule_it_breaks(bug: Callable[..., Any], rules: list[str]) -> None:
    assert _rules([bug]) == {bug.__name__: rules}


def test_the_rules_of_the_checks_are_catalogue_rules() -> None:
    ids = set(load_catalogue().ids())
    assert set(judge.RULES) <= ids
    assert judge.rules_of("disable_mode", "2022", None) == "TFM_DISABLE_002"
    assert judge.rules_of("disable_mode", "stack", "2.x") == "TFM_STACK_010"


@pytest.mark.parametrize("account", [
    None, [], {"listed": 1}, {"listed": -1, "checked": [], "not_called": []},
    {"listed": 1, "checked": [["f", [["made_up", "x"]]]], "not_called": []},
    {"listed": 1, "checked": [["f", []], ["g", []]], "not_called": []},
    {"listed": 1, "checked": [[1, []]], "not_called": []},
    {"listed": 1, "checked": [], "not_called": [["f"]]},
], ids=str)
def test_a_malformed_account_is_refused(account: Any) -> None:
    with pytest.raises(judge.SurfaceError):
        judge.read(account)


def test_an_entry_scoped_to_callables_excuses_only_them() -> None:
    known = load_catalogue().ids()
    text = ('[TFM_REACH_009]\nreason = "r"\nsnippet = "s"\nsurface = ["bypass"]\n'
            '[TFM_ARGS_001]\nreason = "r"\nsnippet = "s"\n')
    scopes = parse_surface_scopes(text, known)
    assert scopes == {"TFM_REACH_009": frozenset({"bypass"}), "TFM_ARGS_001": None}
    assert parse_scopes(text, known)["TFM_REACH_009"] == NOWHERE  # no scenario excused
    expected = {"TFM_REACH_009": "r", "TFM_ARGS_001": "r"}
    ad = Listing([bypass, twice, wrong_func])
    listed, checked, not_called = judge.read(sweep(ad))
    verdict = judge.judge(listed, checked, not_called, "2022", None, scopes, expected)
    assert verdict.excused == {"TFM_REACH_009": ["bypass"], "TFM_ARGS_001": ["wrong_func"]}
    assert verdict.failed == {"TFM_REACH_009": ["twice"]}
    assert verdict.table["functions"]["bypass"]["verdict"] == "expected_failure"
    assert verdict.table["functions"]["twice"]["verdict"] == "fail"
    # the message of a failed rule names its first unexcused callable, not an excused one
    assert verdict.first["TFM_REACH_009"].startswith("twice: "), verdict.first
    assert "first: twice: " in verdict.message()


def test_arguments_follow_the_signature_and_the_implementation_s_errors() -> None:
    construction = construct(lambda input, dim, *, other: -1, None, None)
    assert construction is not None
    assert construction.positional == (TENSOR, ("value", 1)) and construction.keywords == (("other", TENSOR),)
    better = refine(construction, "f(): argument 'dim' (position 2) must be tuple of ints, not int", None)
    assert better is not None and better.positional[1] == ("value", [1])
    assert refine(construction, "something else", None) is None
    method = construct(lambda self, other: -1, None, None, method=True)
    assert method is not None
    assert refine(method, "f(): argument 'x' (position 0) must be int, not Tensor", None) is None


def test_optional_tensor_parameters_are_found_however_they_are_annotated() -> None:
    # typing.Optional[Tensor] (torch before about 2.7) as well as Tensor | None: a typing
    # construct's __name__ is only "Optional", which once hid these parameters from the sweep.
    def loss(input, target, weight=None, mask=None, extra=None, scale=None, out=None):  # type: ignore[no-untyped-def]
        return -1

    # Objects, not the strings this module's annotations would be; typing's spellings on purpose.
    loss.__annotations__ = {
        "input": Tensor, "target": Tensor, "mask": Tensor | None,
        "weight": typing.Optional[Tensor],  # noqa: UP045
        "extra": typing.Optional[typing.List[Tensor]],  # noqa: UP006, UP045
        "scale": typing.Optional[float],  # noqa: UP045
        "out": typing.Optional[Tensor]}  # noqa: UP045
    construction = construct(loss, None, None)
    assert construction is not None
    assert construction.positional == (TENSOR, TENSOR)
    assert construction.optional == ("weight", "mask")


def test_the_sweep_s_test_is_marked_with_every_rule_the_judge_may_fail() -> None:
    from conformance.suite.test_surface import test_every_listed_callable_dispatches as sweep_test

    marks = [m for m in getattr(sweep_test, "pytestmark", []) if m.name == "rule"]
    assert {rule for mark in marks for rule in mark.args} == set(judge.RULES)


class _Argument:
    def __init__(self, name: str, kind: str) -> None:
        self.name, self.type = name, kind


class _Schema:
    def __init__(self, *arguments: tuple[str, str]) -> None:
        self.arguments = [_Argument(name, kind) for name, kind in arguments]


class _SchemaNamespace:
    """A namespace whose operator schemas call the tensor ``self``, as aten's do."""

    class _C:
        @staticmethod
        def _jit_get_schemas_for_operator(name: str) -> list[_Schema]:
            assert name == "aten::select"
            return [_Schema(("self", "Tensor"), ("dim", "int"), ("index", "SymInt"))]


def test_schema_types_apply_to_the_function_form_whose_tensor_is_input() -> None:
    def select(input: Any, dim: Any, index: Any) -> Any:
        return -1

    # An index that the schema says is an int is not given a tensor (a float tensor there made
    # torch 2.7 to 2.12 call Tensor.__index__ under the mode: a second dispatch the sweep caused).
    construction = construct(select, None, _SchemaNamespace())
    assert construction is not None
    assert construction.positional == (TENSOR, ("value", 1), ("value", 1))
    by_name = construct(select, None, None)  # without schemas the parameter's name decides
    assert by_name is not None and by_name.positional == (TENSOR, ("value", 1), TENSOR)


def _syntax_rules(ad: NamespaceAdapter) -> dict[str, list[str]]:
    listed, checked, not_called = judge.read(syntax(ad))
    verdict = judge.judge(listed, checked, not_called, ad.generation, ad.stack_version, {}, {})
    return {name: entry["rules"] for name, entry in verdict.table["functions"].items() if entry["rules"]}


def test_reference_impl_passes_every_form_its_tensor_has() -> None:
    _, checked, not_called = judge.read(syntax(NamespaceAdapter(reference_impl)))
    assert [name for name, _ in checked] == [
        "x[0]", "x[0:1]", "x[...]", "x[None]", "x[i]", "x[(0,)]", "x[[0]]", "x[0] = y", "x + y",
        "2 + x", "x - y", "2 - x", "x * y", "2 * x", "x / y", "x // y", "x ** y", "x == y",
        "x != y", "x < y", "x >= y", "x += y", "-x", "abs(x)", "len(x)", "reversed(x)", "int(s)",
        "Tensor.__add__(x, object())", "Tensor.__radd__(x, object())", "Tensor.__sub__(x, object())",
        "Tensor.__rsub__(x, object())", "Tensor.__mul__(x, object())",
        "Tensor.__rmul__(x, object())", "Tensor.__truediv__(x, object())",
        "Tensor.__floordiv__(x, object())", "Tensor.__pow__(x, object())", "Tensor.__eq__(x, object())",
        "Tensor.__ne__(x, object())", "Tensor.__lt__(x, object())", "Tensor.__ge__(x, object())",
        "x[[duck]]", "x.real", "is_tensor_like(duck)", "is_tensor_like(x)", "is_tensor_like(1)"]
    assert all(not problems for _, problems in checked)
    assert ("2 / x", "Tensor has no __rtruediv__") in not_called


def _swallowing_add(self: Any, other: Any) -> Any:  # the NotImplemented wrapping around dispatch
    try:
        return reference_impl.Tensor.add(self, other)
    except TypeError:
        return NotImplemented


def _iterates(self: Any) -> Any:  # each element by indexing, which dispatches
    return iter([self[i] for i in range(len(self))])


def _iterates_past_the_handlers(self: Any) -> Any:
    with reference_impl._C.DisableTorchFunction():
        return iter([self[i] for i in range(len(self))])


@pytest.mark.parametrize(("patch", "rules"), [
    (("__iter__", _iterates), {}),
    (("__iter__", _iterates_past_the_handlers), {"iter(s)": ["TFM_TYPES_006"]}),
    (("__add__", _swallowing_add), {"x + y": ["TFM_SYNTAX_002"]}),
    (("__add__", lambda self, other: reference_impl.Tensor.add(self, other)),
     {"Tensor.__add__(x, object())": ["TFM_SYNTAX_003"]}),
    (("real", property(lambda self: reference_impl.tensor(self.tolist()))),
     {"x.real": ["TFM_SYNTAX_004"]}),
    (("__add__", lambda self, other: reference_impl.Tensor.add(self, other)
      if isinstance(other, (int, float, reference_impl.Tensor)) or hasattr(type(other), "__torch_function__")
      else NotImplemented), {}),
    (("__radd__", lambda self, other: NotImplemented if isinstance(other, object) and not isinstance(
        other, (int, float)) else reference_impl.Tensor.neg(self)), {"2 + x": ["TFM_SYNTAX_001"]}),
], ids=["iter-control", "iter-computes-past-the-handlers", "handler-TypeError-swallowed",
        "unsupported-operand-raises", "getter-skips-the-mode", "control",
        "reflected-op-hands-other-args"])
def test_each_single_bug_of_the_syntax_fails_its_rule(patch: tuple[str, Any], rules: dict[str, list[str]],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reference_impl.Tensor, *patch, raising=False)
    assert _syntax_rules(NamespaceAdapter(reference_impl)) == rules


def _array(self: Any, dtype: Any = None) -> Any:  # numpy's protocol, dtype handed on positionally
    if has_torch_function_unary(self):
        return handle_torch_function(reference_impl.Tensor.__array__, (self,), self, dtype)
    import numpy
    return numpy.asarray(self.tolist(), dtype)


def _array_drops_dtype(self: Any, dtype: Any = None) -> Any:
    if has_torch_function_unary(self):
        return handle_torch_function(reference_impl.Tensor.__array__, (self,), self)
    return _array(self, dtype)


@pytest.mark.parametrize(("array", "rules"), [
    (_array, {}), (_array_drops_dtype, {"numpy.asarray(x, dtype)": ["TFM_SYNTAX_001"]})])
def test_the_array_protocol_hands_the_dtype_on(array: Any, rules: dict[str, list[str]],
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("numpy", reason="numpy.asarray(x, dtype) needs numpy")
    monkeypatch.setattr(reference_impl.Tensor, "__array__", array, raising=False)
    assert _syntax_rules(NamespaceAdapter(reference_impl)) == rules


def test_is_tensor_like_that_ignores_ducks_fails_the_types_rule(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(reference_impl.overrides, "is_tensor_like",
                        lambda inp: type(inp) is reference_impl.Tensor)
    assert _syntax_rules(NamespaceAdapter(reference_impl)) == {"is_tensor_like(duck)": ["TFM_TYPES_006"]}
