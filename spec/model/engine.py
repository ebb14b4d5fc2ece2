"""The model: predicts the trace of a scenario under the 2022 design (PR #75154).

Each step names the rule that decides it. State is explicit: the current
mode, the ``inner`` link of every mode object, and whether subclass handling
is disabled. The stack generation is a second profile that overrides the
few steps where the designs differ (:mod:`spec.model.stack`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager

from . import messages as msg
from .functions import FUNCS, kernel, tensor_data
from .scenario import (
    Action,
    Const,
    Default,
    Disable,
    Enable,
    EnableInside,
    Forward,
    ListArg,
    NotImpl,
    Push,
    PushInside,
    Raise,
    Redispatch,
    Return,
    Scenario,
    Step,
    TensorArg,
)
from .trace import (
    ANY_DICT,
    Event,
    HandlerRun,
    Installed,
    KwargsSeen,
    Message,
    Note,
    Outcome,
    Raised,
    Returned,
    Role,
    Trace,
    WarningEmitted,
)
from .values import NOTIMPL, ClassWorld, ModeRef, SymTensor, SymValue, to_value


class Unbounded(Exception):
    """The scenario recurses past the model's depth bound (a generator rejects it)."""


class Unspecified(Exception):
    """The scenario reaches behaviour that no rule specifies (a generator rejects it)."""


class ModelRaise(Exception):
    """An exception the model predicts the implementation raises."""

    def __init__(self, exc_type: str, message: Message, rules: tuple[str, ...]) -> None:
        super().__init__(exc_type, message.render())
        self.exc_type, self.message, self.rules = exc_type, message, rules


class _Handler:
    """What a running handler knows: its role, owner, and the call it handles."""

    def __init__(self, role: Role, owner: str, mode: ModeRef | None, func: str,
                 types: tuple[str, ...], args: list[SymValue], kwargs: dict[str, SymValue]) -> None:
        self.role, self.owner, self.mode, self.func = role, owner, mode, func
        self.types, self.args, self.kwargs = types, args, kwargs


class Engine:
    """The 2022 profile."""

    generation = "2022"
    max_depth = 40

    def __init__(self, scenario: Scenario) -> None:
        self.sc = scenario
        self.world = ClassWorld(scenario)
        self.current: ModeRef | None = None
        self.disabled = False
        self.inner: dict[ModeRef, ModeRef | None] = {}
        self.events: list[Event] = []
        self.notes: list[tuple[int, Note]] = []
        self.depth = 0
        self._serial = itertools.count(1)

    # -- driving a scenario ------------------------------------------------

    def run(self) -> Trace:
        outcome: Outcome
        try:
            value = self._enter(0)
            outcome = Returned(to_value(value), ("TFM_ORDER_007",))
        except ModelRaise as exc:
            outcome = Raised(exc.exc_type, exc.message, exc.rules)
        return Trace(tuple(self.events), outcome, self._label(self.current), tuple(self.notes))

    def _enter(self, index: int) -> SymValue:
        if index == len(self.sc.setup):
            return self._do_call()
        step = self.sc.setup[index]
        with self.install(step):
            self.events.append(Installed(index, self._label(self.current), self.step_rules(step)))
            return self._enter(index + 1)

    def _do_call(self) -> SymValue:
        call = self.sc.call
        if call is None:
            return None
        counter = itertools.count()

        def materialize(arg: object) -> SymValue:
            if isinstance(arg, TensorArg):
                k = next(counter)
                return SymTensor(arg.cls or "Tensor", tensor_data(k), f"x{k}")
            if isinstance(arg, ListArg):
                return [materialize(item) for item in arg.items]
            assert isinstance(arg, Const)
            return arg.value

        args = [materialize(a) for a in call.args]
        kwargs = {key: materialize(a) for key, a in call.kwargs}
        return self.call(call.func, args, kwargs)

    # -- set-up steps (profile-specific) ------------------------------------

    def step_rules(self, step: Step) -> tuple[str, ...]:
        if isinstance(step, Push):
            return ("TFM_PUSH_001", "TFM_PUSH_002")
        if isinstance(step, Enable):
            return ("TFM_ENABLE_001",)
        return ("TFM_DISABLE_001",)

    @contextmanager
    def install(self, step: Step) -> Iterator[None]:
        if isinstance(step, Push):
            with self.push(step.mode):
                yield
        elif isinstance(step, Enable):
            with self.enable(self.resolve(step.target), self.resolve(step.replace),
                             step.ignore_preexisting):
                yield
        elif isinstance(step, Disable):
            with self.disable():
                yield
        else:
            raise Unspecified(f"{type(step).__name__} is not a step of the {self.generation} design")

    def resolve(self, name: str | None) -> ModeRef | None:
        """A name in a set-up step: a mode declaration's up-front instance, or a class."""
        if name is None:
            return None
        if self.sc.mode_named(name) is not None:
            return ModeRef("inst", name, 0)
        return ModeRef("cls", name)

    @contextmanager
    def push(self, mode_name: str) -> Iterator[ModeRef]:
        old = self.current
        # TFM_PUSH_001/002: ctor(inner=<current>), or a fresh BaseTorchFunctionMode(inner=None).
        inner = old if old is not None else ModeRef("base", "<base>", next(self._serial))
        mode = ModeRef("inst", mode_name, next(self._serial))
        self.inner[mode] = inner
        self.current = mode
        try:
            yield mode
        finally:
            self.current = old  # TFM_PUSH_003

    @contextmanager
    def enable(self, target: ModeRef | None, replace: ModeRef | None,
               ignore_preexisting: bool) -> Iterator[None]:
        old = self.current
        if old == target:  # TFM_ENABLE_002: the identical object is a no-op
            yield
            return
        if old is not None and not ignore_preexisting and old != replace:
            is_mode = target is not None and target.kind != "cls"
            rule = "TFM_ENABLE_003" if is_mode else "TFM_ENABLE_004"
            raise ModelRaise("ValueError", msg.already_active(old.label, target_is_mode=is_mode),
                             (rule, "TFM_ENABLE_006", "TFM_ENABLE_012"))
        if target is None:  # TFM_ENABLE_009/010: None has no __torch_function__
            raise ModelRaise("ValueError", msg.plain(msg.ENABLE_NEEDS_HANDLER),
                             ("TFM_ENABLE_009", "TFM_ENABLE_010"))
        self.current = target
        try:
            yield
        finally:
            self.current = old  # TFM_ENABLE_001

    @contextmanager
    def disable(self) -> Iterator[None]:
        saved = self.disabled
        self.disabled = True
        try:
            yield
        finally:
            self.disabled = saved  # TFM_DISABLE_006

    # -- dispatch -----------------------------------------------------------

    def call(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise Unbounded(func)
            info = FUNCS[func]
            if info.path == "probe":
                return self._probe(func, args)
            python = info.path == "python"
            relevant = args[:1] if python else [*args, *kwargs.values()]
            return self._dispatch(func, args, kwargs, relevant, python)
        finally:
            self.depth -= 1

    def _dispatch(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
                  relevant: list[SymValue], python: bool) -> SymValue:
        overloaded = self.collect(relevant, python)
        mode = self.current
        if python and not any(self._has_tf(x) for x in relevant):
            self._note("no argument has a handler and no mode is current: the function runs",
                       "TFM_REACH_003")
            return self._kernel(func, args, kwargs)
        if not python and mode is None and not overloaded:
            self._note("no overloaded argument and no mode: the kernel runs", "TFM_TYPES_003")
            return self._kernel(func, args, kwargs)
        types = tuple(a.cls for a in overloaded)
        seen: KwargsSeen = ANY_DICT if python else (tuple(sorted(kwargs)) if kwargs else None)
        if mode is not None:  # TFM_ORDER_001: the mode first
            result = self.call_mode(mode, func, types, args, kwargs, seen)
            if result is not NOTIMPL:  # TFM_ORDER_002
                return result
            self._note("the mode returned NotImplemented: overloaded arguments are tried",
                       "TFM_NOTIMPL_001", "TFM_NOTIMPL_004")
        for arg in overloaded:  # TFM_ORDER_003..005, TFM_NOTIMPL_001
            result = self._call_overloaded(arg, func, types, args, kwargs, seen, python)
            if result is not NOTIMPL:
                return result
        rules = ("TFM_NOTIMPL_002", "TFM_NOTIMPL_003",
                 "TFM_ERROR_003" if python else "TFM_ERROR_001", "TFM_ERROR_002", "TFM_ERROR_004")
        raise ModelRaise("TypeError", msg.no_implementation(
            func, types, self._label(self.current), python=python), rules)

    def collect(self, relevant: list[SymValue], python: bool) -> list[SymTensor]:
        """Overloaded arguments in precedence order (the mode plays no part: TFM_REACH_007)."""
        if self.disabled:
            return []  # TFM_DISABLE_001/003
        flat: list[SymValue] = []
        for value in relevant:  # TFM_ORDER_006: list elements count, in order
            flat.extend(value if isinstance(value, (list, tuple)) else [value])
        found: list[SymTensor] = []
        for value in flat:
            if not isinstance(value, SymTensor):
                continue
            if value.cls == "Tensor" and not python:
                continue  # TFM_TYPES_003
            if self.world.effective(value.cls).kind in ("disabled", "none"):
                continue  # TFM_TYPES_005
            if any(f.cls == value.cls for f in found):
                continue  # TFM_ORDER_005
            at = next((i for i, f in enumerate(found)
                       if self.world.is_subclass(value.cls, f.cls)), len(found))
            found.insert(at, value)  # TFM_ORDER_003/004
        return found

    def call_mode(self, mode: ModeRef, func: str, types: tuple[str, ...], args: list[SymValue],
                  kwargs: dict[str, SymValue], seen: KwargsSeen) -> SymValue:
        saved = self.current
        self.current = None  # TFM_REENTRY_001: cleared while the mode's handler runs
        try:
            if mode.kind == "cls":
                return self._class_as_mode(mode.name, func, types, args, kwargs, seen)
            # TFM_REENTRY_004/005: the metaclass wrapper makes self.inner current.
            self.current = self.inner.get(mode)
            try:
                if mode.kind == "base":
                    self._note("BaseTorchFunctionMode passes the call through", "TFM_PUSH_009")
                    return self.call(func, args, dict(kwargs))
                decl = self.sc.mode_named(mode.name)
                assert decl is not None
                self._run("mode", mode.label, func, types, seen, None,
                          ("TFM_ORDER_001", "TFM_TYPES_002", "TFM_REENTRY_004", "TFM_SELF_005"))
                handler = _Handler("mode", mode.name, mode, func, types, args, kwargs)
                return self.perform(decl.behaviour.action_for(func), handler)
            finally:
                self.current = None
        finally:
            self.current = saved  # TFM_REENTRY_002/003

    def _class_as_mode(self, cls: str, func: str, types: tuple[str, ...], args: list[SymValue],
                       kwargs: dict[str, SymValue], seen: KwargsSeen) -> SymValue:
        eff = self.world.effective(cls)
        if eff.kind == "default":
            self._note(f"{cls} uses the default handler as the mode", "TFM_SUBMODE_003")
            return self.default_handler(cls, func, types, args, kwargs)
        if eff.kind != "classmethod" or eff.behaviour is None:
            raise Unspecified(f"{cls} used as a mode needs a classmethod handler")
        self._run("submode", cls, func, types, seen, None,
                  ("TFM_SUBMODE_001", "TFM_SUBMODE_002", "TFM_SUBMODE_004"))
        handler = _Handler("submode", cls, None, func, types, args, kwargs)
        return self.perform(eff.behaviour.action_for(func), handler)

    def _call_overloaded(self, arg: SymTensor, func: str, types: tuple[str, ...],
                         args: list[SymValue], kwargs: dict[str, SymValue], seen: KwargsSeen,
                         python: bool) -> SymValue:
        eff = self.world.effective(arg.cls)
        if eff.kind == "default":
            self._note(f"{arg.cls} has the default Tensor.__torch_function__", "TFM_DISABLE_004")
            return self.default_handler(arg.cls, func, types, args, kwargs)
        bound = None
        if eff.kind == "plain":  # TFM_SELF_001..003: warn, then call it all the same
            bound = arg.ident
            self.warn_plain_method(python)
        self._run("subclass", arg.cls, func, types, seen, bound,
                  ("TFM_ORDER_003", "TFM_TYPES_001", "TFM_REENTRY_007"))
        assert eff.behaviour is not None
        handler = _Handler("subclass", arg.cls, None, func, types, args, kwargs)
        return self.perform(eff.behaviour.action_for(func), handler)

    def warn_plain_method(self, python: bool) -> None:
        if python:
            self.events.append(WarningEmitted("DeprecationWarning", msg.plain(msg.PLAIN_METHOD_PYTHON),
                                              ("TFM_SELF_003",)))
        else:
            self.events.append(WarningEmitted("UserWarning", msg.plain(msg.PLAIN_METHOD_NATIVE),
                                              ("TFM_SELF_002",)))

    def default_handler(self, cls: str, func: str, types: tuple[str, ...], args: list[SymValue],
                        kwargs: dict[str, SymValue]) -> SymValue:
        """``Tensor.__torch_function__`` bound to ``cls``."""
        if not all(self.world.is_subclass(cls, t) for t in types):
            return NOTIMPL
        with self.disable():  # TFM_DISABLE_004: the mode still sees this call
            result = self.call(func, args, dict(kwargs))
        return self._convert(result, cls)

    def _convert(self, value: SymValue, cls: str) -> SymValue:
        if isinstance(value, SymTensor) and not self.world.is_subclass(value.cls, cls):
            return SymTensor(cls, value.data)
        if isinstance(value, (tuple, list)):
            return type(value)(self._convert(v, cls) for v in value)
        return value

    # -- what a handler does --------------------------------------------------

    def perform(self, action: Action, h: _Handler) -> SymValue:
        if isinstance(action, Return):
            return action.value
        if isinstance(action, NotImpl):
            return NOTIMPL
        if isinstance(action, Raise):
            raise ModelRaise("HandlerError", msg.plain(action.message), ("TFM_ERROR_005",))
        if isinstance(action, Forward):
            if action.disable:
                with self.disable():
                    return self.call(h.func, h.args, h.kwargs)
            return self.call(h.func, h.args, h.kwargs)
        if isinstance(action, Default):
            if h.role == "mode":
                raise Unspecified("a mode has no super().__torch_function__ to call")
            return self.default_handler(h.owner, h.func, h.types, h.args, h.kwargs)
        if isinstance(action, Redispatch):
            if FUNCS[action.target].family != FUNCS[h.func].family:
                raise Unspecified(f"{action.target} does not take the arguments of {h.func}")
            if FUNCS[action.target].method and not h.args:
                raise Unspecified(f"{action.target} needs its tensor positionally")
            if not action.reenter:
                return self.call(action.target, h.args, h.kwargs)
            with self.reenter(h):
                return self.call(action.target, h.args, h.kwargs)
        if isinstance(action, PushInside):
            with self.push(action.mode):
                return self.perform(action.then, h)
        assert isinstance(action, EnableInside)
        target = self.resolve(action.mode)
        if action.replace == "inner":
            if h.mode is None:
                raise Unspecified("replace='inner' outside a mode handler")
            replace = self.inner.get(h.mode)
        else:
            replace = self.resolve(action.replace)
        with self.enable(target, replace, action.ignore_preexisting):
            return self.perform(action.then, h)

    @contextmanager
    def reenter(self, h: _Handler) -> Iterator[None]:
        """TFM_REENTRY_006: ``enable_torch_function_mode(self, replace=self.inner)``."""
        if h.mode is None:
            raise Unspecified("only a mode handler can re-enter itself")
        with self.enable(h.mode, self.inner.get(h.mode), False):
            yield

    # -- helpers --------------------------------------------------------------

    def _has_tf(self, value: SymValue) -> bool:
        if self.current is not None:
            return True  # TFM_REACH_001, TFM_DISABLE_005
        if not isinstance(value, SymTensor) or self.disabled or value.cls == "Tensor":
            return False
        return self.world.effective(value.cls).kind not in ("disabled", "none")  # TFM_REACH_003

    def _probe(self, func: str, args: list[SymValue]) -> bool:
        items = args[0] if func == "has_torch_function" else args
        assert isinstance(items, (list, tuple))
        return any(self._has_tf(x) for x in items)  # TFM_REACH_002: empty is False

    def _kernel(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        def data(value: SymValue) -> object:
            if isinstance(value, SymTensor):
                if not self.world.is_tensor_class(value.cls):
                    raise Unspecified("the kernel was reached with a non-tensor argument")
                return value.data
            if isinstance(value, (list, tuple)):
                return [data(v) for v in value]
            return value

        out = kernel(func, [data(a) for a in args], {k: data(v) for k, v in kwargs.items()})
        assert isinstance(out, tuple)
        if func == "split":
            return tuple(SymTensor("Tensor", part) for part in out)
        return SymTensor("Tensor", out)

    def _run(self, role: Role, who: str, func: str, types: tuple[str, ...], seen: KwargsSeen,
             bound: str | None, rules: tuple[str, ...]) -> None:
        self.events.append(HandlerRun(who, role, func, types, seen, self._label(self.current),
                                      bound, rules))

    def _note(self, text: str, *rules: str) -> None:
        self.notes.append((len(self.events), Note(text, rules)))

    @staticmethod
    def _label(mode: ModeRef | None) -> str | None:
        return None if mode is None else mode.label


def predict(scenario: Scenario) -> Trace:
    """The trace the rules predict for ``scenario``."""
    if scenario.generation != "2022":
        raise Unspecified(f"generation {scenario.generation!r} has no profile yet")
    return Engine(scenario).run()
