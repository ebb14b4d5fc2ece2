"""Running a handler: a mode's, a class's as the mode, an overloaded argument's, the default
one, and what each kind of handler action does (TFM_ORDER_*, TFM_REENTRY_*, TFM_SELF_*,
TFM_SUBMODE_*, TFM_ERROR_005/007); each run is written to the trace with the rules that decide
each of its fields.

Imports :mod:`.steps` and :mod:`.state`; the dispatch it starts again (a handler forwarding) is
:meth:`~.state.EngineState.call`, which :mod:`.dispatch` defines above it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from . import messages as msg
from .context import Handler, Origin
from .functions import FORMS, FUNCS, FormInfo, info_of
from .limits import Unspecified
from .raising import ModelRaise
from .scenario import (
    Action,
    Default,
    DeferToTypes,
    EnableInside,
    Forward,
    ForwardAdd,
    NotImpl,
    PushInside,
    Raise,
    Redispatch,
    Return,
)
from .steps import SetupSteps
from .trace import (
    HandlerRun,
    Role,
    WarningEmitted,
)
from .values import NOTIMPL, ModeRef, SymTensor, SymValue


class Handlers(SetupSteps):
    """The handlers of one dispatch, and what they do."""

    def call_mode(self, mode: ModeRef, h: Handler) -> SymValue:
        saved = self.current
        self.current = None  # TFM_REENTRY_001: cleared while the mode's handler runs
        try:
            if mode.kind == "cls":
                return self._class_as_mode(mode, h)
            # TFM_REENTRY_004/005: the metaclass wrapper makes self.inner current.
            self.current = self.inner.get(mode)
            try:
                if mode.kind == "base":
                    self._note("BaseTorchFunctionMode passes the call through", "TFM_PUSH_009")
                    self.value_rules.add("TFM_PUSH_009")
                    with self.origin_as(Origin("mode", mode)):
                        return self.call(h.func, h.args, dict(h.kwargs), spread=True)
                decl = self.sc.mode_named(mode.name)
                assert decl is not None
                if decl.classmethod_handler:  # TFM_PUSH_010: the wrapper calls the classmethod object
                    self._note(f"{mode.label}'s __torch_function__ is a classmethod: the metaclass "
                               "wrapper calls the classmethod object itself", "TFM_PUSH_010")
                    raise ModelRaise("TypeError", msg.classmethod_not_callable(), ("TFM_PUSH_010",))
                inner = self.inner.get(mode)
                current_rules = ["TFM_REENTRY_004" if inner is not None else "TFM_REENTRY_005"]
                if inner is not None and inner.kind == "base":
                    current_rules.append("TFM_PUSH_002")
                if ("TFM_ENABLE_011" in self.installed_by.get(mode, ())):
                    current_rules.append("TFM_ENABLE_011")
                self._run("mode", mode.label, h, None, self._who_rules(mode, h),
                          ("TFM_TYPES_002",), tuple(current_rules))
                return self.perform(decl.behaviour.action_for(h.func), h.bind("mode", mode.name, mode))
            finally:
                self.current = None
        finally:
            self.current = saved  # TFM_REENTRY_002/003

    def passes_through(self, mode: ModeRef, h: Handler) -> bool:
        """Whether ``mode``'s answer for ``h`` is the value of the call it forwards, unchanged
        (a value that only a wrong forwarded call can make wrong)."""
        if mode.kind == "base":
            return True
        if mode.kind == "cls":
            return False
        decl = self.sc.mode_named(mode.name)
        return decl is not None and isinstance(decl.behaviour.action_for(h.func), Forward)

    def _who_rules(self, mode: ModeRef, h: Handler) -> tuple[str, ...]:
        rules = ["TFM_ORDER_001", *self.installed_by.get(mode, ())]
        info = info_of(h.func)
        if self.disabled:
            rules.append("TFM_DISABLE_002")
        if info.shape == "sizes":
            rules.append("TFM_REACH_004")
        if h.python:
            rules.append("TFM_REACH_005")
        if info.method:
            rules.append("TFM_REACH_006")
        rules += self.origin.rules_for(mode, self.inner)
        return tuple(dict.fromkeys(rules))

    def _class_as_mode(self, mode: ModeRef, h: Handler) -> SymValue:
        cls = mode.name
        eff = self.world.effective(cls)
        if eff.kind == "default":
            self._note(f"{cls} uses the default handler as the mode", "TFM_SUBMODE_003")
            self.value_rules.add("TFM_SUBMODE_003")
            return self.default_handler(cls, h)
        if eff.kind != "classmethod" or eff.behaviour is None:
            raise Unspecified(f"{cls} used as a mode needs a classmethod handler")
        self._run("submode", cls, h, None, self._who_rules(mode, h),
                  ("TFM_SUBMODE_004", "TFM_TYPES_002"), ("TFM_SUBMODE_002", "TFM_REENTRY_001"))
        return self.perform(eff.behaviour.action_for(h.func), h.bind("submode", cls, None))

    def _call_overloaded(self, arg: SymTensor, h: Handler, after: tuple[str, ...],
                         deferred: list[str]) -> SymValue:
        eff = self.world.effective(arg.cls)
        if eff.kind == "default":
            self._note(f"{arg.cls} has the default Tensor.__torch_function__", "TFM_DISABLE_004")
            return self.default_handler(arg.cls, h)
        bound = None
        who = [*h.collect_rules, *after, *self.origin.rules_for(None, self.inner)]
        if eff.kind == "plain":  # TFM_SELF_001..003: warn, and call it all the same
            bound = "?" if arg.ident is None else arg.ident  # "?": not one of the call's arguments
            who.append("TFM_SELF_001")
            if h.python:
                self.warn_plain_method(True)  # Python's warnings.warn, before the call
            else:
                deferred.append(arg.cls)  # a C++ warning, surfacing when the native call ends
        else:
            who.append("TFM_SELF_004")
        current = ("TFM_REENTRY_007", "TFM_REENTRY_002")
        self._run("subclass", arg.cls, h, bound, tuple(dict.fromkeys(who)), (), current)
        assert eff.behaviour is not None
        return self.perform(eff.behaviour.action_for(h.func), h.bind("subclass", arg.cls, None))

    def warn_plain_method(self, python: bool) -> None:
        """The plain-method warning; where it comes is TFM_SELF_003's (Python: before the
        handler is called) or TFM_SELF_002's (native: once the call is over)."""
        if python:
            self.events.append(WarningEmitted("DeprecationWarning", self.texts.message("plain-method-python"),
                                              ("TFM_SELF_003", "TFM_SELF_006"), when=("TFM_SELF_003",)))
        else:
            self.events.append(WarningEmitted("UserWarning", self.texts.message("plain-method-native"),
                                              ("TFM_SELF_002", "TFM_SELF_006"), when=("TFM_SELF_002",)))

    def default_handler(self, cls: str, h: Handler) -> SymValue:
        """``Tensor.__torch_function__`` bound to ``cls``."""
        if not all(self.world.is_subclass(cls, t) for t in h.types):
            return NOTIMPL
        self.value_rules.add("TFM_DISABLE_004")
        with self.disable(), self.origin_as(Origin("default")):
            result = self.call(h.func, h.args, dict(h.kwargs), spread=True)
        return self._convert(result, cls)

    def _convert(self, value: SymValue, cls: str) -> SymValue:
        if isinstance(value, SymTensor) and not self.world.is_subclass(value.cls, cls):
            return SymTensor(cls, value.data)
        if isinstance(value, (tuple, list)):
            return type(value)(self._convert(v, cls) for v in value)
        return value

    def perform(self, action: Action, h: Handler) -> SymValue:
        if isinstance(action, Return):
            return action.value
        if isinstance(action, NotImpl):
            return NOTIMPL
        if isinstance(action, Raise):
            raise ModelRaise(action.error, msg.plain(action.message), ("TFM_ERROR_005",))
        if isinstance(action, DeferToTypes):
            if h.types:
                return NOTIMPL
            action = Forward()
        if isinstance(action, Forward):
            with self.origin_as(Origin(h.role, h.mode)):
                if action.disable:
                    self.value_rules.add("TFM_DISABLE_001")
                    with self.disable_torch_function():
                        return self.call(h.func, h.args, h.kwargs)
                return self.call(h.func, h.args, h.kwargs)
        if isinstance(action, Default):
            if h.role == "mode" and h.mode is not None:
                return self.mode_super(h.mode)
            return self.default_handler(h.owner, h)
        if isinstance(action, Redispatch):
            if FUNCS[action.target].family != info_of(h.func).family:
                raise Unspecified(f"{action.target} does not take the arguments of {h.func}")
            if FUNCS[action.target].method and not h.args:
                raise Unspecified(f"{action.target} needs its tensor positionally")
            if FUNCS[action.target].method and not (
                    isinstance(h.args[0], SymTensor) and self.world.is_tensor_class(h.args[0].cls)):
                # a method is called on its first argument: an object that is not a Tensor has
                # no such method, and no rule says what calling it through the class does
                raise Unspecified(f"{action.target} is a Tensor method: its first argument is "
                                  "not a Tensor")
            if "alpha" in (h.kwargs or {}) and not FUNCS[action.target].alpha:
                raise Unspecified(f"{action.target} takes no alpha (the call's {h.func} did)")
            if not action.reenter:
                with self.origin_as(Origin(h.role, h.mode)):
                    return self.call(action.target, h.args, h.kwargs)
            with self.reenter(h), self.origin_as(Origin("reenter", h.mode)):
                return self.call(action.target, h.args, h.kwargs)
        if isinstance(action, PushInside):
            with self.push(action.mode), self.origin_as(Origin("pushed", h.mode)):
                return self.perform(action.then, h)
        if isinstance(action, ForwardAdd):
            result = self.perform(Forward(), h)
            if isinstance(result, SymTensor) and self.world.is_tensor_class(result.cls):
                with self.origin_as(Origin(h.role, h.mode)):
                    return self.call("add", [result, action.amount], {})
            return result
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

    def mode_super(self, mode: ModeRef) -> SymValue:
        """TFM_ERROR_007: ``super().__torch_function__`` in a mode's handler.

        In 2022 the base handler is wrapped by the metaclass too, so it enables
        ``self.inner`` before it raises.
        """
        with self.enable(self.inner.get(mode), None, False):
            raise ModelRaise("NotImplementedError", msg.plain(""), ("TFM_ERROR_007",))

    @contextmanager
    def reenter(self, h: Handler) -> Iterator[None]:
        """TFM_REENTRY_006: ``enable_torch_function_mode(self, replace=self.inner)``."""
        if h.mode is None:
            raise Unspecified("only a mode handler can re-enter itself")
        with self.enable(h.mode, self.inner.get(h.mode), False):
            self.installed_by[h.mode] = ("TFM_REENTRY_006", *self.installed_by.get(h.mode, ()))
            yield

    def _aliases(self, func: str) -> tuple[str, ...]:
        """The callables a handler may be handed in place of ``func`` outside the form's own
        dispatch: a handler forwarding the callable it was handed (``Tensor.eq`` for the
        form's ``Tensor.__eq__``) makes a call of that one."""
        call = self.sc.call
        form = FORMS.get(call.func) if call is not None else None
        return form.alternatives(func) if form is not None else ()

    def _own_form(self) -> FormInfo | None:
        """The syntactic form whose own dispatch is the one at this depth (``None``: a call)."""
        return self.form[1] if self.form is not None and self.form[0] == self.depth else None

    def reach_rules(self, mode: ModeRef, h: Handler) -> tuple[str, ...]:
        """The rules by which this dispatch reaches ``mode``: a form's own rule in its own
        dispatch, otherwise those that say which handler a call reaches."""
        form = self._own_form()
        return (form.rule,) if form is not None else self._who_rules(mode, h)

    def _run(self, role: Role, who: str, h: Handler, bound: str | None, who_rules: tuple[str, ...],
             types_rules: tuple[str, ...], current_rules: tuple[str, ...]) -> None:
        info = info_of(h.func)
        why: tuple[tuple[str, tuple[str, ...]], ...] = (
            ("who", who_rules),
            ("role", who_rules),
            ("types", tuple(dict.fromkeys((*h.collect_rules, *types_rules)))),
            ("func", ("TFM_ARGS_001", "TFM_REACH_006") if info.method else ("TFM_ARGS_001",)),
            ("kwargs", ("TFM_ARGS_004", "TFM_ARGS_002") if h.python else ("TFM_ARGS_003", "TFM_ARGS_002")),
            ("current", current_rules),
            ("bound", ("TFM_SELF_001", "TFM_ARGS_002")),
            ("args", ("TFM_ARGS_002",)),
            ("kwvalues", ("TFM_ARGS_002",)),
        )
        tags = ("TFM_SELF_005",) if role == "mode" else ()
        args, kwvalues = h.described()
        form = self._own_form()
        rules = (*who_rules, *tags)
        if form is not None:  # the form's own dispatch: its rule alone says which handler it
            # reaches, and whether at all (the same dispatch written as a call has the general
            # rules); with the others it says what the handler is handed
            own = (form.rule,)
            why = tuple((key, own) if key in ("who", "role") else
                        (key, (*decide, *own)) if key in ("func", "args") else
                        (key, decide) for key, decide in why)
            rules = own
        self.events.append(HandlerRun(who, role, h.func, h.types, h.seen, self._label(self.current),
                                      bound, rules, why, args, kwvalues,
                                      form.also if form is not None else self._aliases(h.func)))

