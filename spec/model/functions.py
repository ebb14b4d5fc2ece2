"""The overridable functions of a torch-like namespace, as the model knows them."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import EllipsisType
from typing import Literal, TypeVar

_V = TypeVar("_V")

Path = Literal["native", "python", "probe"]
Shape = Literal["binary", "unary", "list", "sizes", "split", "probe_seq", "probe_one", "probe_var",
                "pyfunc", "index", "len", "setitem"]
FormKind = Literal["infix", "reflected", "inplace", "unary", "index", "property", "len", "assign",
                   "builtin"]
#: How an index form writes its int: as itself (``x[k]``), in a tuple (``x[(k,)]``), in a list
#: (``x[[k]]``), or not at all (``x[None]``).
IndexWrap = Literal["", "tuple", "list", "none", "slice", "ellipsis"]


@dataclass(frozen=True)
class FuncInfo:
    """How a function is called and dispatched.

    ``path``: ``native`` functions are dispatched by the core (exact ``Tensor``
    is never an overloaded argument, ``kwargs`` is ``None`` when none were
    given); ``python`` ones go through ``handle_torch_function``; ``probe``
    ones are the ``has_torch_function`` family, which return a bool.
    ``family`` groups functions that accept each other's arguments, in the
    order a handler may redispatch (only to a later member).
    """

    name: str
    path: Path
    shape: Shape
    method: bool = False
    alpha: bool = False
    family: str = ""
    #: An operator's own method (``Tensor.__eq__``): when every handler declines it gives
    #: NotImplemented, where a function raises, and what follows is Python's (a second dispatch).
    operator: bool = False
    #: A conversion to one number (``Tensor.__int__``): no value of a two-element tensor.
    scalar: bool = False

    def relevant(self, args: list[_V], kwargs: Mapping[str, _V]) -> list[_V]:
        """What a dispatch searches for handlers: every argument natively; on the Python path
        the tensor, or both operands of an operator written in Python (``Tensor.__pow__``)."""
        return args[:1] if self.path == "python" and self.shape != "binary" else [*args, *kwargs.values()]


FUNCS: dict[str, FuncInfo] = {
    f.name: f
    for f in (
        FuncInfo("add", "native", "binary", alpha=True, family="binary"),
        FuncInfo("sub", "native", "binary", alpha=True, family="binary"),
        FuncInfo("mul", "native", "binary", family="binary"),
        FuncInfo("div", "native", "binary", family="binary"),
        FuncInfo("max", "native", "binary", family="binary"),
        FuncInfo("Tensor.add", "native", "binary", method=True, alpha=True, family="binary"),
        FuncInfo("neg", "native", "unary", family="unary"),
        FuncInfo("mean", "native", "unary", family="unary"),
        FuncInfo("Tensor.neg", "native", "unary", method=True, family="unary"),
        FuncInfo("cat", "native", "list", family="list"),
        FuncInfo("ones", "native", "sizes", family="sizes"),
        FuncInfo("split", "python", "split", family="split"),
        FuncInfo("has_torch_function", "probe", "probe_seq"),
        FuncInfo("has_torch_function_unary", "probe", "probe_one"),
        FuncInfo("has_torch_function_variadic", "probe", "probe_var"),
    )
}

#: Callables a handler is handed for a syntactic form (:data:`FORMS`) that no scenario calls by
#: name: a call of one (a handler forwarding it) dispatches like a Tensor method.
HANDED: dict[str, FuncInfo] = {
    f.name: f
    for f in (
        FuncInfo("Tensor.__getitem__", "native", "index", method=True),
        FuncInfo("Tensor.real.__get__", "native", "unary", method=True),
        FuncInfo("Tensor.sub", "native", "binary", method=True, alpha=True),
        FuncInfo("Tensor.mul", "native", "binary", method=True),
        FuncInfo("Tensor.add_", "native", "binary", method=True, alpha=True),
        FuncInfo("Tensor.__len__", "python", "len", method=True),
        FuncInfo("Tensor.__setitem__", "native", "setitem", method=True),
        FuncInfo("Tensor.lt", "native", "binary", method=True),
        FuncInfo("Tensor.gt", "native", "binary", method=True),
        FuncInfo("Tensor.__eq__", "native", "binary", method=True, operator=True),
        FuncInfo("Tensor.div", "native", "binary", method=True),
        FuncInfo("Tensor.abs", "native", "unary", method=True),
        FuncInfo("Tensor.__int__", "native", "unary", method=True, scalar=True),
        FuncInfo("Tensor.__reversed__", "python", "unary", method=True),
        FuncInfo("Tensor.ne", "native", "binary", method=True),
        FuncInfo("Tensor.ge", "native", "binary", method=True),
        FuncInfo("Tensor.le", "native", "binary", method=True),
        FuncInfo("Tensor.__pow__", "python", "binary", method=True),
        FuncInfo("Tensor.__floordiv__", "python", "binary", method=True),
        FuncInfo("Tensor.__rsub__", "python", "binary", method=True),
        FuncInfo("Tensor.grad.__get__", "native", "unary", method=True),
        FuncInfo("Tensor.data.__get__", "native", "unary", method=True),
    )
}


@dataclass(frozen=True)
class FormInfo:
    """A syntactic form a scenario's call can be written as (TFM_SYNTAX_001, TFM_SYNTAX_004).

    The call's arguments fill the form in order: ``x + y`` takes two tensors, ``k + x`` a
    tensor and an int (written on the left), ``-x`` and ``x.real`` a tensor, ``x[k]`` a tensor
    and an int (``x[None]`` a tensor only). Its handlers are handed ``handed`` with the
    arguments in that order (the tensor first, an index as written: :func:`handed_args`), or
    one of ``also`` (the implementation's choice, TFM_SYNTAX_001); an ``operator`` whose
    handlers all decline MAY give ``NotImplemented`` (TFM_SYNTAX_002). ``special`` is the
    attribute of the Tensor class the form needs, ``feature`` the optional feature that draws
    it, ``symbol`` an operator's symbol. A comparison's ``swapped`` is what Python calls first
    when the right operand's class is a proper subclass of the left's (CPython tries the
    reflected comparison first then, overridden or not): the handed callable of the reflected
    comparison and its alternatives, with the operands swapped. ``goes_on``: when every
    handler of the form's own dispatch declines, Python goes on to another dispatch (``x + y``
    after ``x += y``, the reflected comparison and then identity after a comparison), so what
    follows is not the form's to say. ``x[k] = c`` is a statement: its value is ``None``
    whatever the handler answers.
    """

    name: str
    kind: FormKind
    handed: str
    also: tuple[str, ...]
    special: str
    rule: str
    operator: bool = False
    symbol: str = ""
    wrap: IndexWrap = ""
    feature: str = "syntax"
    swapped: tuple[str, ...] = ()
    goes_on: bool = False

    @property
    def groups(self) -> tuple[tuple[str, ...], ...]:
        """The callables the form may hand its handlers, as groups of alternatives to one
        another; the first of a group is the name the prediction uses."""
        return ((self.handed, *self.also), self.swapped) if self.swapped else ((self.handed, *self.also),)

    def alternatives(self, func: str) -> tuple[str, ...]:
        """What a handler may be handed in place of ``func``, the first of one of the form's
        groups (empty for any other callable)."""
        return next((group[1:] for group in self.groups if group[0] == func), ())

    @property
    def takes(self) -> int:
        """How many of the call's arguments the form is written with."""
        if self.kind == "assign":
            return 3
        if self.kind in ("infix", "reflected", "inplace") or (
                self.kind == "index" and self.wrap not in ("none", "ellipsis")):
            return 2
        return 1


def _operator(name: str, kind: FormKind, handed: str, special: str, symbol: str,
              feature: str = "more-syntax") -> FormInfo:
    return FormInfo(name, kind, handed, (f"Tensor.{special}",), special, "TFM_SYNTAX_001",
                    operator=True, symbol=symbol, feature=feature, goes_on=kind == "inplace")


def _compare(name: str, kind: FormKind, handed: str, also: str, swapped: tuple[str, ...],
             symbol: str) -> FormInfo:
    return FormInfo(name, kind, handed, (also,), also.removeprefix("Tensor."), "TFM_SYNTAX_001",
                    operator=True, symbol=symbol, feature="comparisons", swapped=swapped,
                    goes_on=True)


def _python_operator(name: str, kind: FormKind, special: str, symbol: str) -> FormInfo:
    """An operator whose method is written in Python: handed itself, on the Python path."""
    return FormInfo(name, kind, f"Tensor.{special}", (), special, "TFM_SYNTAX_001", operator=True,
                    symbol=symbol, feature="more-operators")


def _property(name: str, feature: str) -> FormInfo:
    """A dispatched property (its ``symbol``), whose handlers are handed its getter."""
    attr = name.removeprefix("x.")
    return FormInfo(name, "property", f"Tensor.{attr}.__get__", (), attr, "TFM_SYNTAX_004",
                    symbol=attr, feature=feature)


def _builtin(name: str, handed: str, also: tuple[str, ...], special: str, feature: str) -> FormInfo:
    """A form written as a call of a Python builtin on the tensor (its ``symbol``)."""
    return FormInfo(name, "builtin", handed, also, special, "TFM_SYNTAX_001",
                    symbol=name.removesuffix("(x)"), feature=feature)


def _index(name: str, wrap: IndexWrap, feature: str = "syntax") -> FormInfo:
    return FormInfo(name, "index", "Tensor.__getitem__", (), "__getitem__", "TFM_SYNTAX_001",
                    wrap=wrap, feature=feature)


FORMS: dict[str, FormInfo] = {
    f.name: f
    for f in (
        _operator("x + y", "infix", "Tensor.add", "__add__", "+", feature="syntax"),
        _operator("k + x", "reflected", "Tensor.add", "__radd__", "+", feature="syntax"),
        FormInfo("-x", "unary", "Tensor.neg", ("Tensor.__neg__",), "__neg__", "TFM_SYNTAX_001"),
        _index("x[k]", ""),
        _index("x[(k,)]", "tuple"),
        _index("x[[k]]", "list"),
        _index("x[None]", "none"),
        _index("x[k:]", "slice", "slicing"),
        _index("x[...]", "ellipsis", "slicing"),
        _property("x.real", "syntax"),
        _operator("x - y", "infix", "Tensor.sub", "__sub__", "-"),
        _operator("x * y", "infix", "Tensor.mul", "__mul__", "*"),
        _operator("k * x", "reflected", "Tensor.mul", "__rmul__", "*"),
        _operator("x += y", "inplace", "Tensor.add_", "__iadd__", "+="),
        FormInfo("len(x)", "len", "Tensor.__len__", (), "__len__", "TFM_SYNTAX_001",
                 feature="more-syntax"),
        FormInfo("x[k] = c", "assign", "Tensor.__setitem__", (), "__setitem__", "TFM_SYNTAX_001",
                 feature="setitem"),
        _compare("x < y", "infix", "Tensor.lt", "Tensor.__lt__", ("Tensor.gt", "Tensor.__gt__"), "<"),
        _compare("k < x", "reflected", "Tensor.gt", "Tensor.__gt__", (), "<"),
        _compare("x == y", "infix", "Tensor.__eq__", "Tensor.eq", ("Tensor.__eq__", "Tensor.eq"), "=="),
        _compare("x != y", "infix", "Tensor.ne", "Tensor.__ne__", ("Tensor.ne", "Tensor.__ne__"), "!="),
        _compare("x >= y", "infix", "Tensor.ge", "Tensor.__ge__", ("Tensor.le", "Tensor.__le__"), ">="),
        _operator("x / y", "infix", "Tensor.div", "__truediv__", "/", feature="more-operators"),
        _builtin("abs(x)", "Tensor.abs", ("Tensor.__abs__",), "__abs__", "more-operators"),
        _python_operator("x ** y", "infix", "__pow__", "**"),
        _python_operator("x // y", "infix", "__floordiv__", "//"),
        _python_operator("k - x", "reflected", "__rsub__", "-"),
        _builtin("int(x)", "Tensor.__int__", (), "__int__", "conversions"),
        _builtin("reversed(x)", "Tensor.__reversed__", (), "__reversed__", "conversions"),
        _property("x.grad", "properties"),
        _property("x.data", "properties"),
    )
}


def handed_args(form: FormInfo,
                args: list[_V]) -> list[_V | tuple[_V] | list[_V] | slice | EllipsisType | None]:
    """The arguments the form's handlers are handed, from the call's (tensor first; an index
    as written: ``k``, ``(k,)``, ``[k]``, ``None``, ``slice(k, None, None)`` or ``...``)."""
    if form.kind != "index" or not form.wrap:
        return list(args)
    if form.wrap in ("none", "ellipsis"):
        return [args[0], None if form.wrap == "none" else ...]
    if form.wrap == "slice":
        return [args[0], slice(args[1], None, None)]
    return [args[0], (args[1],) if form.wrap == "tuple" else [args[1]]]


def written(form: FormInfo, args: list[str]) -> str:
    """The form written out with ``args`` (the call's arguments, in order) as Python."""
    if form.kind in ("infix", "inplace"):
        return f"{args[0]} {form.symbol} {args[1]}"
    if form.kind == "reflected":
        return f"{args[1]} {form.symbol} {args[0]}"
    if form.kind == "unary":
        return f"-{args[0]}"
    if form.kind == "len":
        return f"len({args[0]})"
    if form.kind == "builtin":
        return f"{form.symbol}({args[0]})"
    if form.kind == "assign":
        return f"{args[0]}[{args[1]}] = {args[2]}"
    if form.kind == "index":
        index = {"": "{}", "tuple": "({},)", "list": "[{}]", "none": "None", "slice": "{}:",
                 "ellipsis": "..."}[form.wrap]
        return f"{args[0]}[{index.format(*args[1:])}]"
    return f"{args[0]}.{form.symbol}"


#: Redispatch order inside each family: a handler may only call a later member,
#: so that every generated scenario terminates.
FAMILY_ORDER: dict[str, tuple[str, ...]] = {
    "binary": ("sub", "div", "max", "mul", "Tensor.add", "add"),
    "unary": ("Tensor.neg", "mean", "neg"),
    "list": ("cat",),
    "sizes": ("ones",),
    "split": ("split",),
}


def info_of(name: str) -> FuncInfo:
    """The vocabulary's function ``name``; any other name is a function the scenario defines
    in Python (:class:`~spec.model.scenario.PyFuncDecl`), which dispatches on the Python path."""
    known = FUNCS.get(name) or HANDED.get(name)
    return known if known is not None else FuncInfo(name, "python", "pyfunc")


def pyfunc_kernel(tensors: list[tuple[float, ...]]) -> tuple[float, ...] | None:
    """What a scenario-defined function computes: its tensors added up (``None``: it has none)."""
    if not tensors:
        return None
    return tuple(sum(column) for column in zip(*tensors, strict=False))


def may_redispatch(source: str, target: str) -> bool:
    """Whether a handler called for ``source`` may call ``target`` with the same arguments."""
    src, dst = FUNCS.get(source), FUNCS.get(target)
    if src is None or dst is None or src.family != dst.family or not src.family:
        return False
    order = FAMILY_ORDER[src.family]
    return order.index(target) > order.index(source)


def tensor_data(index: int) -> tuple[float, float]:
    """The data of the ``index``-th tensor argument of a call (``x0``, ``x1``, ...): one
    positive and one negative element, so that a kernel such as ``abs`` shows what it does."""
    return (float(index + 1), -float(2 * index + 3))


def kernel(name: str, args: list[object], kwargs: dict[str, object]) -> object:
    """The plain computation of ``name`` on data (lists of floats) and ints.

    Tensor operands arrive as tuples of floats; the result is a tuple of
    floats, or a tuple of such tuples for ``split``.
    """
    base = name.removeprefix("Tensor.")
    if base == "__getitem__":
        index = args[1]
        if index is None or index is Ellipsis:  # x[None]: a new leading dimension; x[...]
            return _data(args[0])  # the same values either way
        if isinstance(index, slice):
            return _data(args[0])[index]
        if isinstance(index, (tuple, list)):
            index = index[0]
        assert isinstance(index, int)
        return (_data(args[0])[index],)
    if base in ("real.__get__", "data.__get__"):  # x.data: the same values, a new tensor
        return _data(args[0])
    if base == "grad.__get__":  # a tensor no gradient was computed for
        return None
    if base == "__len__":
        return len(_data(args[0]))
    if base == "__reversed__":  # torch flips the first dimension
        return tuple(reversed(_data(args[0])))
    if base == "__setitem__":
        return None
    bound = dict(kwargs)
    params = {
        "binary": ("input", "other"),
        "unary": ("input",),
        "list": ("tensors",),
        "split": ("tensor", "split_size"),
    }.get(info_of(name).shape, ())
    values = list(args)
    for key in params[len(values):]:
        values.append(bound.pop(key))
    if base in ("add", "sub", "add_"):
        a, b = _pair(values)
        alpha = float(bound.pop("alpha", 1))  # type: ignore[arg-type]
        sign = -1.0 if base == "sub" else 1.0
        return tuple(x + sign * alpha * y for x, y in zip(a, b, strict=False))
    if base == "__rsub__":  # k - x: the tensor first, the int after it
        a, b = _pair(values)
        return tuple(y - x for x, y in zip(a, b, strict=False))
    if base in ("mul", "div", "max", "lt", "gt", "__eq__", "ne", "ge", "le", "__pow__",
                "__floordiv__"):
        a, b = _pair(values)
        ops: dict[str, Callable[[float, float], float]] = {
            "mul": lambda x, y: x * y, "div": lambda x, y: x / y, "max": max,
            "lt": lambda x, y: float(x < y), "gt": lambda x, y: float(x > y),
            "__eq__": lambda x, y: float(x == y), "ne": lambda x, y: float(x != y),
            "ge": lambda x, y: float(x >= y), "le": lambda x, y: float(x <= y),
            "__pow__": lambda x, y: x ** y, "__floordiv__": lambda x, y: x // y}
        return tuple(ops[base](x, y) for x, y in zip(a, b, strict=False))
    if base == "neg":
        return tuple(-x for x in _data(values[0]))
    if base == "abs":
        return tuple(abs(x) for x in _data(values[0]))
    if base == "mean":
        data = _data(values[0])
        return (sum(data) / len(data),)
    if base == "cat":
        seq = values[0]
        assert isinstance(seq, (list, tuple))
        return tuple(x for item in seq for x in _data(item))
    if base == "ones":
        count = 1
        for size in values:
            assert isinstance(size, int)
            count *= size
        return tuple(1.0 for _ in range(count))
    if base == "split":
        data, size = _data(values[0]), values[1]
        assert isinstance(size, int) and size > 0
        return tuple(tuple(data[i:i + size]) for i in range(0, len(data), size))
    raise KeyError(name)


def _data(value: object) -> tuple[float, ...]:
    assert isinstance(value, tuple), value
    return tuple(float(x) for x in value)


def _pair(values: list[object]) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Two operands' data; a number on either side broadcasts to the other's length."""
    first, second = values[0], values[1]
    if isinstance(second, int) and not isinstance(second, bool):
        return _data(first), tuple(float(second) for _ in _data(first))
    return _data(first), _data(second)
