"""The Python a reproduction script declares for a scenario: its classes, modes, functions, the
expressions of its set-up steps and calls, and the helpers they need."""

from __future__ import annotations

from collections.abc import Iterator

from spec.model.functions import FORMS, FUNCS, tensor_data, written
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
    ForwardAdd,
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

from .prelude import ADD_UP, SET_RAW_NS, THREAD


class Declarations:
    """Writes the Python of one scenario's objects, for a namespace (``MODULE``) or an adapter
    spec (``pkg.mod:ATTR``): expressions, handlers, the class, mode and function declarations,
    the set-up steps and the helpers they need."""

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
        if func in FORMS:
            form = FORMS[func]
            if form.kind == "inplace":  # a statement: plus_equals(x, y) does x += y, gives x
                return f"plus_equals({args[0]}, {args[1]})"
            if form.kind == "assign":  # a statement: set_item(x, k, c) does x[k] = c, gives None
                return f"set_item({args[0]}, {args[1]}, {args[2]})"
            return f"({written(form, args)})"
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
            yield f"raise {act.error}({act.message!r})"
        elif isinstance(act, Forward):
            if act.disable:
                yield "with DisableTorchFunction():"
                yield "    return func(*args, **(kwargs or {}))"
            else:
                yield "return func(*args, **(kwargs or {}))"
        elif isinstance(act, ForwardAdd):
            yield "result = func(*args, **(kwargs or {}))"
            yield f"return torch.add(result, {act.amount}) if isinstance(result, Tensor) else result"
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
            yield f"    def __torch_function__({me}, func, types, args=(), kwargs=NOT_PASSED):"
            bound = ', IDENTS.get(id(self), "?")' if plain else ""
            yield "        passed, kwargs = kwargs, (None if kwargs is NOT_PASSED else kwargs)"
            yield "        if name_of(func).startswith('?'):  # not the scenario's: let through"
            yield f'            handed({owner}.__name__, "subclass", func)'
            yield "            with inner_call_guard():"
            yield "                return func(*args, **(kwargs or {}))"
            yield f'        seen({owner}.__name__, "subclass", func, types, passed{bound})'
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
            yield f"    def __torch_function__({me}, func, types, args=(), kwargs=NOT_PASSED):"
            yield "        passed, kwargs = kwargs, (None if kwargs is NOT_PASSED else kwargs)"
            yield "        if name_of(func).startswith('?'):  # not the scenario's: let through"
            yield f'            handed({m.name!r}, "mode", func)'
            yield "            return func(*args, **(kwargs or {}))"
            yield f'        seen({m.name!r}, "mode", func, types, passed)'
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
            out += ['MAKING.append("building")', f"x{k} = {expr}", "MAKING.pop()",
                    f'IDENTS[id(x{k})] = "x{k}"']
            return f"x{k}"
        if isinstance(arg, ListArg):
            items = [self.materialize(a, counter, out) for a in arg.items]
            return "[" + ", ".join(items) + "]"
        assert isinstance(arg, Const)
        return repr(arg.value)

    def extras(self) -> Iterator[str]:
        steps = self.sc.setup
        if self.sc.call is not None and self.sc.call.thread:
            yield from THREAD.splitlines()
        if any(isinstance(s, SetRaw) for s in steps) and not self.adapter_style:
            yield from SET_RAW_NS.splitlines()
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
            yield from ADD_UP.splitlines()
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
