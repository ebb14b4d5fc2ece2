"""Runs a scenario on an implementation through its adapter and records the observed trace."""

from __future__ import annotations

import contextlib
import threading
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model.functions import FORMS, FUNCS
from spec.model.scenario import (
    Action,
    Behaviour,
    Construct,
    Default,
    DeferToTypes,
    Disable,
    Enable,
    EnableInside,
    Enter,
    Forward,
    ForwardAdd,
    NotImpl,
    Push,
    PushInside,
    PyFuncDecl,
    Raise,
    Redispatch,
    Return,
    Scenario,
    SetRaw,
    Step,
)
from spec.model.trace import (
    NONE_PASSED,
    Built,
    Event,
    HandlerRun,
    Installed,
    Message,
    Outcome,
    Raised,
    Returned,
    Settled,
    TensorValue,
    Trace,
    Unlisted,
    Value,
    WarningEmitted,
    grouped,
)

from ..base.safe import name_of, repr_of, text_of
from .adapter import Adapter
from .arguments import described_events
from .builders import KEYS, NOT_PASSED, RUNS, Ctx, ScenarioObjects, evaluate_form
from .noise import first_line, is_protocol_warning

#: What ``Run.execute`` runs the scenario's user code with (see its docstring).
Wrap = Callable[[Callable[[list[Any], dict[str, Any]], Any]], Callable[[list[Any], dict[str, Any]], Any]]


#: The name of the thread a scenario's call is made in when it asks for a new thread.
CALL_THREAD = "tfmode-scenario"

class HandlerError(Exception):
    """What a scenario's ``raise`` action raises."""


class Run(ScenarioObjects):
    """One execution of one scenario: the objects built for it and what was seen."""

    def __init__(self, scenario: Scenario, adapter: Adapter) -> None:
        self.sc, self.ad = scenario, adapter
        self.events: list[Event] = []
        #: Per handler run, its event's index and the ``args`` and ``kwargs`` it received.
        self.received: list[tuple[int, Any, Any]] = []
        self.noise: list[tuple[str, str]] = []
        #: The call's tensors whose building ran something of the scenario or raised.
        self.built: list[Built] = []
        self.unlisted: list[Unlisted] = []
        self.classes: dict[str, type] = {}
        self.mode_classes: dict[str, type] = {}
        self.instances: dict[str, Any] = {}
        self.pushed: dict[str, list[Any]] = {}
        self.idents: dict[int, str] = {}
        self.made: list[tuple[Any, str]] = []
        #: The namespace's callables, each looked up once (the objects are kept, so that no id
        #: in ``funcs`` can be reused), for :meth:`_func_name`'s identity check.
        self.handed = [(adapter.func(n), n) for n in FUNCS if FUNCS[n].path != "probe"]
        self.funcs = {id(f): n for f, n in self.handed}
        #: Callables named by equality, not identity (a property's getter is a new object at
        #: each lookup), and the name a handler's behaviour knows each form's callables by.
        self.equal_funcs: list[tuple[Any, str]] = []
        self.canonical: dict[str, str] = {}
        if scenario.call is not None and scenario.call.func in FORMS:
            self._name_form(scenario.call.func)
        self.defined: dict[str, Callable[..., Any]] = {}
        self.behaviours: dict[str, Behaviour] = {}
        #: Where the user code meets what ``execute`` wraps (``spec.boundary``).
        self.boundary = EVERYTHING_INSIDE
        self.pydecls: dict[str, PyFuncDecl] = {}
        # The handlers and functions built below find this run through RUNS by its key.
        self.key = f"run-{next(KEYS)}"
        RUNS[self.key] = self
        for fdecl in scenario.functions:
            self.defined[fdecl.name] = self._pyfunc(fdecl)
            self.funcs[id(self.defined[fdecl.name])] = fdecl.name
            self.handed.append((self.defined[fdecl.name], fdecl.name))
        for decl in scenario.classes:
            self._build_class(decl.name)
        for mdecl in scenario.modes:
            self.behaviours[mdecl.name] = mdecl.behaviour
            self.mode_classes[mdecl.name] = self._mode_class(mdecl.name, mdecl.classmethod_handler)
        self.specials: dict[str, Any] = {"@object": object(), "@nohandler": type("NoHandler", (), {})}

    # -- observation --------------------------------------------------------------

    def label(self, obj: object) -> str | None:
        if obj is None:
            return None
        if type(obj) is self.ad.BaseTorchFunctionMode:
            return "<base>"
        if isinstance(obj, type):
            return name_of(obj)
        if name_of(type(obj)) in self.mode_classes:
            return name_of(type(obj))
        return f"?{repr_of(obj)}"

    def _record(self, who: str, role: str, func: str, types: Any, args: Any, passed: Any,
                bound: str | None) -> None:
        # TFM_ARGS_003: three positional arguments (the handler's own default) or a fourth
        kwargs = None if passed is NOT_PASSED else passed
        seen = None if passed is NOT_PASSED else NONE_PASSED if passed is None else tuple(sorted(passed))
        names = tuple(name_of(t) if isinstance(t, type) else repr_of(t) for t in types)
        # The arguments are kept as they are (a shallow copy of the dict, which a handler may
        # change) and described once the run is over (see described_events): describing them
        # here would be code for torch.compile to trace inside the handler.
        self.received.append((len(self.events), args, dict(kwargs) if type(kwargs) is dict else kwargs))
        self.events.append(HandlerRun(who, role, func, names, seen,  # type: ignore[arg-type]
                                      self.label(self.ad.current_mode()), bound))

    def _warn(self, message: Any, category: type[Warning], *_: Any, **__: Any) -> None:
        text = text_of(message)
        if is_protocol_warning(text):
            self.events.append(WarningEmitted(name_of(category), Message((text,))))
        else:  # the implementation's own notice: counted, never compared
            self.noise.append((name_of(category), first_line(text)))

    # -- actions ------------------------------------------------------------------

    def call(self, name: str, args: Sequence[Any], kwargs: dict[str, Any]) -> Any:
        if name in self.defined:
            return self.defined[name](*args, **kwargs)
        if name in FORMS:
            return evaluate_form(FORMS[name], args)
        info = FUNCS[name]
        if info.path == "probe":
            return self.ad.has_torch_function(name, args)
        target = getattr(args[0], name.removeprefix("Tensor.")) if info.method else self.ad.func(name)
        rest = args[1:] if info.method else args
        # No ``**{}`` when there are no keywords: torch hands a spread empty dict on as {}.
        return target(*rest, **kwargs) if kwargs else target(*rest)

    def _perform(self, action: Action, ctx: Ctx) -> Any:
        if isinstance(action, Return):
            return action.value
        if isinstance(action, NotImpl):
            return NotImplemented
        if isinstance(action, Raise):
            raise (HandlerError if action.error == "HandlerError" else TypeError)(action.message)
        kwargs = dict(ctx.kwargs or {})
        if isinstance(action, DeferToTypes):
            if ctx.types:
                return NotImplemented
            action = Forward()
        if isinstance(action, Forward):
            guard = self.ad.disable() if action.disable else contextlib.nullcontext()
            with guard:
                return ctx.func(*ctx.args, **kwargs) if kwargs else ctx.func(*ctx.args)
        if isinstance(action, Default) and ctx.mode is not None:
            base = self.ad.TorchFunctionMode.__torch_function__  # type: ignore[attr-defined]
            return base(ctx.mode, ctx.func, ctx.types, ctx.args, ctx.kwargs)
        if isinstance(action, Default):
            default = self.ad.Tensor.__torch_function__.__func__  # type: ignore[attr-defined]
            return default(ctx.cls, ctx.func, ctx.types, ctx.args, ctx.kwargs)
        if isinstance(action, Redispatch):
            guard = self.ad.reenter(ctx.mode) if action.reenter else contextlib.nullcontext()
            with guard:
                return self.call(action.target, tuple(ctx.args), kwargs)  # as the snippet does
        if isinstance(action, PushInside):
            with self.push(action.mode):
                return self._perform(action.then, ctx)
        if isinstance(action, ForwardAdd):
            result = self._perform(Forward(), ctx)
            if isinstance(result, self.ad.Tensor):
                return self.call("add", (result, action.amount), {})
            return result
        assert isinstance(action, EnableInside)
        if action.replace == "inner":
            replace = ctx.mode.inner if self.ad.generation == "2022" else None
        else:
            replace = None if action.replace is None else self._instance(action.replace)
        with self.ad.enable(self._instance(action.mode), replace, action.ignore_preexisting):
            return self._perform(action.then, ctx)

    @contextlib.contextmanager
    def push(self, name: str) -> Iterator[Any]:
        """Push (2022) or enter (stack) a new instance of mode class ``name``."""
        with self.ad.push(self.mode_classes[name]) as mode:
            self.pushed.setdefault(name, []).append(mode)
            yield mode

    def _step(self, step: Step) -> Any:
        if isinstance(step, Push) and step.how == "instance":
            return self.ad.push(self.instances[step.mode])
        if isinstance(step, Push) and step.how == "bad_ctor":
            return self.ad.push(_returns_none)
        if isinstance(step, Push):
            return self.push(step.mode)
        if isinstance(step, SetRaw):
            return self.ad.set_raw(None if step.target is None else self._instance(step.target))
        if isinstance(step, Construct):
            return _constructing(self.mode_classes[step.mode])
        if isinstance(step, Enable):
            target = None if step.target is None else self._instance(step.target)
            replace = None if step.replace is None else self._instance(step.replace)
            return self.ad.enable(target, replace, step.ignore_preexisting)
        if isinstance(step, Enter):
            return self.ad.enter(self._instance(step.mode))
        assert isinstance(step, Disable)
        return self.ad.disable(step.subclass_only)

    def observe(self, value: Any) -> Value:
        if isinstance(value, self.ad.Tensor):
            return TensorValue(type(value).__name__ if type(value) is not self.ad.Tensor
                               else "Tensor", tuple(self.ad.data(value)))
        if isinstance(value, (tuple, list)):
            return tuple(self.observe(v) for v in value)
        if value is None or isinstance(value, (bool, int)):
            return value
        return f"?{type(value).__name__}"  # type: ignore[return-value]

    # -- the whole scenario ---------------------------------------------------------

    def execute(self, wrap: Wrap | None = None, boundary: Boundary = EVERYTHING_INSIDE) -> Trace:
        """Run the scenario. ``wrap`` takes the scenario's user code (the set-up, entered in
        order, and the call) as a function of the call's arguments and returns what runs it:
        ``torch.compile`` does (conformance.target.compiled); ``None`` runs it as it is.
        ``boundary`` says which of the set-up's steps are entered around that function (a mode
        entered outside the compiled function, active while it runs), where a graph break is
        forced inside it, and whether the call's tensors are made inside it; it is fitted to
        the set-up (:meth:`spec.boundary.Boundary.fitted`). Run as it is, where the boundary
        lies changes nothing."""
        outcome: Outcome
        self.boundary = boundary.fitted(len(self.sc.setup))
        body = self.inner_code if wrap is None else wrap(self.inner_code)
        with warnings.catch_warnings():
            warnings.simplefilter("always")
            warnings.showwarning = self._warn
            try:
                call_args, call_kwargs = (([], {}) if self.boundary.made_inside
                                          else self._call_arguments())
                for name in self.sc.instance_modes():
                    self.instances[name] = self.ad.make_mode(self.mode_classes[name])
                result = self._enter(0, self.outside, body, call_args, call_kwargs)
                making, self.making = self.making, "the suite reading the call's result"
                try:  # a mode left set sees the reads
                    outcome = Returned(self.observe(result))
                finally:
                    self.making = making
            except Exception as exc:
                # text_of: an exception whose __str__ raises is still the implementation's raise
                outcome = Raised(name_of(type(exc)), Message((text_of(exc),)))
            finally:
                RUNS.pop(self.key, None)
        if self.by_identity:  # the call's tensors, made with no id() taken: named by id() here
            for made, name in self.made:
                self.idents.setdefault(id(made), name)
        return Trace(described_events(self.events, self.received, self.idents), outcome,
                     self.label(self.ad.current_mode()), noise=tuple(self.noise),
                     built=tuple(self.built), unlisted=grouped(self.unlisted))

    @property
    def outside(self) -> int:
        """How many of the set-up's first steps are entered outside what ``execute`` wraps."""
        return self.boundary.outside

    def inner_code(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        """The user code inside the boundary: the call's tensors where they are made inside,
        the set-up's steps from ``outside`` on, one inside the other, with a graph break
        where one is forced, and the call in the innermost (``None`` when the scenario makes
        no call)."""
        if self.boundary.made_inside:
            args, kwargs = self._call_arguments()
        return self._enter(self.outside, len(self.sc.setup), self._the_call, args, kwargs,
                           self.boundary.graph_break)

    def graph_break(self) -> None:
        """Where the boundary forces a graph break: nothing, run as it is (a compiled run
        breaks the graph here)."""

    def _enter(self, index: int, stop: int, then: Callable[[list[Any], dict[str, Any]], Any],
               args: list[Any], kwargs: dict[str, Any], brk: int | None = None) -> Any:
        """The set-up's steps ``index`` to ``stop``, one inside the other, around ``then``; a
        graph break before step ``brk`` (``stop``: before ``then``)."""
        if index == brk:
            self.graph_break()
        if index < stop:
            with self._step(self.sc.setup[index]):
                self.events.append(Installed(index, self.label(self.ad.current_mode())))
                return self._enter(index + 1, stop, then, args, kwargs, brk)
        return then(args, kwargs)

    def _the_call(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        if self.sc.call is None:
            return None
        try:
            return self._call_scenario(args, kwargs)
        finally:
            self.events.append(Settled(self.label(self.ad.current_mode())))

    def _call_scenario(self, args: list[Any], kwargs: dict[str, Any]) -> Any:
        call = self.sc.call
        assert call is not None
        if not call.thread:
            return self.call(call.func, args, kwargs)
        box: dict[str, Any] = {}

        def in_thread() -> None:
            try:
                box["result"] = self.call(call.func, args, kwargs)
            except Exception as exc:
                box["error"] = exc

        worker = threading.Thread(target=in_thread, name=CALL_THREAD, daemon=True)
        worker.start()
        worker.join()
        if "error" in box:
            raise box["error"]
        return box.get("result")

    def naming(self) -> dict[tuple[str, str], str]:
        """How the objects of this run print, for rendering predicted messages."""
        names: dict[tuple[str, str], str] = {
            ("type", "Tensor"): repr_of(self.ad.Tensor),
            ("type", "@meta"): repr_of(type(self.ad.TorchFunctionMode)),
            ("type", "@object"): repr_of(object),
        }
        for name, cls in self.classes.items():
            names[("type", name)] = repr_of(cls)
            names[("mode", name)] = repr_of(cls)
        for name in self.mode_classes:
            objs = [o for o in [self.instances.get(name), *self.pushed.get(name, [])] if o is not None]
            if len(objs) == 1:
                names[("mode", name)] = repr_of(objs[0])
        for name, info in FUNCS.items():
            if info.path != "probe":
                names[("func", name)] = self.ad.error_name(name)
        for name in self.defined:
            names[("func", name)] = f"scenario.{name}"
        return names


def _returns_none(*, inner: Any = None) -> None:
    """A ``push_torch_function_mode`` constructor that returns no mode."""
    return None


@contextlib.contextmanager
def _constructing(cls: type) -> Iterator[Any]:
    yield cls()


def execute(scenario: Scenario, adapter: Adapter) -> tuple[Trace, dict[tuple[str, str], str]]:
    """Run ``scenario`` on ``adapter``; the observed trace and how its objects print."""
    run = Run(scenario, adapter)
    trace = run.execute()
    return trace, run.naming()
