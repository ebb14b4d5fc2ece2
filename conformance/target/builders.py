"""The objects a scenario declares, built for one run, and how the run names what its
handlers are handed.

:class:`ScenarioObjects` builds the Tensor subclasses (and duck classes), the mode classes and
the Python functions of a scenario, and the call's tensors; each handler is a closure over
names only that finds its run in :data:`RUNS` (torch.compile cannot wrap a run in a closure
torch's dispatch hands it). It names each callable a handler is handed by the scenario's
vocabulary (``?name`` for one outside it, which passes through unseen).
:class:`conformance.target.runner.Run` is the rest of a run: the set-up steps, the call, what
was observed. This module imports nothing of the runner.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from spec.model.functions import FORMS, FormInfo, handed_args, pyfunc_kernel, tensor_data
from spec.model.scenario import (
    Action,
    Arg,
    Behaviour,
    Const,
    ListArg,
    PyFuncDecl,
    Scenario,
    TensorArg,
)
from spec.model.syntax import REFLECTED_METHODS
from spec.model.trace import Built, Constructed, Event, Role, Unlisted

from ..base.safe import attribute_name, function_name
from .adapter import Adapter

__all__ = ["ABSENT", "KEYS", "NOT_PASSED", "RUNS", "Ctx", "ScenarioObjects", "evaluate_form"]

ABSENT = object()
#: A handler's default for ``kwargs``: it was called with three positional arguments, not
#: with ``None`` as a fourth (TFM_ARGS_003 tells the two apart).
NOT_PASSED = object()
#: Every run not yet finished, by key (see Run.__init__); a run leaves when it is finished.
RUNS: dict[str, ScenarioObjects] = {}
KEYS = itertools.count()


#: The operators a form may be written with, applied as Python applies them.
_OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "<": operator.lt, "==": operator.eq,
    "/": operator.truediv, "!=": operator.ne, ">=": operator.ge,
    "**": operator.pow, "//": operator.floordiv}
#: The builtins a form may be written with (``abs(x)``), called as Python calls them.
_BUILTINS: dict[str, Callable[[Any], Any]] = {"abs": abs, "int": int, "reversed": reversed}


def evaluate_form(form: FormInfo, args: Sequence[Any]) -> Any:
    """A syntactic form, evaluated as Python evaluates it (the interpreter picks the method)."""
    if form.kind == "infix":
        return _OPERATORS[form.symbol](args[0], args[1])
    if form.kind == "reflected":
        return _OPERATORS[form.symbol](args[1], args[0])
    if form.kind == "inplace":
        target = args[0]
        target += args[1]  # Python's in-place protocol: __iadd__, else __add__ and __radd__
        return target
    if form.kind == "unary":
        return -args[0]
    if form.kind == "len":
        return len(args[0])
    if form.kind == "builtin":
        return _BUILTINS[form.symbol](args[0])
    if form.kind == "assign":  # a statement, whose value is None
        args[0][args[1]] = args[2]
        return None
    if form.kind == "index":
        return args[0][handed_args(form, list(args))[1]]
    return getattr(args[0], form.symbol)  # a property: x.real, x.grad, x.data


class Ctx:
    """The call a runner-built handler is handling."""

    def __init__(self, name: str, func: Callable[..., Any], types: Any, args: Any, kwargs: Any,
                 cls: type | None, mode: Any) -> None:
        self.name, self.func, self.types, self.args, self.kwargs = name, func, types, args, kwargs
        self.cls, self.mode = cls, mode


class ScenarioObjects:
    """The building half of a run (:class:`conformance.target.runner.Run` fills in the rest)."""

    sc: Scenario
    ad: Adapter
    key: str
    events: list[Event]
    classes: dict[str, type]
    mode_classes: dict[str, type]
    instances: dict[str, Any]
    specials: dict[str, Any]
    behaviours: dict[str, Behaviour]
    pydecls: dict[str, PyFuncDecl]
    idents: dict[int, str]
    #: The objects the suite made for the call, with their names (``x0``...), for :meth:`_ident`.
    made: list[tuple[Any, str]]
    #: The call's tensors whose making ran something of the scenario or raised.
    built: list[Built]
    funcs: dict[int, str]
    handed: list[tuple[Any, str]]
    #: Whether what a handler is handed is named by identity rather than by ``id()`` (under
    #: torch.compile: see :meth:`_func_name`).
    by_identity: bool = False
    #: Callables named by equality, not identity (a property's getter is a new object at
    #: each lookup), and the name a handler's behaviour knows each form's callables by.
    equal_funcs: list[tuple[Any, str]]
    canonical: dict[str, str]
    #: Every call a handler was handed of a function outside the scenario's vocabulary.
    unlisted: list[Unlisted]
    #: The suite's own code running right now that calls the namespace (building the call's
    #: tensors, a Python function's kernel): what made an unlisted call, where one did.
    making: str | None = None

    def _unlisted(self, who: str, role: Role, func: Any) -> None:
        """Record that handler ``who`` was handed ``func``, a function outside the scenario's
        vocabulary, which it lets through unchanged (TFM_REACH_010)."""
        name = function_name(func)
        self.unlisted.append(Unlisted(who, role, name, len(self.events),
                                      self.making or self.made_in_graph() or self._by_syntax(name)))

    def _by_syntax(self, name: str) -> str | None:
        """Python's operator protocol makes a call of its own: once the left operand's method
        declines (returns NotImplemented), an operator calls the right operand's reflected
        method (``y.__rsub__(x)`` for ``x - y``), a call of the program's syntax."""
        call = self.sc.call
        form = FORMS.get(call.func) if call is not None else None
        if form is None or not form.operator or name.removeprefix("Tensor.") not in REFLECTED_METHODS:
            return None
        return f"Python's operator protocol: {form.name} calls the right operand's reflected method"

    def made_in_graph(self) -> str | None:
        """What made a call handed while a compiled graph runs (a compiled run's; none here)."""
        return None

    def _record(self, who: str, role: str, func: str, types: Any, args: Any, passed: Any,
                bound: str | None) -> None:
        """Record a handler run (``passed``: its fourth argument, or :data:`NOT_PASSED`)."""
        raise NotImplementedError

    def _perform(self, action: Action, ctx: Ctx) -> Any:
        raise NotImplementedError

    def label(self, obj: object) -> str | None:
        raise NotImplementedError

    # -- building the scenario's objects ------------------------------------

    def _name_form(self, name: str) -> None:
        """Name the callables the form ``name`` may hand its handlers (only in a scenario that
        uses it: elsewhere an implementation's own indexing passes through unseen)."""
        form = FORMS[name]
        named = [(handed, group[0]) for group in form.groups for handed in group]
        for handed, canonical in named:
            self.canonical.setdefault(handed, canonical)
            attr = handed.removeprefix("Tensor.")
            if attr.endswith(".__get__"):
                prop = getattr(self.ad.Tensor, attr.removesuffix(".__get__"), None)
                if prop is not None and hasattr(prop, "__get__"):
                    self.equal_funcs.append((prop.__get__, handed))
            elif hasattr(self.ad.Tensor, attr):  # torch's Tensor.__neg__ is Tensor.neg itself
                obj = getattr(self.ad.Tensor, attr)
                if id(obj) not in self.funcs:
                    self.funcs[id(obj)] = handed
                    self.handed.append((obj, handed))

    # -- building the scenario's objects ------------------------------------

    def _pyfunc(self, decl: PyFuncDecl) -> Callable[..., Any]:
        """The scenario's Python function, dispatching as a library author writes one."""
        handle = self.ad.func("handle_torch_function")
        probe = self.ad.func({"sequence": "has_torch_function", "unary": "has_torch_function_unary",
                              "variadic": "has_torch_function_variadic"}[decl.probe])
        split = decl.params - decl.keywords
        key, fname = self.key, decl.name
        self.pydecls[fname] = decl

        def pyfunc(*values: Any, **keywords: Any) -> Any:
            run = RUNS[key]
            decl = run.pydecls[fname]
            # A plain loop, not zip(): Dynamo 2.5 to 2.9 cannot trace zip(..., strict=False) and
            # would break the graph here, a break of the suite's own making.
            bound: dict[str, Any] = {}
            for i, value in enumerate(values):
                if i < len(decl.names):
                    bound[decl.names[i]] = value
            bound.update(keywords)
            relevant: list[Any] = []
            for name in decl.relevant:
                if name.startswith("*"):
                    relevant.extend(bound[name[1:]])
                else:
                    relevant.append(bound[name])
            has = probe(tuple(relevant)) if decl.probe == "sequence" else probe(*relevant)
            if has:
                return handle(pyfunc, tuple(relevant), *(bound[n] for n in decl.names[:split]),
                              **{n: bound[n] for n in decl.names[split:]})
            return run._pyfunc_kernel([bound[n] for n in decl.names])

        pyfunc.__name__ = pyfunc.__qualname__ = decl.name
        pyfunc.__module__ = "scenario"
        return pyfunc

    def _pyfunc_kernel(self, values: list[Any]) -> Any:
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        # Reading the data and tensor() may dispatch (torch 1.12's DisableTorchFunction leaves
        # modes on; tensor() is a factory in torch): calls the suite makes, not the scenario.
        making, self.making = self.making, "the suite's kernel of a Python function of the scenario"
        try:
            total = pyfunc_kernel([tuple(self.ad.data(x)) for x in flat
                                   if isinstance(x, self.ad.Tensor)])
            return None if total is None else self.ad.tensor(total)
        finally:
            self.making = making

    def _build_class(self, name: str) -> type:
        if name in self.classes:
            return self.classes[name]
        decl = self.sc.class_named(name)
        assert decl is not None
        if decl.parent == "Tensor":
            base: type = self.ad.Tensor
        elif decl.parent == "object":
            base = object
        else:
            base = self._build_class(decl.parent)
        body: dict[str, Any] = {"__module__": "scenario"}
        if decl.handler == "disabled":
            body["__torch_function__"] = self.ad.disabled_impl
        elif decl.handler in ("classmethod", "plain"):
            assert decl.behaviour is not None
            self.behaviours[name] = decl.behaviour
            body["__torch_function__"] = self._class_handler(name, decl.handler)
        cls = type(name, (base,), body)
        self.classes[name] = cls
        return cls

    # The handlers keep only names in their closure and find the run, and through it their
    # behaviour, in the module's RUNS: torch.compile cannot wrap the run (or the spec's
    # objects) in the closure of a handler that torch's dispatch hands it (a plain-method
    # handler, a mode's __init__; see conformance.target.compiled).

    def _class_handler(self, cls_name: str, kind: str) -> Any:
        key = self.key

        def handler(owner: Any, func: Any, types: Any, args: Any = (),
                    passed: Any = NOT_PASSED) -> Any:
            run = RUNS[key]
            kwargs = None if passed is NOT_PASSED else passed
            cls = owner if isinstance(owner, type) else type(owner)
            bound = None if isinstance(owner, type) else run._ident(owner)
            name = run._func_name(func)
            if name.startswith("?"):  # not the scenario's: recorded, and let through unchanged
                run._unlisted(cls.__name__, "subclass", func)
                with run.ad.disable(subclass_only="disable-subclass" in run.ad.features):
                    return func(*args, **(kwargs or {}))
            run._record(cls.__name__, "subclass", name, types, args, passed, bound)
            ctx = Ctx(name, func, types, args, kwargs, cls, None)
            action = run.behaviours[cls_name].action_for(run.canonical.get(name, name))
            return run._perform(action, ctx)

        return classmethod(handler) if kind == "classmethod" else handler

    def _mode_class(self, name: str, as_classmethod: bool) -> type:
        key = self.key

        def handler(mode: Any, func: Any, types: Any, args: Any = (),
                    passed: Any = NOT_PASSED) -> Any:
            run = RUNS[key]
            kwargs = None if passed is NOT_PASSED else passed
            fname = run._func_name(func)
            if fname.startswith("?"):  # not the scenario's: recorded, and let through unchanged
                run._unlisted(name, "mode", func)
                return func(*args, **(kwargs or {}))
            run._record(name, "mode", fname, types, args, passed, None)
            ctx = Ctx(fname, func, types, args, kwargs, None, mode)
            return run._perform(run.behaviours[name].action_for(run.canonical.get(fname, fname)),
                                ctx)

        def init(mode: Any, *args: Any, **kwargs: Any) -> None:
            run = RUNS[key]
            inner = getattr(mode, "inner", ABSENT)
            shown = "-" if inner is ABSENT else run.label(inner)
            run.events.append(Constructed(name, shown, len(args) + len(kwargs)))

        body: dict[str, Any] = {"__module__": "scenario", "__init__": init,
                                "__torch_function__": classmethod(handler) if as_classmethod
                                else handler}
        return type(self.ad.TorchFunctionMode)(name, (self.ad.TorchFunctionMode,), body)

    def _instance(self, name: str) -> Any:
        if name in self.specials:
            return self.specials[name]
        if name.startswith("@class:"):
            return self.mode_classes[name.removeprefix("@class:")]
        if name in self.mode_classes:
            return self.instances[name]
        return self.classes[name]

    # -- the call's arguments ----------------------------------------------------

    def _call_arguments(self) -> tuple[list[Any], dict[str, Any]]:
        """The call's arguments: the tensors (subclass and duck instances among them) made, in
        order, as ``x0``, ``x1``...; the runner makes them before any set-up step, outside the
        compiled function or as its first act (making a tensor may dispatch)."""
        call = self.sc.call
        if call is None:
            return [], {}
        counter = itertools.count()
        args = [self._materialize(a, counter) for a in call.args]
        kwargs = {k: self._materialize(a, counter) for k, a in call.kwargs}
        return args, kwargs

    def _materialize(self, arg: Arg, counter: Iterator[int]) -> Any:
        if isinstance(arg, TensorArg):
            k = next(counter)
            cls = None if arg.cls is None else self.classes[arg.cls]
            duck = cls is not None and not issubclass(cls, self.ad.Tensor)
            how = (f"{arg.cls}()" if duck else f"tensor({list(tensor_data(k))})"
                   + ("" if cls is None else f".as_subclass({arg.cls})"))
            first = len(self.events)
            making, self.making = self.making, f"the suite building x{k} with {how}"
            try:
                t = self.ad.tensor(tensor_data(k))
                if cls is not None:
                    t = cls() if duck else t.as_subclass(cls)
            except Exception:  # the outcome: the implementation raised as the suite built it
                self.built.append(Built(f"x{k}", how, first, len(self.events), raised=True))
                raise
            finally:
                self.making = making
            if len(self.events) > first:  # a handler ran, or a warning, as the suite built it
                self.built.append(Built(f"x{k}", how, first, len(self.events)))
            if not self.by_identity:  # no id() under torch.compile (ScenarioObjects._ident)
                self.idents[id(t)] = f"x{k}"
            self.made.append((t, f"x{k}"))
            return t
        if isinstance(arg, ListArg):
            return [self._materialize(a, counter) for a in arg.items]
        assert isinstance(arg, Const)
        return arg.value

    # -- naming what a handler is handed --------------------------------------

    def _ident(self, obj: Any) -> str:
        """The name of an object the suite made for the call (``x0``...), ``"?"`` for another."""
        if self.by_identity:  # no id() under torch.compile (see _func_name)
            for made, name in self.made:  # a loop: Dynamo up to 2.8 cannot trace next(g, None)
                if made is obj:
                    return name
            return "?"
        return self.idents.get(id(obj), "?")

    def _func_name(self, func: Any) -> str:
        """The scenario name of ``func``; ``?name`` for functions outside the scenario vocabulary."""
        if self.by_identity:
            # Under torch.compile no id() is taken: some Dynamo releases (2.11) cannot trace id()
            # of a torch function or a getter and break the graph there, a break of the suite's
            # own making; and id() of a callable Dynamo made without a source (the one an
            # operator such as -x or x[k] hands a handler) is a compile-time value of its own
            # that matches no id of the run. An identity check is what Dynamo can trace.
            # A loop, not next(generator, None): Dynamo up to 2.8 traces next() with one
            # argument only, and breaking the graph here would run the handler eagerly.
            known: str | None = None
            for other, name in self.handed:
                if func is other:
                    known = name
                    break
        else:
            known = self.funcs.get(id(func))
        if known is None:
            for other, name in self.equal_funcs:
                try:
                    if func == other:
                        return name
                except Exception:  # the implementation's object: not this one
                    continue
        return known or f"?{attribute_name(func)}"
