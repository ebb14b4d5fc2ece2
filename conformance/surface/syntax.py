"""The syntactic entry points of a Tensor, in the implementation's sandbox.

Indexing, index assignment, infix, reflected, in-place and unary operators, comparisons, the
conversions and protocols (``len``, ``reversed``, ``format``, ``bool``, ``int``, ``float``) and
the dispatched properties reach dispatch through the interpreter, each by its own code path.
Each *form* is evaluated under a recording mode: the mode's handler must run once, with a
callable of the Tensor class as ``func``, the tensor first among ``args`` and the other operand
as written after it, and its answer must be the expression's value; a handler's exception,
``TypeError`` included, must come out of the expression as the same object. Binary operators
given an operand they do not support return ``NotImplemented``, so that Python tries the
reflected one; and a list of duck-typed objects used as an index reaches their handler. A form
applies when the implementation's Tensor defines the special method it needs; one that does not
is listed as not called. The account has the shape of :func:`conformance.surface.probe.sweep`'s.
"""

from __future__ import annotations

import functools
import importlib
import operator
from collections.abc import Callable
from typing import Any

from ..base.safe import name_of, text_of
from .listing import listed, namer, same_callable
from .probe import Probe, _same, _shown

__all__ = ["FORMS", "syntax"]

#: (form, the special method it needs, what the handler answers, a builder of the thunk and of
#: the arguments the handler must see): the builder gets x, y (tensors), s (a one-element
#: tensor) and i (an index tensor).
Form = tuple[str, str, Any, Callable[..., tuple[Callable[[], Any], tuple[Any, ...]]]]


_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow, "@": operator.matmul,
    "&": operator.and_, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">=": operator.ge,
}


def _binary(symbol: str, method: str, reflected: bool = False) -> Form:
    """``x OP y``, or ``2 OP x`` (the reflected method), evaluated as Python evaluates it."""
    apply = _OPERATORS[symbol]
    text = f"2 {symbol} x" if reflected else f"x {symbol} y"
    return (text, method, None, lambda x, y, s, i: (
        (lambda: apply(2, x)) if reflected else (lambda: apply(x, y)),
        (x, 2) if reflected else (x, y)))


def _unary(text: str, method: str, call: Callable[[Any], Any], answer: Any = None,
           needs: str = "x") -> Form:
    return (text, method, answer, lambda x, y, s, i: (
        (lambda: call(s if needs == "s" else x)), (s if needs == "s" else x,)))


def _inplace(x: Any, y: Any) -> Any:
    z = x
    z += y
    return z


FORMS: tuple[Form, ...] = (
    ("x[0]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[0]), (x, 0))),
    ("x[0:1]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[0:1]), (x, slice(0, 1)))),
    ("x[...]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[...]), (x, ...))),
    ("x[None]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[None]), (x, None))),
    ("x[i]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[i]), (x, i))),
    ("x[(0,)]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[(0,)]), (x, (0,)))),
    ("x[[0]]", "__getitem__", None, lambda x, y, s, i: ((lambda: x[[0]]), (x, [0]))),
    ("x[0] = y", "__setitem__", None, lambda x, y, s, i: (
        (lambda: x.__setitem__(0, y)), (x, 0, y))),
    _binary("+", "__add__"), _binary("+", "__radd__", True), _binary("-", "__sub__"),
    _binary("-", "__rsub__", True), _binary("*", "__mul__"), _binary("*", "__rmul__", True),
    _binary("/", "__truediv__"), _binary("/", "__rtruediv__", True),
    _binary("//", "__floordiv__"), _binary("%", "__mod__"), _binary("**", "__pow__"),
    _binary("**", "__rpow__", True), _binary("@", "__matmul__"), _binary("&", "__and__"),
    _binary("==", "__eq__"), _binary("!=", "__ne__"), _binary("<", "__lt__"),
    _binary(">=", "__ge__"),
    ("x += y", "__iadd__", None, lambda x, y, s, i: ((lambda: _inplace(x, y)), (x, y))),
    _unary("-x", "__neg__", lambda x: -x), _unary("+x", "__pos__", lambda x: +x),
    _unary("abs(x)", "__abs__", abs), _unary("~x", "__invert__", lambda x: ~x),
    _unary("len(x)", "__len__", len, 7), _unary("reversed(x)", "__reversed__", reversed),
    ("format(x, '')", "__format__", "formatted", lambda x, y, s, i: (
        (lambda: format(x, "")), (x, ""))),
    _unary("bool(s)", "__bool__", bool, True, "s"), _unary("int(s)", "__int__", int, 7, "s"),
    _unary("float(s)", "__float__", float, 7.5, "s"),
)

_BINARY = ("__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
           "__rtruediv__", "__floordiv__", "__mod__", "__pow__", "__rpow__", "__matmul__",
           "__and__", "__eq__", "__ne__", "__lt__", "__ge__")


def _tensors(ad: Any) -> tuple[Any, Any, Any, Any]:
    with ad.disable():
        x, y, s = ad.tensor([1.0, 2.0]), ad.tensor([3.0, 5.0]), ad.tensor([3.0])
        i = ad.tensor([0.0])
        converted = getattr(i, "long", None)
        i = converted() if callable(converted) else i
    return x, y, s, i


def _public(ad: Any) -> Callable[[object], bool]:
    members = []
    for attr in dir(ad.Tensor):
        try:
            members.append(getattr(ad.Tensor, attr))
        except Exception:  # an attribute that raises on the class is no handler's func
            continue
    ids = {id(m) for m in members}
    return lambda func: id(func) in ids


def _form(probe: Probe, form: Form, public: Callable[[object], bool],
          name_of: Callable[[object], str]) -> list[list[str]]:
    text, _, answer, build = form
    problems: list[list[str]] = []
    for behaviour in ("answer", "raise", "type_error"):
        thunk, written = build(*_tensors(probe.adapter))
        probe.typed_answer = answer
        result, error = probe.call(thunk, (), {}, lambda b=behaviour: probe.mode(b))  # type: ignore[misc]
        if behaviour != "answer":
            if probe.raised is not None and error is not probe.raised:
                shown = "nothing" if error is None else f"{name_of(type(error))}: {text_of(error)}"
                problems.append(["syntax_raise", f"the handler raised {probe.raised!r}; "
                                 f"`{text}` raised {shown}"[:300]])
            continue
        runs = probe.calls
        if len(runs) != 1:
            seen = ", ".join(name_of(f) for _, f, *_ in runs) or "no handler"
            problems.append(["syntax", f"`{text}`: expected one run of the mode's handler, saw: {seen}"])
            continue
        _, func, _, args, _ = runs[0]
        if not public(func):
            problems.append(["syntax", f"`{text}`: the handler's func {name_of(func)} is not a "
                             "callable of the Tensor class"])
        if not _same(args[:1], written[:1]) or not _same(args[1:], written[1:]):
            problems.append(["syntax", f"`{text}`: args were {_shown(args)}, written {_shown(written)}"])
        expected = probe.answer if answer is None else answer
        if error is not None or (result is not expected and result != expected
                                 and not text.startswith(("x[0] =", "reversed"))):
            got = f"raised {name_of(type(error))}" if error is not None else _shown(result)
            problems.append(["syntax", f"`{text}` gave {got}, not the handler's answer"])
    probe.typed_answer = None
    return problems


def _operands(probe: Probe) -> list[list[Any]]:
    """Binary dunders given an operand they do not support."""
    ad, checked = probe.adapter, []
    x, _, _, _ = _tensors(ad)
    for method in _BINARY:
        if not _defines(ad.Tensor, method):
            continue
        dunder = getattr(ad.Tensor, method)
        probe.calls = []
        try:
            result: Any = dunder(x, object())
        except Exception as exc:  # the operand is unsupported: NotImplemented is the answer
            result = exc
        ok = result is NotImplemented
        checked.append([f"Tensor.{method}(x, object())", [] if ok else [
            ["operand", f"returned {_shown(result)}, not NotImplemented"]]])
    return checked


def _index_ducks(probe: Probe) -> list[list[Any]]:
    """A list of ducks as an index: their handler decides (TFM_ORDER_006)."""
    ad, checked = probe.adapter, []
    x, _, _, _ = _tensors(ad)
    if _defines(ad.Tensor, "__getitem__"):
        d = probe.Duck()
        result, error = probe.call(lambda: x[[d]], (), {}, lambda: _nothing())
        owners = [(owner, f) for owner, f, *_ in probe.calls]
        ok = len(owners) == 1 and owners[0][0] == "duck" and same_callable(
            owners[0][1], ad.Tensor.__getitem__) and result is probe.answer
        checked.append(["x[[duck]]", [] if ok else [
            ["index_duck", f"the ducks' handler runs: {len(owners)} handler run(s); "
             f"the value {'raised ' + name_of(type(error)) if error is not None else _shown(result)}"]]])
    return checked


def _reader(x: Any, attr: str) -> Callable[[], Any]:
    return lambda: getattr(x, attr)


def _tensor_like(probe: Probe) -> list[list[Any]]:
    """``overrides.is_tensor_like``, where the implementation has it: True for a tensor and a
    duck-typed object, False for a plain value (what dispatch overloads on)."""
    check = getattr(getattr(getattr(probe.adapter, "ns", None), "overrides", None), "is_tensor_like",
                    None)
    if not callable(check):
        return []
    x, _, _, _ = _tensors(probe.adapter)
    cases = (("is_tensor_like(duck)", probe.Duck(), True), ("is_tensor_like(x)", x, True),
             ("is_tensor_like(1)", 1, False))
    out = []
    for text, value, want in cases:
        try:
            got: Any = check(value)
        except Exception as exc:  # the answer is wrong whatever it raised
            got = exc
        out.append([text, [] if got is want else [["tensor_like", f"`{text}` gave {_shown(got)}"]]])
    return out


def _iteration(probe: Probe, name_of: Callable[[object], str]) -> list[list[Any]]:
    """``iter(s)`` for an instance ``s`` of a subclass whose handler records each dispatch and
    defers to the default handler: the iteration reaches that handler at least once, each time
    with ``s`` as ``args[0]`` and the subclass in ``types``, and what it yields is what the
    handlers gave (their iterator itself, or each element a handler's answer or an element of
    a tuple or list one answered), not values computed past the handler (TFM_TYPES_006). An
    implementation may dispatch ``iter`` itself or the Tensor methods it is made of (torch:
    ``dim``, then ``unbind``)."""
    ad = probe.adapter
    if not _defines(ad.Tensor, "__iter__"):
        return []
    runs: list[tuple[Any, tuple[type, ...], tuple[Any, ...], Any]] = []
    made: list[type] = []

    def handler(cls: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        base: Any = super(made[0], cls)
        answer = base.__torch_function__(func, types, args, kwargs)
        runs.append((func, tuple(types), tuple(args), answer))
        return answer

    sub = type(ad.Tensor)("Iterated", (ad.Tensor,), {"__torch_function__": classmethod(handler)})
    made.append(sub)
    with ad.disable():
        s = ad.tensor([1.0, 2.0]).as_subclass(sub)
    try:
        iterator = iter(s)
        elements: Any = list(iterator)
    except Exception as exc:  # judged below: the iteration must give what the handlers gave
        iterator, elements = None, exc
    given = [answer for *_, answer in runs]
    problems = []
    if not runs:
        problems.append("no handler ran")
    for func, types, args, _ in runs:
        if not args or args[0] is not s or sub not in types:
            problems.append(f"the handler ran for {name_of(func)} with args {_shown(args)} and "
                            f"types {_shown(types)}")
    if isinstance(elements, Exception):
        problems.append(f"the iteration raised {name_of(type(elements))}: {text_of(elements)}")
    elif not any(iterator is g for g in given) and not all(
            any(e is g or (isinstance(g, (tuple, list)) and any(e is f for f in g))
                for g in given) for e in elements):
        problems.append(f"it yielded {_shown(elements)}, not what the handlers gave "
                        f"({', '.join(name_of(f) for f, *_ in runs) or 'none ran'})")
    return [["iter(s)", [["iteration", f"iterating a subclass instance: {p}"[:300]]
                         for p in problems[:2]]]]


ARRAY_FORM = "numpy.asarray(x, dtype)"


def _array_protocol(probe: Probe, public: Callable[[object], bool],
                    name_of: Callable[[object], str]) -> list[list[Any]]:
    """``numpy.asarray(x, dtype)``, where the Tensor defines ``__array__`` and numpy is
    installed: a form like ``format(x, spec)``, numpy calling the Tensor's ``__array__``. Under
    the mode the handler runs once with a callable of the Tensor class, ``x`` first and the
    dtype as written after it (numpy hands it over positionally or as ``dtype=``, as its release
    chooses, so either is taken), and its answer, an array of that dtype, is the value; a
    handler's exception comes out as itself (TFM_SYNTAX_001, TFM_SYNTAX_002)."""
    ad = probe.adapter
    if not _defines(ad.Tensor, "__array__"):
        return []
    try:
        numpy: Any = importlib.import_module("numpy")
    except ImportError:  # the form needs numpy: not applicable
        return []
    dtype = numpy.dtype("float64")
    problems: list[list[str]] = []
    for behaviour in ("answer", "raise", "type_error"):
        x = _tensors(ad)[0]
        probe.typed_answer = numpy.zeros(2, dtype=dtype)
        result, error = probe.call(functools.partial(numpy.asarray, x, dtype=dtype), (), {},
                                   lambda b=behaviour: probe.mode(b))  # type: ignore[misc]
        answer, probe.typed_answer = probe.typed_answer, None
        if behaviour != "answer":
            if probe.raised is not None and error is not probe.raised:
                shown = "nothing" if error is None else f"{name_of(type(error))}: {text_of(error)}"
                problems.append(["syntax_raise", f"the handler raised {probe.raised!r}; "
                                 f"`{ARRAY_FORM}` raised {shown}"[:300]])
            continue
        if len(probe.calls) != 1:
            seen = ", ".join(name_of(f) for _, f, *_ in probe.calls) or "no handler"
            problems.append(["syntax", f"`{ARRAY_FORM}`: expected one run of the mode's handler, "
                             f"saw: {seen}"])
            continue
        _, func, _, args, kwargs = probe.calls[0]
        handed = [*args[1:], *(kwargs or {}).values()]
        if not public(func):
            problems.append(["syntax", f"`{ARRAY_FORM}`: the handler's func {name_of(func)} is "
                             "not a callable of the Tensor class"])
        if not args or args[0] is not x or not any(
                isinstance(v, type(dtype)) and v == dtype for v in handed):
            problems.append(["syntax", f"`{ARRAY_FORM}`: args were {_shown(args)}, kwargs "
                             f"{_shown(kwargs)}: not x and the dtype written"])
        if error is not None or result is not answer:
            got = f"raised {name_of(type(error))}" if error is not None else _shown(result)
            problems.append(["syntax", f"`{ARRAY_FORM}` gave {got}, not the handler's answer"])
    return [[ARRAY_FORM, problems]]


def _nothing() -> Any:
    import contextlib

    return contextlib.nullcontext()


def _properties(probe: Probe, name_of: Callable[[object], str]) -> list[list[Any]]:
    """Each listed property getter, read as ``x.name`` under the mode."""
    entries = listed(probe.adapter) or []
    checked = []
    for entry in entries:
        if not (entry.name.startswith("Tensor.") and entry.name.endswith(".__get__")):
            continue
        attr = entry.name.removeprefix("Tensor.").removesuffix(".__get__")
        x, _, _, _ = _tensors(probe.adapter)
        result, error = probe.call(_reader(x, attr), (), {}, lambda: probe.mode("answer"))
        runs = probe.calls
        ok = (len(runs) == 1 and same_callable(runs[0][1], entry.func) and _same(runs[0][3], (x,))
              and error is None and result is probe.answer)
        seen = ", ".join(name_of(f) for _, f, *_ in runs) or "no handler"
        checked.append([f"x.{attr}", [] if ok else [
            ["property", f"`x.{attr}`: handler runs: {seen}; the value "
             f"{'raised ' + name_of(type(error)) if error is not None else _shown(result)}"]]])
    return checked


def _defines(cls: type, method: str) -> bool:
    """Whether ``cls`` (or a base other than ``object``) defines ``method``."""
    return any(method in vars(base) for base in cls.__mro__ if base is not object)


#: The checks besides the forms, by the name a request for one part gives, with the check a
#: fault of the implementation during that part fails.
GROUPS: dict[str, str] = {"operands": "operand", "index-ducks": "index_duck",
                          "properties": "property", "tensor-like": "tensor_like",
                          "iteration": "iteration", "array-protocol": "syntax"}


def parts() -> list[tuple[str, str]]:
    """Each part :func:`syntax` can check alone (a form's text, or a group of :data:`GROUPS`),
    with the check a fault during it fails."""
    return [(form[0], "syntax") for form in FORMS] + list(GROUPS.items())


def syntax(adapter: Any, only: list[str] | None = None) -> dict[str, Any]:
    """Every form the implementation's Tensor supports, checked (``only``: just the parts
    named, see :func:`parts`); plain data for the judge."""
    wanted = None if only is None else {str(name) for name in only}
    probe = Probe(adapter)
    name_of = namer(getattr(adapter, "ns", None))
    public = _public(adapter)
    checked: list[list[Any]] = []
    not_called: list[list[str]] = []
    for form in FORMS:
        if wanted is not None and form[0] not in wanted:
            continue
        if not _defines(adapter.Tensor, form[1]):
            not_called.append([form[0], f"Tensor has no {form[1]}"])
            continue
        checked.append([form[0], _form(probe, form, public, name_of)])
        adapter.reset()
    if wanted is None or "operands" in wanted:
        checked += _operands(probe)
    if wanted is None or "index-ducks" in wanted:
        checked += _index_ducks(probe)
    if wanted is None or "properties" in wanted:
        checked += _properties(probe, name_of)
    if wanted is None or "tensor-like" in wanted:
        checked += _tensor_like(probe)
    if wanted is None or "array-protocol" in wanted:
        checked += _array_protocol(probe, public, name_of)
    if wanted is None or "iteration" in wanted:
        checked += _iteration(probe, name_of)
    adapter.reset()
    return {"listed": len(checked) + len(not_called), "checked": checked, "not_called": not_called}

