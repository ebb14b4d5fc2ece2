"""Static checks of a scenario: names resolve, steps fit the generation, calls fit their function."""

from __future__ import annotations

from .functions import FORMS, FUNCS
from .scenario import (
    Action,
    Arg,
    Call,
    ClassDecl,
    Const,
    Construct,
    Disable,
    Enable,
    EnableInside,
    Enter,
    ListArg,
    ModeDecl,
    Push,
    PushInside,
    PyFuncDecl,
    Scenario,
    SetRaw,
    TensorArg,
)

RESERVED = frozenset({"plain", "None", "Tensor", "object", "inner", "<base>"})
#: Names a scenario-defined function cannot take: those its reproduction script already uses.
FUNCTION_RESERVED = frozenset({
    "run", "label", "seen", "observe", "warned", "constructed", "name_of", "current_mode",
    "torch", "warnings", "contextlib", "threading", "ad", "types", "args", "kwargs", "func",
    "in_new_thread", "set_raw_mode", "constructing", "returns_none", "inner_call_guard"})


class ScenarioError(ValueError):
    """A scenario file or dict is malformed; the message is one line naming the problem."""


def validate(s: Scenario) -> None:
    """Raise :class:`ScenarioError` (one line) for the first problem found."""
    names = [c.name for c in s.classes] + [m.name for m in s.modes] + [f.name for f in s.functions]
    for f in s.functions:
        _check_function(f)
    for name in names:
        if not name.isidentifier() or name in RESERVED:
            raise ScenarioError(f"{name!r} is not a usable class or mode name")
        if names.count(name) > 1:
            raise ScenarioError(f"the name {name!r} is declared twice")
    classes = {c.name: c for c in s.classes}
    for c in s.classes:
        seen, parent = {c.name}, c.parent
        while parent in classes:
            if parent in seen:
                raise ScenarioError(f"class {c.name!r}: its parents form a cycle")
            if classes[parent].kind != c.kind:
                raise ScenarioError(f"class {c.name!r}: parent {parent!r} is of another kind")
            seen.add(parent)
            parent = classes[parent].parent
        root = "Tensor" if c.kind == "tensor" else "object"
        if parent != root:
            raise ScenarioError(f"class {c.name!r}: unknown parent {parent!r}")
        if c.kind == "duck" and c.handler not in ("classmethod", "plain", "disabled"):
            raise ScenarioError(f"class {c.name!r}: a duck class needs a handler of its own")
    modes = {m.name for m in s.modes}
    for i, step in enumerate(s.setup):
        where = f"setup[{i}]"
        if isinstance(step, (Push, Enter, Construct)):
            _known(step.mode, modes, where, "mode")
        elif isinstance(step, Enable):
            specials = {"@object", "@nohandler"} | {f"@class:{m}" for m in modes}
            if step.target is not None:
                _known(step.target, modes | set(classes) | specials, where, "mode or class")
            if step.replace is not None:
                _known(step.replace, modes | set(classes), where, "mode or class")
        elif isinstance(step, SetRaw) and step.target is not None:
            _known(step.target, modes | set(classes), where, "mode or class")
        _generation_fits(s, step, where)
    decls: list[ModeDecl | ClassDecl] = [*s.modes, *s.classes]
    for decl in decls:
        if decl.behaviour is not None:
            for _, action in (("default", decl.behaviour.default), *decl.behaviour.on):
                _check_action(action, modes, set(classes), f"behaviour of {decl.name!r}")
    if s.call is not None:
        defined = s.function_named(s.call.func)
        if defined is not None:
            _check_pyfunc_call(s.call, defined, classes)
        else:
            _check_call(s.call, classes)


def _check_function(f: PyFuncDecl) -> None:
    where = f"function {f.name!r}"
    if f.name in FUNCS or f.name in FUNCTION_RESERVED or f.name.startswith(("Tensor", "_")):
        raise ScenarioError(f"{where}: the name is taken (by the vocabulary or the "
                            "reproduction script)")
    plain = [r for r in f.relevant if not r.startswith("*")]
    for r in f.relevant:
        if r.lstrip("*") not in f.names:
            raise ScenarioError(f"{where}: relevant names {r!r}, not one of its parameters "
                                f"{', '.join(f.names)}")
    if f.probe == "unary" and (len(f.relevant) != 1 or len(plain) != 1):
        raise ScenarioError(f"{where}: the unary probe takes exactly one relevant parameter")


def _check_pyfunc_call(call: Call, decl: PyFuncDecl, classes: dict[str, ClassDecl]) -> None:
    if call.kwargs or len(call.args) != decl.params:
        raise ScenarioError(f"call: {decl.name!r} takes {decl.params} positional argument(s)")
    for name, arg in zip(decl.names, call.args, strict=True):
        for item in arg.items if isinstance(arg, ListArg) else (arg,):
            if isinstance(item, ListArg):
                raise ScenarioError(f"call: {decl.name!r}: lists inside lists are not arguments")
            _tensors(item, classes)
        if f"*{name}" in decl.relevant and not isinstance(arg, ListArg):
            raise ScenarioError(f"call: {decl.name!r}: parameter {name!r} is spread, so it takes a list")


def _known(name: str, pool: set[str], where: str, what: str) -> None:
    if name not in pool:
        raise ScenarioError(f"{where}: unknown {what} {name!r}")


def _generation_fits(s: Scenario, step: object, where: str) -> None:
    stack_only = isinstance(step, Enter) or (isinstance(step, Disable) and step.subclass_only)
    only_2022 = isinstance(step, (Push, Enable, SetRaw))
    if (s.generation == "2022" and stack_only) or (s.generation == "stack" and only_2022):
        raise ScenarioError(f"{where}: {type(step).__name__} is not a step of the "
                            f"{s.generation} generation")


def _check_action(a: Action, modes: set[str], classes: set[str], where: str) -> None:
    if isinstance(a, PushInside):
        _known(a.mode, modes, where, "mode")
        _check_action(a.then, modes, classes, where)
    elif isinstance(a, EnableInside):
        _known(a.mode, modes | classes, where, "mode or class")
        if a.replace not in (None, "inner"):
            _known(a.replace, modes | classes, where, "mode or class")
        _check_action(a.then, modes, classes, where)


def _tensors(a: Arg, classes: object) -> bool:
    if isinstance(a, TensorArg):
        if a.cls is not None and a.cls not in classes:  # type: ignore[operator]
            raise ScenarioError(f"call: unknown class {a.cls!r}")
        return True
    return False


def _check_form(call: Call, classes: dict[str, ClassDecl]) -> None:
    """A call written as a syntactic form: a tensor first (a plain one or a Tensor subclass),
    then a tensor (``x + y``) or an int (``k + x``, ``x[k]``: 0 or 1), by position only."""
    form = FORMS[call.func]
    kind, takes = form.kind, form.takes
    args = call.args
    ok = not call.kwargs and len(args) == takes and isinstance(args[0], TensorArg) and (
        args[0].cls is None or (args[0].cls in classes and classes[args[0].cls].kind == "tensor"))
    if ok and takes == 2:
        second = args[1]
        if kind in ("infix", "inplace"):
            ok = isinstance(second, TensorArg) and _tensors(second, classes)
        else:
            ok = (isinstance(second, Const) and isinstance(second.value, int)
                  and (kind != "index" or second.value in (0, 1)))
    if ok and takes == 3:  # x[k] = c
        k, c = args[1], args[2]
        ok = (isinstance(k, Const) and type(k.value) is int and k.value in (0, 1)
              and isinstance(c, Const) and type(c.value) is int)
    if not ok:
        signature = _FORM_SIGNATURES["unary"] if takes == 1 else _FORM_SIGNATURES[kind]
        raise ScenarioError(f"call: the arguments do not fit the form {call.func!r}: "
                            f"{signature}, by position only")


def _check_call(call: Call, classes: object) -> None:
    if call.func in FORMS:
        _check_form(call, classes)  # type: ignore[arg-type]
        return
    info = FUNCS[call.func]
    values = [*call.args, *(v for _, v in call.kwargs)]
    for v in values:
        for item in v.items if isinstance(v, ListArg) else (v,):
            _tensors(item, classes)
    shape = info.shape
    ok = True
    if shape in ("binary", "unary"):
        params = ("input", "other")[: 2 if shape == "binary" else 1]
        positional = call.args
        keyed = {k: v for k, v in call.kwargs}
        alpha = keyed.pop("alpha", None)
        ok = (len(positional) <= len(params)
              and all(isinstance(v, TensorArg) for v in positional)
              and set(keyed) == set(params[len(positional):])
              and all(isinstance(v, TensorArg) for v in keyed.values())
              and (alpha is None or (info.alpha and isinstance(alpha, Const)
                                     and isinstance(alpha.value, int)))
              and (not info.method or len(positional) >= 1))
    elif shape == "list":
        ok = len(values) == 1 and isinstance(values[0], ListArg) and len(values[0].items) > 0
        ok = ok and all(isinstance(x, TensorArg) for x in values[0].items)  # type: ignore[union-attr]
    elif shape == "sizes":
        ok = bool(values) and not call.kwargs and all(
            isinstance(v, Const) and isinstance(v.value, int) and v.value >= 0 for v in values)
    elif shape == "split":
        ok = (not call.kwargs and len(values) == 2 and isinstance(values[1], Const)
              and isinstance(values[1].value, int) and values[1].value > 0)
    elif shape == "probe_seq":
        ok = not call.kwargs and len(values) == 1 and isinstance(values[0], ListArg)
    elif shape == "probe_one":
        ok = not call.kwargs and len(values) == 1
    else:
        ok = not call.kwargs
    if ok and info.method:
        first = call.args[0]
        ok = isinstance(first, TensorArg) and (
            first.cls is None or classes[first.cls].kind == "tensor")  # type: ignore[index]
    if not ok:
        method = " (a Tensor method: the first is a tensor)" if info.method else ""
        raise ScenarioError(f"call: the arguments do not fit {call.func!r}: it takes "
                            f"{_SIGNATURES.get(shape, 'positional arguments only')}{method}")


#: What each kind of syntactic form takes, as ScenarioError says it.
_FORM_SIGNATURES = {
    "infix": "(x, y): a tensor (plain or of a Tensor subclass), then any tensor",
    "inplace": "(x, y): a tensor (plain or of a Tensor subclass), then any tensor",
    "reflected": "(x, k): a tensor (plain or of a Tensor subclass), then an int",
    "index": "(x, k): a tensor (plain or of a Tensor subclass), then the int 0 or 1",
    "unary": "(x): a tensor (plain or of a Tensor subclass)",
    "property": "(x): a tensor (plain or of a Tensor subclass)",
    "assign": "(x, k, c): a tensor (plain or of a Tensor subclass), the int 0 or 1, then an int",
}

#: What each shape of function takes, as ScenarioError says it.
_SIGNATURES = {
    "binary": "(input, other, alpha=INT): two tensors by position or keyword, alpha where the "
              "function has it",
    "unary": "(input): one tensor, by position or keyword",
    "list": "([tensors, ...]): one non-empty list of tensors, by position",
    "sizes": "(n, ...): non-negative integers, by position",
    "split": "(tensor, split_size): a tensor and an integer > 0, by position only",
    "probe_seq": "([...]): one list, by position",
    "probe_one": "(x): one argument, by position",
}
