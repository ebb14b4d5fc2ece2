"""Writes a self-contained Python script that reproduces a scenario on one implementation."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from spec.model.codec import scenario_to_dict
from spec.model.functions import FUNCS, tensor_data
from spec.model.scenario import (
    Action,
    Arg,
    Behaviour,
    ClassDecl,
    Const,
    Construct,
    Default,
    DeferToTypes,
    Disable,
    Enable,
    EnableInside,
    Enter,
    Forward,
    ListArg,
    NotImpl,
    Push,
    PushInside,
    Raise,
    Redispatch,
    Return,
    Scenario,
    SetRaw,
    Step,
    TensorArg,
)
from spec.model.trace import (
    Constructed,
    HandlerRun,
    Installed,
    Raised,
    Settled,
    TensorValue,
    Trace,
    Value,
    WarningEmitted,
)

__all__ = ["describe", "snippet"]

_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")

_HELPERS = '''
class HandlerError(Exception):
    """What the scenario's "raise" actions raise."""


def name_of(func):
    return NAMES.get(id(func), f"?{getattr(func, '__name__', func)!s}")


def label(obj):
    """How the trace names an object: a scenario mode or class by its name, the base mode as <base>."""
    if obj is None:
        return None
    if type(obj) is BaseTorchFunctionMode:
        return "<base>"
    if isinstance(obj, type):
        return obj.__name__
    if type(obj).__name__ in MODE_NAMES:
        return type(obj).__name__
    return f"?{obj!r}"


def seen(who, role, func, types, kwargs, bound=None):
    """Print what a handler sees."""
    names = tuple(getattr(t, "__name__", repr(t)) for t in types)
    keys = None if kwargs is None else tuple(sorted(kwargs))
    line = (f"handler {who} ({role}) for {name_of(func)}: types={names!r}, kwargs={keys!r}, "
            f"current={label(current_mode())!r}")
    print(line if bound is None else f"{line}, bound to {bound}")


def constructed(self, name, args, kwargs):
    inner = getattr(self, "inner", ABSENT)
    shown = "-" if inner is ABSENT else label(inner)
    print(f"constructed {name}: inner={shown!r}, {len(args) + len(kwargs)} argument(s)")


def observe(value):
    if isinstance(value, Tensor):
        with DisableTorchFunction():
            data = [float(x) for x in value.tolist()]
        return f"{type(value).__name__ if type(value) is not Tensor else 'Tensor'}({data})"
    if isinstance(value, (tuple, list)):
        return "(" + ", ".join(observe(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if value is None or isinstance(value, (bool, int)):
        return repr(value)
    return f"?{type(value).__name__}"


def warned(message, category, *rest, **kwargs):
    print(f"warning {category.__name__}: {message}")


ABSENT = object()
IDENTS = {}
'''

_THREAD = '''

def in_new_thread(call):
    """Make the call in a new thread; its exception, if any, is raised here."""
    box = {}

    def target():
        try:
            box["result"] = call()
        except Exception as exc:
            box["error"] = exc

    worker = threading.Thread(target=target, name="tfmode-scenario")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")
'''

_SET_RAW_NS = '''

@contextlib.contextmanager
def set_raw_mode(obj):
    """_set_torch_function_mode(obj), setting the previous object back on exit."""
    old = torch._C._get_torch_function_mode()
    torch._C._set_torch_function_mode(obj)
    try:
        yield
    finally:
        torch._C._set_torch_function_mode(old)
'''

_ADD_UP = '''

def add_up(*values):
    """What the scenario's functions compute: their tensors added up (None: they have none)."""
    items = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
    rows = []
    for x in items:
        if isinstance(x, Tensor):
            with DisableTorchFunction():
                rows.append([float(y) for y in x.tolist()])
    return torch.tensor([sum(col) for col in zip(*rows)]) if rows else None
'''

_FOOTER = '''

warnings.simplefilter("always")
warnings.showwarning = warned
try:
    print(f"returned {observe(run())}")
except Exception as exc:
    print(f"raised {type(exc).__name__}: {exc}")
    raise
finally:
    print(f"current mode afterwards: {label(current_mode())!r}")
'''


class _Writer:
    """Emits the script for one scenario, for a namespace (``MODULE``) or an adapter spec."""

    def __init__(self, sc: Scenario, impl: str, generation: str) -> None:
        self.sc, self.impl, self.gen = sc, impl, generation
        self.adapter_style = ":" in impl
        self.modes = {m.name for m in sc.modes}
        self.classes = {c.name: c for c in sc.classes}
        self.instances = sc.instance_modes()

    # -- expressions -------------------------------------------------------------------

    def obj(self, name: str) -> str:
        """The object a step or action names (Run._instance)."""
        if name == "@object":
            return "SOME_OBJECT"
        if name == "@nohandler":
            return "NoHandler"
        if name.startswith("@class:"):
            return name.removeprefix("@class:")
        return f"mode_{name}" if name in self.modes else name

    def make_mode(self, cls: str) -> str:
        if self.adapter_style:
            return f"ad.make_mode({cls})"
        return f"{cls}(inner=None)" if self.gen == "2022" else f"{cls}()"

    def push(self, ctor: str) -> str:
        if self.gen == "2022" or self.adapter_style:
            return f"push_torch_function_mode({ctor})"
        return f"{ctor}()"  # stack generation: enter a new instance

    def enable(self, target: str, replace: str, ignore: bool) -> str:
        return (f"enable_torch_function_mode({target}, replace={replace}, "
                f"ignore_preexisting={ignore})")

    def reenter(self, me: str) -> str:
        if self.adapter_style:
            return f"ad.reenter({me})"
        return f"enable_torch_function_mode({me}, replace={me}.inner)" if self.gen == "2022" else me

    def call(self, func: str, args: list[str], kwargs: list[tuple[str, str]]) -> str:
        """Run.call: a probe returns a bool, a method is called on its first argument."""
        if self.sc.function_named(func) is not None:
            return f"{func}({', '.join(args)})"
        info = FUNCS[func]
        positional = args[1:] if info.method else args
        rest = ", ".join([*positional, *(f"{k}={v}" for k, v in kwargs)])
        if info.path == "probe":
            return f"bool(torch.overrides.{func}({rest}))"
        if info.method:
            return f"{args[0]}.{func.removeprefix('Tensor.')}({rest})"
        return f"torch.{func}({rest})"

    def redispatch(self, func: str) -> str:
        """Run.call with the handler's own args and kwargs."""
        info = FUNCS[func]
        if info.path == "probe":
            return f"bool(torch.overrides.{func}(*args))"
        if info.method:
            return f"args[0].{func.removeprefix('Tensor.')}(*args[1:], **(kwargs or {{}}))"
        return f"torch.{func}(*args, **(kwargs or {{}}))"

    # -- handlers ------------------------------------------------------------------------

    def action(self, act: Action, me: str, cls: str, mode: bool) -> Iterator[str]:
        """Run._perform; every branch returns or raises. ``me`` is the mode (or None)."""
        if isinstance(act, Return):
            yield f"return {act.value!r}"
        elif isinstance(act, NotImpl):
            yield "return NotImplemented"
        elif isinstance(act, Raise):
            yield f"raise HandlerError({act.message!r})"
        elif isinstance(act, Forward):
            if act.disable:
                yield "with DisableTorchFunction():"
                yield "    return func(*args, **(kwargs or {}))"
            else:
                yield "return func(*args, **(kwargs or {}))"
        elif isinstance(act, DeferToTypes):
            yield "if types:"
            yield "    return NotImplemented"
            yield "return func(*args, **(kwargs or {}))"
        elif isinstance(act, Default) and mode:
            yield f"return TorchFunctionMode.__torch_function__({me}, func, types, args, kwargs)"
        elif isinstance(act, Default):
            yield f"return Tensor.__torch_function__.__func__({cls}, func, types, args, kwargs)"
        elif isinstance(act, Redispatch):
            target = self.redispatch(act.target)
            if act.reenter:
                yield f"with {self.reenter(me)}:"
                yield f"    return {target}"
            else:
                yield f"return {target}"
        elif isinstance(act, PushInside):
            yield f"with {self.push(act.mode)}:"
            yield from ("    " + line for line in self.action(act.then, me, cls, mode))
        elif isinstance(act, EnableInside):
            if act.replace == "inner":
                replace = f"{me}.inner" if self.gen == "2022" else "None"
            else:
                replace = "None" if act.replace is None else self.obj(act.replace)
            yield f"with {self.enable(self.obj(act.mode), replace, act.ignore_preexisting)}:"
            yield from ("    " + line for line in self.action(act.then, me, cls, mode))
        else:
            raise ValueError(f"snippet: no Python for the action {act!r}")

    def behaviour(self, beh: Behaviour, me: str, cls: str, mode: bool) -> Iterator[str]:
        for func, act in beh.on:
            yield f"if name_of(func) == {func!r}:"
            yield from ("    " + line for line in self.action(act, me, cls, mode))
        yield from self.action(beh.default, me, cls, mode)

    def class_decl(self, decl: ClassDecl) -> Iterator[str]:
        base = {"Tensor": "(Tensor)", "object": ""}.get(decl.parent, f"({decl.parent})")
        yield f"class {decl.name}{base}:"
        if decl.handler == "disabled":
            yield "    __torch_function__ = disabled_torch_function_impl"
        elif decl.handler == "inherit":
            yield "    pass"
        else:
            assert decl.behaviour is not None
            plain = decl.handler == "plain"
            if not plain:
                yield "    @classmethod"
            me = "self" if plain else "cls"
            owner = "type(self)" if plain else "cls"
            yield f"    def __torch_function__({me}, func, types, args=(), kwargs=None):"
            bound = ', IDENTS.get(id(self), "?")' if plain else ""
            yield "        if id(func) not in NAMES:  # the implementation's own inner calls"
            yield "            with inner_call_guard():"
            yield "                return func(*args, **(kwargs or {}))"
            yield f'        seen({owner}.__name__, "subclass", func, types, kwargs{bound})'
            yield from ("        " + x for x in self.behaviour(decl.behaviour, "None", owner, False))

    def mode_decls(self) -> Iterator[str]:
        for m in self.sc.modes:
            yield ""
            yield ""
            yield f"class {m.name}(TorchFunctionMode):"
            yield "    def __init__(self, *args, **kwargs):"
            yield f"        constructed(self, {m.name!r}, args, kwargs)"
            yield ""
            me = "cls" if m.classmethod_handler else "self"
            if m.classmethod_handler:
                yield "    @classmethod"
            yield f"    def __torch_function__({me}, func, types, args=(), kwargs=None):"
            yield "        if id(func) not in NAMES:  # the implementation's own inner calls"
            yield "            return func(*args, **(kwargs or {}))"
            yield f'        seen({m.name!r}, "mode", func, types, kwargs)'
            yield from ("        " + x for x in self.behaviour(m.behaviour, me, "None", True))

    def function_decls(self) -> Iterator[str]:
        """Run._pyfunc: each function the scenario defines, as a library author writes it."""
        probes = {"sequence": "has_torch_function", "unary": "has_torch_function_unary",
                  "variadic": "has_torch_function_variadic"}
        for f in self.sc.functions:
            params = ", ".join([f.names[0], *(f"{n}=None" for n in f.names[1:])])
            items = ", ".join(f.relevant) + ("," if len(f.relevant) == 1 else "")
            relevant = f"({items})"
            split = f.params - f.keywords
            passed = ", ".join([*f.names[:split], *(f"{n}={n}" for n in f.names[split:])])
            probe = f"({relevant})" if f.probe == "sequence" else f"({', '.join(f.relevant)})"
            yield ""
            yield ""
            yield f"def {f.name}({params}):"
            yield f"    if torch.overrides.{probes[f.probe]}{probe}:"
            yield f"        return torch.overrides.handle_torch_function({f.name}, {relevant}, {passed})"
            yield f"    return add_up({', '.join(f.names)})"
            yield ""
            yield ""
            yield f'{f.name}.__module__ = "scenario"'
            yield f"NAMES[id({f.name})] = {f.name!r}"

    def class_decls(self) -> Iterator[str]:
        done: set[str] = set()

        def emit(name: str) -> Iterator[str]:
            decl = self.classes[name]
            if name in done:
                return
            if decl.parent in self.classes:
                yield from emit(decl.parent)
            done.add(name)
            yield ""
            yield ""
            yield from self.class_decl(decl)

        for decl in self.sc.classes:
            yield from emit(decl.name)

    # -- set-up, call -------------------------------------------------------------------

    def step(self, step: Step) -> str:
        if isinstance(step, Push):
            if step.how == "instance":
                return f"push_torch_function_mode({self.obj(step.mode)})"
            if step.how == "bad_ctor":
                return "push_torch_function_mode(returns_none)"
            return self.push(step.mode)
        if isinstance(step, SetRaw):
            return f"set_raw_mode({'None' if step.target is None else self.obj(step.target)})"
        if isinstance(step, Construct):
            return f"constructing({step.mode})"
        if isinstance(step, Enable):
            target = "None" if step.target is None else self.obj(step.target)
            replace = "None" if step.replace is None else self.obj(step.replace)
            return self.enable(target, replace, step.ignore_preexisting)
        if isinstance(step, Enter):
            return f"ad.enter({self.obj(step.mode)})" if self.adapter_style else self.obj(step.mode)
        if isinstance(step, Disable):
            return "DisableTorchFunctionSubclass()" if step.subclass_only else "DisableTorchFunction()"
        raise ValueError(f"snippet: no Python for the set-up step {step!r}")

    def materialize(self, arg: Arg, counter: Iterator[int], out: list[str]) -> str:
        """Run._materialize: appends the lines that build tensors; returns the argument's text."""
        if isinstance(arg, TensorArg):
            k = next(counter)
            expr = f"torch.tensor({list(tensor_data(k))!r})"
            if arg.cls is not None:
                decl = self.classes[arg.cls]
                expr = f"{expr}.as_subclass({arg.cls})" if decl.kind == "tensor" else f"{arg.cls}()"
            out += [f"x{k} = {expr}", f'IDENTS[id(x{k})] = "x{k}"']
            return f"x{k}"
        if isinstance(arg, ListArg):
            items = [self.materialize(a, counter, out) for a in arg.items]
            return "[" + ", ".join(items) + "]"
        assert isinstance(arg, Const)
        return repr(arg.value)

    def body(self) -> Iterator[str]:
        yield "def run():"
        if self.instances:
            yield f"    global {', '.join(self.obj(n) for n in self.instances)}"
        for name in self.instances:
            yield f"    {self.obj(name)} = {self.make_mode(name)}"
        indent = "    "
        for index, step in enumerate(self.sc.setup):
            yield f"{indent}with {self.step(step)}:"
            indent += "    "
            yield f'{indent}print(f"set-up step {index} entered: current={{label(current_mode())!r}}")'
        call = self.sc.call
        if call is None:
            yield f"{indent}return None"
            return
        counter = iter(range(1000))
        lines: list[str] = []
        args = [self.materialize(a, counter, lines) for a in call.args]
        kwargs = [(k, self.materialize(a, counter, lines)) for k, a in call.kwargs]
        expr = self.call(call.func, args, kwargs)
        lines.append(f"return in_new_thread(lambda: {expr})" if call.thread else f"return {expr}")
        yield f"{indent}try:"
        yield from (f"{indent}    {line}" for line in lines)
        yield f"{indent}finally:"
        yield f'{indent}    print(f"call settled: current={{label(current_mode())!r}}")'

    # -- the whole script ---------------------------------------------------------------

    def header(self) -> Iterator[str]:
        where = f"adapter {self.impl}" if self.adapter_style else self.impl
        yield f'"""Reproduces a tfmode-conformance scenario on {where} (generation {self.gen})."""'
        yield "# The scenario (spec.model.scenario_to_dict):"
        for key, value in scenario_to_dict(self.sc).items():
            yield f"#   {key}: {json.dumps(value)}"
        yield ""
        steps = self.sc.setup
        if any(isinstance(s, (SetRaw, Construct)) for s in steps):
            yield "import contextlib"
        if self.sc.call is not None and self.sc.call.thread:
            yield "import threading"
        if self.adapter_style:
            yield "import types as _types"
        yield "import warnings"
        yield ""
        if self.adapter_style:
            yield from self.adapter_header()
        else:
            yield from self.namespace_header()
        plain = [n for n, f in FUNCS.items() if f.path != "probe" and not f.method]
        methods = [n for n, f in FUNCS.items() if f.method]
        pairs = [f"({n!r}, torch.{n})" for n in plain]
        pairs += [f"({n!r}, Tensor.{n.removeprefix('Tensor.')})" for n in methods]
        yield ""
        yield ""
        yield "NAMES = {id(f): n for n, f in [" + ", ".join(pairs) + "]}"
        yield f"MODE_NAMES = {tuple(m.name for m in self.sc.modes)!r}"

    def namespace_header(self) -> Iterator[str]:
        yield f"import {self.impl} as torch"
        yield ""
        yield "Tensor = torch.Tensor"
        yield "TorchFunctionMode = torch.overrides.TorchFunctionMode"
        yield "BaseTorchFunctionMode = torch.overrides.BaseTorchFunctionMode"
        yield "DisableTorchFunction = torch._C.DisableTorchFunction"
        yield "disabled_torch_function_impl = torch._C._disabled_torch_function_impl"
        if self.sc.classes:
            yield "inner_call_guard = getattr(torch._C, 'DisableTorchFunctionSubclass', DisableTorchFunction)"
        if self.gen == "2022":
            yield "push_torch_function_mode = torch.overrides.push_torch_function_mode"
            yield "enable_torch_function_mode = torch.overrides.enable_torch_function_mode"
            yield ""
            yield ""
            yield "def current_mode():"
            yield "    return torch._C._get_torch_function_mode()"
            return
        if any(isinstance(s, Disable) and s.subclass_only for s in self.sc.setup):
            yield "DisableTorchFunctionSubclass = torch._C.DisableTorchFunctionSubclass"
        yield ""
        yield ""
        yield "def current_mode():"
        yield "    stack = torch.overrides._get_current_function_mode_stack()"
        yield "    return stack[-1] if stack else None"

    def adapter_header(self) -> Iterator[str]:
        yield "from conformance.adapter import load_adapter"
        yield ""
        yield f"ad = load_adapter({self.impl!r})"
        yield "Tensor = ad.Tensor"
        yield "TorchFunctionMode = ad.TorchFunctionMode"
        yield "BaseTorchFunctionMode = ad.BaseTorchFunctionMode"
        yield "disabled_torch_function_impl = ad.disabled_impl"
        yield "push_torch_function_mode = ad.push"
        yield "current_mode = ad.current_mode"
        yield "set_raw_mode = ad.set_raw"
        yield ""
        yield ""
        yield "def enable_torch_function_mode(mode, replace=None, ignore_preexisting=False):"
        yield "    return ad.enable(mode, replace, ignore_preexisting)"
        yield ""
        yield ""
        yield "def DisableTorchFunction():"
        yield "    return ad.disable()"
        yield ""
        yield ""
        yield "def DisableTorchFunctionSubclass():"
        yield "    return ad.disable(subclass_only=True)"
        yield ""
        yield ""
        yield "def inner_call_guard():"
        yield "    return ad.disable(subclass_only='disable-subclass' in ad.features)"
        yield ""
        yield ""
        probes = [n for n, f in FUNCS.items() if f.path == "probe"]
        yield "torch = _types.SimpleNamespace("
        yield "    tensor=ad.tensor,"
        for n, f in FUNCS.items():
            if f.path != "probe" and not f.method:
                yield f"    {n}=ad.func({n!r}),"
        yield "    overrides=_types.SimpleNamespace(" + ", ".join(
            f"{n}=lambda *a, _n={n!r}: ad.has_torch_function(_n, a)" for n in probes) + ","
        yield "        handle_torch_function=ad.func('handle_torch_function')),"
        yield ")"

    def extras(self) -> Iterator[str]:
        steps = self.sc.setup
        if self.sc.call is not None and self.sc.call.thread:
            yield from _THREAD.splitlines()
        if any(isinstance(s, SetRaw) for s in steps) and not self.adapter_style:
            yield from _SET_RAW_NS.splitlines()
        if any(isinstance(s, Construct) for s in steps):
            yield ""
            yield ""
            yield "@contextlib.contextmanager"
            yield "def constructing(cls):"
            yield '    """Construct the mode class with no arguments at all."""'
            yield "    yield cls()"
        if any(isinstance(s, Push) and s.how == "bad_ctor" for s in steps):
            yield ""
            yield ""
            yield "def returns_none(*, inner=None):"
            yield '    """A push_torch_function_mode constructor that returns no mode."""'
            yield "    return None"
        names = {*(getattr(s, "target", None) for s in steps), *self._action_targets()}
        if "@object" in names:
            yield ""
            yield "SOME_OBJECT = object()"
        if self.sc.functions:
            yield from _ADD_UP.splitlines()
        if "@nohandler" in names:
            yield ""
            yield ""
            yield "class NoHandler:"
            yield "    pass"

    def _action_targets(self) -> set[str]:
        found: set[str] = set()
        behaviours = [m.behaviour for m in self.sc.modes]
        behaviours += [c.behaviour for c in self.sc.classes if c.behaviour is not None]
        for beh in behaviours:
            for act in (beh.default, *(a for _, a in beh.on)):
                while isinstance(act, (PushInside, EnableInside)):
                    if isinstance(act, EnableInside):
                        found.update(x for x in (act.mode, act.replace) if x is not None)
                    act = act.then
        return found

    def script(self) -> str:
        lines = [*self.header(), *_HELPERS.splitlines(), *self.extras(), *self.class_decls(),
                 *self.mode_decls(), *self.function_decls(), "", "", *self.body(),
                 *_FOOTER.splitlines()]
        return "\n".join(lines) + "\n"


def snippet(scenario: Scenario, impl_spec: str, generation: str) -> str:
    """A runnable script that reproduces ``scenario`` on ``impl_spec`` and prints what it sees.

    ``impl_spec`` is a module name (the script imports it as ``torch``) or ``pkg.mod:ATTR``
    (the script drives the adapter). Each line printed corresponds to one event of the
    runner's trace (see :func:`describe`); an exception is printed and then re-raised.
    """
    return _Writer(scenario, impl_spec, generation).script()


def _show(value: Value) -> str:
    if isinstance(value, TensorValue):
        return f"{value.cls}({list(value.data)!r})"
    if isinstance(value, tuple):
        return "(" + ", ".join(_show(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    if isinstance(value, str):
        return value
    return repr(value)


def describe(trace: Trace) -> list[str]:
    """The lines a snippet prints for a run that produced ``trace`` (addresses blanked)."""
    lines: list[str] = []
    for event in trace.events:
        if isinstance(event, HandlerRun):
            line = (f"handler {event.who} ({event.role}) for {event.func}: "
                    f"types={event.types!r}, kwargs={event.kwargs!r}, current={event.current!r}")
            lines.append(line if event.bound is None else f"{line}, bound to {event.bound}")
        elif isinstance(event, Installed):
            lines.append(f"set-up step {event.index} entered: current={event.current!r}")
        elif isinstance(event, Constructed):
            lines.append(f"constructed {event.who}: inner={event.inner!r}, "
                         f"{event.nargs} argument(s)")
        elif isinstance(event, Settled):
            lines.append(f"call settled: current={event.current!r}")
        elif isinstance(event, WarningEmitted):
            lines.append(f"warning {event.category}: {event.message.render()}")
        else:
            lines.append(repr(event))
    outcome = trace.outcome
    if isinstance(outcome, Raised):
        lines.append(f"raised {outcome.exc_type}: {outcome.message.render()}")
    else:
        lines.append(f"returned {_show(outcome.value)}")
    lines.append(f"current mode afterwards: {trace.after!r}")
    return [_ADDRESS.sub("0x?", line) for line in lines]
