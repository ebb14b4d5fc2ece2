"""The model: predicts the trace of a scenario under the 2022 design (PR #75154).

Each step names the rules that decide it. State is explicit: the current
mode, the ``inner`` link of every mode object, and whether subclass handling
is disabled. The stack generation is a second profile that overrides the
few steps where the designs differ (:mod:`spec.model.stack`).
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from contextlib import AbstractContextManager, contextmanager

from spec.texts import default_release

from . import messages as msg
from . import syntax
from .context import Handler, Origin
from .functions import FORMS, FUNCS, FormInfo, info_of, kernel, pyfunc_kernel, tensor_data
from .limits import Unbounded, Unspecified
from .raising import ModelRaise
from .scenario import (
    Action,
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
from .trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    Constructed,
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
    Settled,
    Trace,
    WarningEmitted,
)
from .values import NOTIMPL, ClassWorld, ModeRef, SymTensor, SymValue, to_value


class Engine:
    """The 2022 profile."""

    generation = "2022"
    max_depth = 40

    def __init__(self, scenario: Scenario, release: str | None = None) -> None:
        """``release``: whose texts to predict (a key of :mod:`spec.texts`; default the PR's)."""
        self.texts = msg.Texts(release or default_release(self.generation, getattr(self, "version", None)))
        self.sc = scenario
        self.world = ClassWorld(scenario)
        self.current: ModeRef | None = None
        self.disabled = False
        self.inner: dict[ModeRef, ModeRef | None] = {}
        self.installed_by: dict[ModeRef, tuple[str, ...]] = {}
        self.events: list[Event] = []
        self.notes: list[tuple[int, Note]] = []
        self.value_rules: set[str] = set()
        self.origin: Origin = Origin("top")
        self.depth = 0
        self._serial = itertools.count(1)
        #: Overloaded types to use, by the number of handler runs before the dispatch, in
        #: place of the ones the rules give (see :func:`predict`).
        self.forced: Mapping[int, tuple[str, ...]] = {}
        #: The syntactic form being evaluated and the call depth of its dispatch (see
        #: :mod:`spec.model.syntax`).
        self.form: tuple[int, FormInfo] | None = None

    # -- driving a scenario ------------------------------------------------

    def run(self) -> Trace:
        outcome: Outcome
        for name in self.sc.instance_modes():
            self.construct_upfront(name)
        try:
            value = self._enter(0)
            outcome = Returned(to_value(value), tuple(sorted(self.value_rules)) or ("TFM_ORDER_007",))
        except ModelRaise as exc:
            outcome = Raised(exc.exc_type, exc.message, exc.rules)
        return Trace(tuple(self.events), outcome, self._label(self.current), tuple(self.notes),
                     self.after_rules(isinstance(outcome, Raised)))

    def translate(self, trace: Trace) -> Trace:
        """``trace`` with its rule tags in this generation's rules (2022: as they are)."""
        return trace

    def after_rules(self, raised: bool) -> tuple[str, ...]:
        """What restores the current mode once every set-up step has exited."""
        by_step = {Push: "TFM_PUSH_003", Enable: "TFM_ENABLE_001", SetRaw: "TFM_ERROR_006",
                   Disable: "TFM_DISABLE_006", Enter: "TFM_STACK_002"}
        rules = [by_step[type(s)] for s in self.sc.setup if type(s) in by_step]
        if any(isinstance(e, HandlerRun) and e.role != "subclass" for e in self.events):
            rules.append("TFM_REENTRY_003" if raised else "TFM_REENTRY_002")
        return tuple(dict.fromkeys(rules)) or ("TFM_REENTRY_002",)

    def settled_rules(self, raised: bool) -> tuple[str, ...]:
        """What puts the current mode back once the call is over."""
        if not any(isinstance(e, HandlerRun) and e.role != "subclass" for e in self.events):
            return ("TFM_ENABLE_001", "TFM_PUSH_003") if raised else ("TFM_REENTRY_002",)
        return ("TFM_REENTRY_003", "TFM_ERROR_005") if raised else ("TFM_REENTRY_002",)

    def construct_upfront(self, name: str) -> None:
        """2022: ``Mode(inner=None)`` for each mode used as an object."""
        self.inner[ModeRef("inst", name, 0)] = None
        self.events.append(Constructed(name, None, 0, ("TFM_PUSH_008",)))

    def _enter(self, index: int) -> SymValue:
        if index == len(self.sc.setup):
            if self.sc.call is None:
                return None
            try:
                value = self._do_call()
            except ModelRaise:
                rules = self.settled_rules(True)
                form = FORMS.get(self.sc.call.func)
                if form is not None and form.operator:
                    # The exception ends the expression: an operator that caught it would go on
                    # (to the reflected method) where the call should settle.
                    rules = ("TFM_SYNTAX_002",)
                self.events.append(Settled(self._label(self.current), rules))
                raise
            self.events.append(Settled(self._label(self.current), self.settled_rules(False)))
            return value
        step = self.sc.setup[index]
        with self.install(step) as rules:
            self.events.append(Installed(index, self._label(self.current), rules))
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
        if not call.thread:
            return self.call(call.func, args, kwargs)
        # TFM_THREAD_001..003: a new thread starts with no mode and subclass handling on.
        saved = self.thread_state()
        self.new_thread()
        self.value_rules.update(("TFM_THREAD_001", "TFM_THREAD_002", "TFM_THREAD_003"))
        try:
            return self.call(call.func, args, kwargs)
        finally:
            self.restore_thread(saved)

    def thread_state(self) -> object:
        return (self.current, self.disabled)

    def new_thread(self) -> None:
        self.current, self.disabled = None, False

    def restore_thread(self, state: object) -> None:
        self.current, self.disabled = state  # type: ignore[misc]

    # -- set-up steps (profile-specific) ------------------------------------

    @contextmanager
    def install(self, step: Step) -> Iterator[tuple[str, ...]]:
        if isinstance(step, Push):
            with self.push(step.mode, step.how) as mode:
                yield self.installed_by[mode]
        elif isinstance(step, Enable):
            target = self.resolve(step.target)
            with self.enable(target, self.resolve(step.replace), step.ignore_preexisting) as rules:
                yield rules
        elif isinstance(step, Disable):
            if step.subclass_only:
                raise Unspecified("DisableTorchFunctionSubclass is not in the 2022 design")
            with self.disable():
                yield ("TFM_DISABLE_002",)
        elif isinstance(step, SetRaw):
            old = self.current
            self.current = self.resolve(step.target)
            if self.current is not None:
                self.installed_by[self.current] = ("TFM_ERROR_006",)
            try:
                yield ("TFM_ERROR_006",)
            finally:
                self.current = old
        elif isinstance(step, Construct):
            raise ModelRaise("TypeError", self.texts.message("missing-inner"), ("TFM_PUSH_007",))
        else:
            raise Unspecified(f"{type(step).__name__} is not a step of the 2022 design")

    def resolve(self, name: str | None) -> ModeRef | None:
        """A name in a set-up step: a mode declaration's up-front instance, or a class."""
        if name is None:
            return None
        if self.sc.mode_named(name) is not None:
            return ModeRef("inst", name, 0)
        return ModeRef("cls", name)

    @contextmanager
    def push(self, mode_name: str, how: str = "ctor") -> Iterator[ModeRef]:
        if how == "instance":  # TFM_PUSH_005
            raise ModelRaise("ValueError", msg.push_instance(self.texts, mode_name), ("TFM_PUSH_005",))
        old = self.current
        if how == "bad_ctor":  # TFM_PUSH_006
            raise ModelRaise("ValueError", self.texts.message("push-must-return-mode"), ("TFM_PUSH_006",))
        # TFM_PUSH_001/002: ctor(inner=<current>), or a fresh BaseTorchFunctionMode(inner=None).
        inner = old if old is not None else ModeRef("base", "<base>", next(self._serial))
        mode = ModeRef("inst", mode_name, next(self._serial))
        rules = ("TFM_PUSH_001", "TFM_PUSH_002") if old is None else ("TFM_PUSH_001",)
        self.events.append(Constructed(mode_name, inner.label, 0, (*rules, "TFM_PUSH_008")))
        self.inner[mode] = inner
        self.installed_by[mode] = rules
        self.current = mode
        try:
            yield mode
        finally:
            self.current = old  # TFM_PUSH_003

    @contextmanager
    def enable(self, target: ModeRef | None, replace: ModeRef | None,
               ignore_preexisting: bool) -> Iterator[tuple[str, ...]]:
        if target is not None and target.name.startswith(("@class:", "@object")):
            # TFM_ENABLE_008: the type check comes first
            raise ModelRaise("ValueError", msg.enable_bad_type(self.texts, target.name),
                             ("TFM_ENABLE_008", "TFM_ENABLE_012"))
        old = self.current
        if old == target:  # TFM_ENABLE_002: the identical object is a no-op
            yield ("TFM_ENABLE_002",) if target is not None else ("TFM_ENABLE_002", "TFM_ENABLE_010")
            return
        if old is not None and not ignore_preexisting and old != replace:
            is_mode = target is not None and target.kind != "cls"
            rules = ["TFM_ENABLE_003" if is_mode else "TFM_ENABLE_004", "TFM_ENABLE_012"]
            if replace is not None:
                rules.append("TFM_ENABLE_006")
            if target is None:
                rules.append("TFM_ENABLE_010")
            raise ModelRaise("ValueError", msg.already_active(self.texts, old.label, target_is_mode=is_mode,
                                                              rule=rules[0]), tuple(rules))
        if target is None or target.name == "@nohandler":  # TFM_ENABLE_009/010
            raise ModelRaise("ValueError", self.texts.message("enable-needs-handler"),
                             ("TFM_ENABLE_009", "TFM_ENABLE_010", "TFM_ENABLE_012"))
        rules = ["TFM_ENABLE_001"]
        if old is not None:
            rules.append("TFM_ENABLE_007" if ignore_preexisting and old != replace else "TFM_ENABLE_005")
        if target.kind == "cls":
            rules.append("TFM_SUBMODE_001")
        else:
            rules.append("TFM_ENABLE_011")
        previous = self.installed_by.get(target)
        self.installed_by[target] = tuple(rules)
        self.current = target
        try:
            yield tuple(rules)
        finally:
            self.current = old  # TFM_ENABLE_001
            if previous is not None:
                self.installed_by[target] = previous

    def disable_torch_function(self) -> AbstractContextManager[None]:
        """``DisableTorchFunction()``: in the 2022 design it disables subclass handling only."""
        return self.disable()

    @contextmanager
    def disable(self) -> Iterator[None]:
        saved = self.disabled
        self.disabled = True
        try:
            yield
        finally:
            self.disabled = saved  # TFM_DISABLE_006

    # -- dispatch -----------------------------------------------------------

    def call(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
             spread: bool = False) -> SymValue:
        """Dispatch one call; ``spread``: made as ``func(*args, **kwargs)`` with a dict that may be empty."""
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise Unbounded(func)
            form = FORMS.get(func)
            if form is not None:
                return syntax.evaluate(self, form, args)
            info = info_of(func)
            if info.path == "probe":
                return self._probe(func, args)
            if info.shape == "pyfunc":
                return self._pyfunc(func, args, kwargs)
            python = info.path == "python"
            relevant = args[:1] if python else [*args, *kwargs.values()]
            return self._dispatch(func, args, kwargs, relevant, python, spread)
        finally:
            self.depth -= 1

    def _pyfunc(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        """A scenario-defined Python function: its ``has_torch_function*`` guard, then
        ``handle_torch_function`` with its relevant arguments (TFM_REACH_001..003, TFM_TYPES_007)."""
        decl = self.sc.function_named(func)
        assert decl is not None
        bound = dict(zip(decl.names, args, strict=False)) | kwargs
        relevant: list[SymValue] = []
        for name in decl.relevant:
            value = bound[name.lstrip("*")]
            if name.startswith("*"):
                assert isinstance(value, (list, tuple))
                relevant.extend(value)
            else:
                relevant.append(value)
        if self._forced_here() is None and not self._probe_items(relevant):
            self._note(f"has_torch_function of ({', '.join(decl.relevant)}) is False: {func} runs "
                       "without dispatching", self._probe_rule(relevant), no_handler=True)
            return self._kernel(func, [bound[n] for n in decl.names], {})
        split = decl.params - decl.keywords
        positional = [bound[n] for n in decl.names[:split]]
        keywords = {n: bound[n] for n in decl.names[split:]}
        return self._dispatch(func, positional, keywords, relevant, True,
                              seen=tuple(sorted(keywords)))

    def _dispatch(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
                  relevant: list[SymValue], python: bool, spread: bool = False,
                  seen: KwargsSeen = ANY_DICT) -> SymValue:
        """``seen``: the keywords a Python-path handler sees (any dict unless given)."""
        overloaded, collect_rules = self.collect(relevant, python, len(relevant) if python else len(args))
        if self.forced:
            overloaded = self._forced(overloaded, relevant)
        mode = self.active_mode()
        if python and self._forced_here() is None and not any(self._has_tf(x) for x in relevant):
            self._note("no argument has a handler and no mode is current: the function runs",
                       "TFM_REACH_002" if not relevant else "TFM_REACH_003", no_handler=True)
            return self._kernel(func, args, kwargs)
        if not python and mode is None and not overloaded:
            if self.disabled:
                self.value_rules.add("TFM_DISABLE_001")
            self._note("no overloaded argument and no mode: the kernel runs", "TFM_TYPES_003",
                       no_handler=True)
            return self._kernel(func, args, kwargs)
        types = tuple(a.cls for a in overloaded)
        if not python:
            seen = tuple(sorted(kwargs)) if kwargs else NONE_OR_EMPTY if spread else None
        h = Handler(func=func, types=types, args=args, kwargs=kwargs, seen=seen, python=python,
                    collect_rules=collect_rules)
        after: list[str] = []
        if mode is not None:  # TFM_ORDER_001: the mode first
            result = self.call_mode(mode, h)
            if result is not NOTIMPL:  # TFM_ORDER_002
                self.value_rules.add("TFM_ORDER_002")
                return result
            self._note("the mode returned NotImplemented: overloaded arguments are tried",
                       "TFM_NOTIMPL_001", "TFM_NOTIMPL_004")
            after = ["TFM_NOTIMPL_001", "TFM_NOTIMPL_004"]
        deferred: list[str] = []  # native plain-method warnings surface when the call is over
        try:
            for arg in overloaded:  # TFM_ORDER_003..005, TFM_NOTIMPL_001
                result = self._call_overloaded(arg, h, tuple(after), deferred)
                if result is not NOTIMPL:
                    self.value_rules.add("TFM_ORDER_007")
                    return result
                after.append("TFM_ORDER_007")
            rules = ["TFM_NOTIMPL_002", "TFM_ERROR_004",
                     "TFM_ERROR_003" if python else "TFM_ERROR_001"]
            if not overloaded:
                rules.append("TFM_NOTIMPL_003")
            if mode is not None:
                rules += ["TFM_NOTIMPL_004", "TFM_ERROR_003" if python else "TFM_ERROR_002"]
            raise ModelRaise("TypeError", self.no_implementation(func, types, python),
                             tuple(dict.fromkeys(rules)), declined_at=self.depth)
        finally:
            for _ in deferred:
                self.warn_plain_method(False)

    def _forced_here(self) -> tuple[str, ...] | None:
        """The types :attr:`forced` gives a dispatch starting now (``None``: the rules decide).

        A forced dispatch happens even where the rules say the call does not dispatch: the
        implementation was seen running a handler there."""
        return self.forced.get(sum(isinstance(e, HandlerRun) for e in self.events))

    def _forced(self, overloaded: list[SymTensor], relevant: list[SymValue]) -> list[SymTensor]:
        """The overloaded arguments :attr:`forced` gives this dispatch (else ``overloaded``)."""
        forced = self._forced_here()
        if forced is None or forced == tuple(a.cls for a in overloaded):
            return overloaded
        pool = [v for v in _flat(relevant) if isinstance(v, SymTensor)]
        out: list[SymTensor] = []
        for name in forced:
            match = next((v for v in pool if v.cls == name), None)
            if match is None or self.world.effective(name).kind in ("disabled", "none"):
                raise Unspecified(f"the implementation overloads on {name}, which the rules "
                                  "give no handler to run")
            out.append(match)
        return out

    def no_implementation(self, func: str, types: tuple[str, ...], python: bool) -> Message:
        return msg.no_implementation(self.texts, func, types, self._label(self.current), python=python)

    def collect(self, relevant: list[SymValue], python: bool,
                positional: int) -> tuple[list[SymTensor], tuple[str, ...]]:
        """Overloaded arguments in precedence order, and the rules that shaped the order.

        The mode plays no part here (TFM_REACH_007).
        """
        if self.disabled:
            if not python and any(isinstance(v, SymTensor) and not self.world.is_tensor_class(v.cls)
                                  for v in _flat(relevant)):
                # A non-tensor in a tensor slot only parses while it can be dispatched on.
                raise Unspecified("a duck argument with subclass handling disabled")
            return [], ("TFM_DISABLE_001", "TFM_DISABLE_003")
        rules: set[str] = {"TFM_TYPES_001"}
        flat: list[tuple[SymValue, bool]] = []
        for i, value in enumerate(relevant):  # TFM_ORDER_006: list elements count, in order
            if python and isinstance(value, (list, tuple)):
                rules.add("TFM_TYPES_007")  # the Python path takes relevant_args as given
                continue
            indirect = isinstance(value, (list, tuple)) or i >= positional
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                flat.append((item, indirect))
        found: list[SymTensor] = []
        for value, nested in flat:
            if not isinstance(value, SymTensor):
                if self.current is not None:
                    rules.add("TFM_REACH_007")
                continue
            if value.cls == "Tensor" and not python:
                rules.update(("TFM_TYPES_003", "TFM_REACH_007"))
                continue
            if self.world.effective(value.cls).kind in ("disabled", "none"):
                rules.add("TFM_TYPES_005")
                continue
            if any(f.cls == value.cls for f in found):
                rules.add("TFM_ORDER_005")
                continue
            if nested:
                rules.add("TFM_ORDER_006")
            if not self.world.is_tensor_class(value.cls):
                rules.add("TFM_TYPES_006")
            at = next((i for i, f in enumerate(found) if self.world.is_subclass(value.cls, f.cls)),
                      len(found))
            rules.add("TFM_ORDER_003" if at < len(found) else "TFM_ORDER_004")
            found.insert(at, value)
        if python:
            rules.add("TFM_TYPES_004")
        return found, tuple(sorted(rules))

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
            bound = arg.ident
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

    # -- what a handler does --------------------------------------------------

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

    @contextmanager
    def origin_as(self, origin: Origin) -> Iterator[None]:
        saved = self.origin
        self.origin = origin
        try:
            yield
        finally:
            self.origin = saved

    # -- helpers --------------------------------------------------------------

    def active_mode(self) -> ModeRef | None:
        """The mode a dispatch calls first (the current mode, unless modes are switched off)."""
        return self.current

    def _has_tf(self, value: SymValue) -> bool:
        if self.active_mode() is not None:
            return True  # TFM_REACH_001, TFM_DISABLE_005
        if not isinstance(value, SymTensor) or self.disabled or value.cls == "Tensor":
            return False
        return self.world.effective(value.cls).kind not in ("disabled", "none")  # TFM_REACH_003

    def _probe(self, func: str, args: list[SymValue]) -> bool:
        items = args[0] if func == "has_torch_function" else args
        assert isinstance(items, (list, tuple))
        return self._probe_items(list(items))

    def _probe_rule(self, items: list[SymValue]) -> str:
        """The rule that decides ``has_torch_function`` of ``items``."""
        if not items:
            return "TFM_REACH_002"
        if self.active_mode() is not None:
            return "TFM_DISABLE_005" if self.disabled else "TFM_REACH_001"
        return "TFM_REACH_003"

    def _probe_items(self, items: list[SymValue]) -> bool:
        """``has_torch_function`` of ``items`` (TFM_REACH_001..003, TFM_DISABLE_005)."""
        self.value_rules.add(self._probe_rule(items))
        return any(self._has_tf(x) for x in items)

    def _kernel(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        def data(value: SymValue) -> object:
            if isinstance(value, SymTensor):
                if not self.world.is_tensor_class(value.cls):
                    raise Unspecified("the kernel was reached with a non-tensor argument")
                return value.data
            if isinstance(value, (list, tuple)):
                return [data(v) for v in value]
            return value

        if info_of(func).shape == "pyfunc":
            tensors = [v.data for v in _flat(args) if isinstance(v, SymTensor)
                       and self.world.is_tensor_class(v.cls)]
            total = pyfunc_kernel(tensors)
            return None if total is None else SymTensor("Tensor", total)
        out = kernel(func, [data(a) for a in args], {k: data(v) for k, v in kwargs.items()})
        if isinstance(out, int):  # len(x)
            return out
        assert isinstance(out, tuple)
        if func == "Tensor.real.__get__" and isinstance(args[0], SymTensor):
            return args[0]  # the real part of real values: the tensor itself, its class kept
        if func == "Tensor.add_" and isinstance(args[0], SymTensor):
            return SymTensor(args[0].cls, out, args[0].ident)  # in place: the tensor itself
        if func == "split":
            return tuple(SymTensor("Tensor", part) for part in out)
        return SymTensor("Tensor", out)

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
        form = self.form if self.form is not None and self.form[0] == self.depth else None
        rules = (*who_rules, *tags)
        if form is not None:  # the form's own dispatch: its rule alone says which handler it
            # reaches, and whether at all (the same dispatch written as a call has the general
            # rules); with the others it says what the handler is handed
            own = (form[1].rule,)
            why = tuple((key, own) if key in ("who", "role") else
                        (key, (*decide, *own)) if key in ("func", "args") else
                        (key, decide) for key, decide in why)
            rules = own
        self.events.append(HandlerRun(who, role, h.func, h.types, h.seen, self._label(self.current),
                                      bound, rules, why, args, kwvalues,
                                      form[1].also if form is not None else ()))

    def _note(self, text: str, *rules: str, no_handler: bool = False) -> None:
        self.notes.append((len(self.events), Note(text, rules, no_handler)))

    @staticmethod
    def _label(mode: ModeRef | None) -> str | None:
        return None if mode is None else mode.label


def _flat(values: list[SymValue]) -> list[SymValue]:
    return [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]


def predict(scenario: Scenario, version: str | None = None, release: str | None = None,
            forced: Mapping[int, tuple[str, ...]] | None = None) -> Trace:
    """The trace the rules predict for ``scenario``: ``version`` is the stack generation's
    (default 2.x), ``release`` the key of the release whose texts to predict (default: the
    PR's for 2022, 1.13's or the latest measured 2.x release's for the stack generation).

    ``forced`` predicts what follows from a known divergence: the dispatch whose first handler
    run is the ``k``-th of the trace overloads on the arguments of the types ``forced[k]``
    instead of those the rules collect (raising :class:`Unspecified` when no rule says what
    such an argument does); a call the rules do not dispatch is dispatched all the same when
    its dispatch would be that one.
    """
    engine: Engine
    if scenario.generation == "2022":
        engine = Engine(scenario, release)
    else:
        from .stack import StackEngine

        engine = StackEngine(scenario, "1.13" if version == "1.13" else "2.x", release)
    engine.forced = dict(forced or {})
    return engine.run()
