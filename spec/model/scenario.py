"""Scenarios: what the model predicts and what the conformance runner executes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Union

Generation = Literal["2022", "stack"]
GENERATIONS: tuple[Generation, ...] = ("2022", "stack")
#: The exceptions a handler's Raise can raise.
RaisedError = Literal["HandlerError", "TypeError"]

# ---------------------------------------------------------------------------
# Handler actions: what a handler does once it has been entered.


@dataclass(frozen=True)
class Return:
    """Return the integer ``value``."""

    value: int


@dataclass(frozen=True)
class NotImpl:
    """Return ``NotImplemented``."""


@dataclass(frozen=True)
class Forward:
    """Call ``func(*args, **(kwargs or {}))`` again and return its result.

    With ``disable`` the call is made inside ``DisableTorchFunction`` (the idiom
    for subclass handlers, which would otherwise see themselves again).
    """

    disable: bool = False


@dataclass(frozen=True)
class ForwardAdd:
    """Forward as :class:`Forward` does, then return ``add(result, amount)`` when the result is
    a Tensor (a call like any other: the handlers still active see it) and any other result as
    it is: a handler that changes the value it forwards."""

    amount: int


@dataclass(frozen=True)
class DeferToTypes:
    """Return ``NotImplemented`` when ``types`` is not empty, else forward (test_mode_notimplemented_loop)."""


@dataclass(frozen=True)
class Default:
    """Return ``Tensor.__torch_function__(func, types, args, kwargs)`` (``super()``)."""


@dataclass(frozen=True)
class Raise:
    """Raise ``HandlerError(message)``, or with ``error`` ``"TypeError"`` a ``TypeError``
    (which an operator must not take for a decline, TFM_SYNTAX_002)."""

    message: str
    error: RaisedError = "HandlerError"


@dataclass(frozen=True)
class Redispatch:
    """Call another overridable function ``target`` with the same args and kwargs.

    With ``reenter`` the call is made with the handler's own mode re-installed
    (2022: ``enable_torch_function_mode(self, replace=self.inner)``; stack
    generation: ``with self:``). Only mode handlers may re-enter.
    """

    target: str
    reenter: bool = False


@dataclass(frozen=True)
class PushInside:
    """Inside the handler, push mode class ``mode`` (2022) / enter it (stack), then ``then``."""

    mode: str
    then: Action


@dataclass(frozen=True)
class EnableInside:
    """Inside the handler, ``enable_torch_function_mode(mode, ...)``, then ``then``.

    ``replace`` is ``None``, ``"inner"`` (the handler's ``self.inner``) or a
    mode instance name.
    """

    mode: str
    then: Action
    replace: str | None = None
    ignore_preexisting: bool = False


Action = Union[Return, NotImpl, Forward, ForwardAdd, DeferToTypes, Default, Raise, Redispatch,
               PushInside, EnableInside]


@dataclass(frozen=True)
class Behaviour:
    """A handler's action, chosen by the function it was called for."""

    default: Action
    on: tuple[tuple[str, Action], ...] = ()

    def action_for(self, func: str) -> Action:
        for name, action in self.on:
            if name == func:
                return action
        return self.default


# ---------------------------------------------------------------------------
# Declarations.

HandlerKind = Literal["classmethod", "plain", "inherit", "disabled"]
ClassKind = Literal["tensor", "duck"]


@dataclass(frozen=True)
class ClassDecl:
    """A Tensor subclass (``kind="tensor"``) or a non-tensor class with a handler (``"duck"``).

    ``handler``: ``classmethod`` or ``plain`` (a plain method, which the
    ``__self__`` check finds) run ``behaviour``; ``inherit`` defines no handler
    of its own (the parent's, ultimately ``Tensor.__torch_function__``);
    ``disabled`` sets ``_disabled_torch_function_impl`` (opted out).
    """

    name: str
    parent: str = "Tensor"
    kind: ClassKind = "tensor"
    handler: HandlerKind = "classmethod"
    behaviour: Behaviour | None = None


@dataclass(frozen=True)
class ModeDecl:
    """A ``TorchFunctionMode`` subclass whose ``__torch_function__`` runs ``behaviour``.

    In the 2022 generation a mode that is pushed is built by
    ``push_torch_function_mode``; a mode that is enabled (or entered) is one
    instance built up front (2022: with ``inner=None``). The instance carries
    the declaration's name.
    """

    name: str
    behaviour: Behaviour
    classmethod_handler: bool = False


#: The parameters of a scenario-defined Python function, in order.
PARAMS = ("a", "b", "c")
Probe = Literal["sequence", "unary", "variadic"]


@dataclass(frozen=True)
class PyFuncDecl:
    """A function the scenario defines in Python, written as a library author writes one::

        def name(a, b=None, c=None):            # ``params`` parameters
            if has_torch_function((a, *b)):      # ``probe`` over ``relevant``
                return handle_torch_function(name, (a, *b), a, b, c=c)
            return <its tensors added up, or None when it has none>

    ``relevant``: the relevant arguments, each a parameter name, or ``*name`` for the
    elements of a list parameter. ``probe``: ``has_torch_function(relevant)``,
    ``has_torch_function_unary(arg)`` (one relevant argument) or
    ``has_torch_function_variadic(*relevant)``. ``keywords``: how many trailing
    parameters are handed to ``handle_torch_function`` by keyword.
    """

    name: str
    params: int = 1
    relevant: tuple[str, ...] = ("a",)
    probe: Probe = "sequence"
    keywords: int = 0

    @property
    def names(self) -> tuple[str, ...]:
        return PARAMS[:self.params]


# ---------------------------------------------------------------------------
# Set-up steps, each entered inside the previous one.


PushHow = Literal["ctor", "instance", "bad_ctor"]


@dataclass(frozen=True)
class Push:
    """2022: ``with push_torch_function_mode(ModeClass):``.

    ``how``: ``ctor`` passes the class; ``instance`` passes the declaration's
    up-front instance (an error); ``bad_ctor`` passes a callable that returns
    ``None`` (an error).
    """

    mode: str
    how: PushHow = "ctor"


@dataclass(frozen=True)
class Enable:
    """2022: ``with enable_torch_function_mode(target, replace=..., ignore_preexisting=...):``.

    ``target`` names a mode instance, a Tensor subclass (used as the mode), or
    is ``None``. ``replace`` names a mode instance or a class, or is ``None``.
    """

    target: str | None
    replace: str | None = None
    ignore_preexisting: bool = False


#: Special targets of :class:`Enable`: the mode *class* of declaration ``M``
#: (``"@class:M"``), a plain ``object()``, and a class without ``__torch_function__``.
SPECIAL_TARGETS = ("@class:", "@object", "@nohandler")


@dataclass(frozen=True)
class SetRaw:
    """2022: ``_set_torch_function_mode(obj)`` (the previous object is set back on exit).

    ``target`` names a mode instance or a class, or is ``None``.
    """

    target: str | None


@dataclass(frozen=True)
class Construct:
    """Construct mode class ``mode`` with no arguments at all (2022: without ``inner=``)."""

    mode: str


@dataclass(frozen=True)
class Enter:
    """Stack generation: ``with mode_instance:``."""

    mode: str


@dataclass(frozen=True)
class Disable:
    """``with DisableTorchFunction():`` (``subclass_only``: ``DisableTorchFunctionSubclass``)."""

    subclass_only: bool = False


Step = Union[Push, Enable, Enter, Disable, SetRaw, Construct]


# ---------------------------------------------------------------------------
# The call.


@dataclass(frozen=True)
class TensorArg:
    """A tensor argument: a plain ``Tensor`` (``cls=None``) or an instance of class ``cls``."""

    cls: str | None = None


@dataclass(frozen=True)
class ListArg:
    """A list of arguments (for ``cat``)."""

    items: tuple[Arg, ...]


@dataclass(frozen=True)
class Const:
    """A non-tensor argument: an ``int`` or ``None``."""

    value: int | None


Arg = Union[TensorArg, ListArg, Const]


@dataclass(frozen=True)
class Call:
    """One call of an overridable function (see :mod:`spec.model.functions`)."""

    func: str
    args: tuple[Arg, ...] = ()
    kwargs: tuple[tuple[str, Arg], ...] = ()
    #: Make the call in a new thread (the set-up stays in the scenario's thread).
    thread: bool = False


@dataclass(frozen=True)
class Scenario:
    """Declarations, nested set-up steps, and at most one call at the innermost point."""

    generation: Generation = "2022"
    classes: tuple[ClassDecl, ...] = ()
    modes: tuple[ModeDecl, ...] = ()
    setup: tuple[Step, ...] = ()
    call: Call | None = None
    title: str = field(default="", compare=False)
    #: Functions the scenario defines in Python (see :class:`PyFuncDecl`).
    functions: tuple[PyFuncDecl, ...] = ()

    def function_named(self, name: str) -> PyFuncDecl | None:
        for decl in self.functions:
            if decl.name == name:
                return decl
        return None

    def class_named(self, name: str) -> ClassDecl | None:
        for decl in self.classes:
            if decl.name == name:
                return decl
        return None

    def instance_modes(self) -> tuple[str, ...]:
        """Mode declarations used as objects (enabled, set raw, replaced, pushed as an instance).

        Each gets one instance, built up front in declaration order (2022: with
        ``inner=None``), before any set-up step.
        """
        used: set[str] = set()
        for step in self.setup:
            if isinstance(step, Enable):
                used.update(n for n in (step.target, step.replace) if n is not None)
            elif isinstance(step, SetRaw) and step.target is not None:
                used.add(step.target)
            elif (isinstance(step, Push) and step.how == "instance") or isinstance(step, Enter):
                used.add(step.mode)
        behaviours = [m.behaviour for m in self.modes]
        behaviours += [c.behaviour for c in self.classes if c.behaviour is not None]
        for behaviour in behaviours:
            for action in (behaviour.default, *(a for _, a in behaviour.on)):
                while isinstance(action, (PushInside, EnableInside)):
                    if isinstance(action, EnableInside):
                        used.update(n for n in (action.mode, action.replace) if n is not None)
                    action = action.then
        return tuple(m.name for m in self.modes if m.name in used)

    def mode_named(self, name: str) -> ModeDecl | None:
        for decl in self.modes:
            if decl.name == name:
                return decl
        return None
