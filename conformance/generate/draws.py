"""What a generated scenario is made of, written once against a :class:`Chooser`: every choice
is a pick among options (weights by repetition) or a whole number in a range.

Two choosers make scenarios from it. :mod:`conformance.generate.strategies` hands each choice to
hypothesis (its search, its seeds and its database), for the profiles that search at random;
:class:`SeededChooser` makes them from a seeded ``random.Random`` at a few microseconds a choice,
for the derandomized profiles (``ci``, ``certify``), where hypothesis' book-keeping of each
choice was most of a certification's time and bought nothing (nothing is shrunk by it there).
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable
from typing import Protocol, TypeVar

from spec.model.functions import FAMILY_ORDER, FORMS, FUNCS, may_redispatch
from spec.model.scenario import (
    PARAMS,
    Action,
    Arg,
    Behaviour,
    Call,
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
    Generation,
    HandlerKind,
    ListArg,
    ModeDecl,
    NotImpl,
    Probe,
    Push,
    PushInside,
    PyFuncDecl,
    Raise,
    RaisedError,
    Redispatch,
    Return,
    Scenario,
    SetRaw,
    Step,
    TensorArg,
)

T = TypeVar("T")

__all__ = ["FORM_FEATURES", "FORWARD_ADD", "Chooser", "SeededChooser", "build_call", "build_form_call",
           "build_scenario"]


class Chooser(Protocol):
    """Where a scenario's choices come from."""

    def pick(self, options: tuple[T, ...]) -> T:
        """One of ``options`` (non-empty; an option repeated is that much likelier)."""

    def integer(self, low: int, high: int) -> int:
        """A whole number from ``low`` to ``high``, both included."""


class SeededChooser:
    """Choices from ``random.Random(seed)``: the same seed, the same scenarios, on every Python
    the suite supports (only ``random()`` is used, whose sequence the seed fixes)."""

    def __init__(self, seed: str) -> None:
        self._next = random.Random(seed).random

    def pick(self, options: tuple[T, ...]) -> T:
        return options[int(self._next() * len(options))]

    def integer(self, low: int, high: int) -> int:
        return low + int(self._next() * (high - low + 1))


#: The feature a compiled sweep adds: mode handlers that change the value they forward
#: (:class:`~spec.model.scenario.ForwardAdd`), which show where torch.compile applies a mode
#: entered outside the compiled function twice.
FORWARD_ADD = "forward-add"
#: The features that draw syntactic forms (each form's :attr:`~spec.model.functions.FormInfo.feature`).
FORM_FEATURES = frozenset(form.feature for form in FORMS.values())

CLASS_NAMES = ("A", "B", "C", "D", "E")
MODE_NAMES = ("M", "N", "P")
_CALLABLE = tuple(n for n, f in FUNCS.items() if f.path != "probe")
_PROBES = tuple(n for n, f in FUNCS.items() if f.path == "probe")
#: Calls to draw from: every overridable function three times, each probe once, interleaved
#: (hypothesis favours what comes first).
_FUNCS = tuple(f for group in zip(_CALLABLE, _CALLABLE[::-1], _CALLABLE[3:] + _CALLABLE[:3],
                                  strict=True) for f in group) + _PROBES
_BOOLS = (False, True)
_TENTHS = tuple(range(10))

# -- handlers' actions --------------------------------------------------------------------------

_SUBCLASS_ACTIONS = ("notimpl", "forward", "return", "notimpl", "forward", "return", "default", "raise")
_MODE_ACTIONS = ("forward", "notimpl", "return", "forward", "notimpl", "return", "forward", "raise",
                 "default", "defer")
_MODE_ACTIONS_ADDING = (*_MODE_ACTIONS, "add", "add")
_MESSAGES = ("boom", "bad input")
_ERRORS: tuple[RaisedError, ...] = ("HandlerError", "HandlerError", "TypeError")
#: Per source function of a family, the later functions a handler may redispatch it to.
_SOURCES = tuple((src, tuple(t for t in order if may_redispatch(src, t)))
                 for order in FAMILY_ORDER.values() for src in order)


def _action(c: Chooser, kind: str, subclass: bool) -> Action:
    if kind == "notimpl":
        return NotImpl()
    if kind == "forward":  # a subclass handler forwards with its own class disabled
        return Forward(disable=subclass)
    if kind == "return":
        return Return(c.integer(-50, 50))
    if kind == "raise":
        return Raise(c.pick(_MESSAGES), c.pick(_ERRORS))
    if kind == "default":
        return Default()
    if kind == "defer":
        return DeferToTypes()
    return ForwardAdd(100)


def _subclass_action(c: Chooser) -> Action:
    return _action(c, c.pick(_SUBCLASS_ACTIONS), subclass=True)


@functools.cache
def _nesting(generation: Generation, has_modes: bool) -> tuple[str, ...]:
    return ("simple",) * 6 + ("push",) * has_modes + ("enable",) * (has_modes and generation == "2022")


def _mode_action(c: Chooser, generation: Generation, modes: tuple[str, ...],
                 classes: tuple[str, ...], adds: bool) -> Action:
    """A mode handler's action, possibly nested in a push or enable of a mode of its own."""
    nest = c.pick(_nesting(generation, bool(modes)))
    simple = _action(c, c.pick(_MODE_ACTIONS_ADDING if adds else _MODE_ACTIONS), subclass=False)
    if nest == "push":
        return PushInside(c.pick(modes), simple)
    if nest == "enable":
        return EnableInside(c.pick(modes + classes), simple, c.pick((None, "inner", *modes)), c.pick(_BOOLS))
    return simple


def _overrides(c: Chooser, base: Callable[[Chooser], Action],
               mode: bool) -> tuple[tuple[str, Action], ...]:
    """Up to two functions handled apart, each with an action drawn as ``base`` draws the
    handler's own; a mode may instead redispatch one to a later function of its family."""
    chosen: dict[str, Action] = {}
    for _ in range(c.integer(0, 2)):
        src, later = c.pick(_SOURCES)
        redispatch: bool = c.pick(_BOOLS) if later else False
        if redispatch:
            action: Action = Redispatch(c.pick(later), c.pick(_BOOLS) if mode else False)
        else:
            action = base(c)
        chosen.setdefault(src, action)
    return tuple(chosen.items())


# -- the scenario -------------------------------------------------------------------------------

_N_CLASSES = (2, 3, 1, 4, 5, 0, 2, 3)
_DUCK_HANDLERS: tuple[HandlerKind, ...] = ("classmethod", "plain")
_DUCK_ACTIONS = ("return", "notimpl", "raise")
_TENSOR_HANDLERS: tuple[HandlerKind, ...] = ("classmethod", "classmethod", "plain", "classmethod", "inherit",
                                             "plain", "disabled")
_N_MODES = (1, 2, 3, 1, 2, 0)
_SETUP_LENGTHS = (2, 1, 3, 2, 1, 0)
_SETUP_LENGTHS_NO_MODES = (0, 1)


def _classes(c: Chooser) -> tuple[ClassDecl, ...]:
    classes: list[ClassDecl] = []
    for name in CLASS_NAMES[:c.pick(_N_CLASSES)]:
        tensors = tuple(d.name for d in classes if d.kind == "tensor")
        if c.pick(_TENTHS) == 0:
            behaviour = Behaviour(_action(c, c.pick(_DUCK_ACTIONS), subclass=True))
            classes.append(ClassDecl(name, "object", "duck", c.pick(_DUCK_HANDLERS), behaviour))
            continue
        parent = c.pick(("Tensor", *tensors)) if tensors else "Tensor"
        handler = c.pick(_TENSOR_HANDLERS)
        beh = None
        if handler in ("classmethod", "plain"):
            beh = Behaviour(_subclass_action(c), _overrides(c, _subclass_action, mode=False))
        classes.append(ClassDecl(name, parent, "tensor", handler, beh))
    return tuple(classes)


def build_scenario(c: Chooser, generation: Generation = "2022",
                   features: frozenset[str] = frozenset({"disable-subclass", "python-path"})) -> Scenario:
    """A scenario: subclass hierarchies, modes, nested set-up and one call."""
    classes = _classes(c)
    class_names = tuple(d.name for d in classes)
    tensor_classes = tuple(d.name for d in classes if d.kind == "tensor")
    mode_names = MODE_NAMES[:c.pick(_N_MODES)]
    adds = FORWARD_ADD in features

    def action(c: Chooser) -> Action:
        return _mode_action(c, generation, mode_names, tensor_classes, adds)

    modes = tuple(ModeDecl(name, Behaviour(action(c), _overrides(c, action, mode=True)),
                           classmethod_handler=generation == "stack" and c.integer(0, 11) == 0)
                  for name in mode_names)
    length = c.pick(_SETUP_LENGTHS if mode_names else _SETUP_LENGTHS_NO_MODES)
    setup = tuple(_step(c, generation, mode_names, tensor_classes, "disable-subclass" in features)
                  for _ in range(length))
    functions: tuple[PyFuncDecl, ...] = ()
    # About as often as a function of the vocabulary, one of its own (on the Python path).
    if "python-path" in features and c.pick(_TENTHS) < 5:
        function, call = _defined_call(c, class_names)
        functions = (function,)
    elif "syntax" in features and c.pick(_TENTHS) < 2:  # a call written as syntax
        call = build_form_call(c, class_names, tensor_classes,
                               tuple(sorted(FORM_FEATURES & frozenset(features))))
    else:
        call = build_call(c, class_names, tensor_classes)
    if c.pick(_TENTHS) == 0:
        call = Call(call.func, call.args, call.kwargs, thread=True)
    return Scenario(generation, classes, modes, setup, call, functions=functions)


@functools.cache
def _step_kinds(generation: Generation, has_modes: bool, disable_subclass: bool) -> tuple[str, ...]:
    # Installing a mode comes first: hypothesis draws the first option more often than the rest.
    kinds: tuple[str, ...] = ()
    if has_modes and generation == "stack":
        kinds += ("enter",) * 6 + ("construct",)
    if has_modes and generation == "2022":
        kinds += ("push",) * 6 + ("enable",) * 3 + ("enable-over",) * 2 + ("push-bad", "setraw", "construct")
    return kinds + ("disable",) + ("disable-subclass",) * (generation == "stack" and disable_subclass)


def _step(c: Chooser, generation: Generation, modes: tuple[str, ...], classes: tuple[str, ...],
          disable_subclass: bool) -> Step:
    kind = c.pick(_step_kinds(generation, bool(modes), disable_subclass))
    if kind == "enter":
        return Enter(c.pick(modes))
    if kind == "construct":
        return Construct(c.pick(modes))
    if kind == "push":
        return Push(c.pick(modes))
    if kind == "enable":
        specials = ("@object", "@nohandler", *(f"@class:{m}" for m in modes))
        return Enable(c.pick((*modes, *modes, *classes, None, *specials)),
                      c.pick((None, *modes, *classes)), c.pick(_BOOLS))
    if kind == "enable-over":  # one mode instance over another, named as replaced (TFM_ENABLE_005)
        return Enable(c.pick(modes), c.pick(modes), False)
    if kind == "push-bad":
        return Push(c.pick(modes), c.pick(("instance", "bad_ctor")))
    if kind == "setraw":
        return SetRaw(c.pick((*modes, *classes, None)))
    return Disable(kind == "disable-subclass")


# -- the call -----------------------------------------------------------------------------------

_CONSTS = (Const(None), Const(3))


@functools.cache
def _tensors(classes: tuple[str, ...]) -> tuple[TensorArg, ...]:
    """Any tensor-like argument: of a declared class (twice as likely) or a plain tensor."""
    return tuple(TensorArg(n) for n in (*classes, None, *classes))


@functools.cache
def _true_tensors(tensor_classes: tuple[str, ...]) -> tuple[TensorArg, ...]:
    return tuple(TensorArg(n) for n in (None, *tensor_classes))


def _anything(c: Chooser, classes: tuple[str, ...]) -> Arg:
    return c.pick(_tensors(classes)) if c.pick(_BOOLS) else c.pick(_CONSTS)


def build_call(c: Chooser, classes: tuple[str, ...], tensor_classes: tuple[str, ...]) -> Call:
    """A call of any function, with tensors positional, keyword, or in lists."""
    func = c.pick(_FUNCS)
    info = FUNCS[func]
    if info.shape in ("binary", "unary"):
        params = ("input", "other")[: 2 if info.shape == "binary" else 1]
        n = len(params)
        first_keyword = min(c.pick((n, n, 1, 0) if not info.method else (n, 1)), n)
        values = [c.pick(_true_tensors(tensor_classes) if info.method and i == 0 else _tensors(classes))
                  for i in range(n)]
        kwargs: list[tuple[str, Arg]] = list(zip(params[first_keyword:], values[first_keyword:], strict=True))
        if info.alpha and c.pick(_BOOLS):
            kwargs.append(("alpha", Const(c.integer(-2, 3))))
        return Call(func, tuple(values[:first_keyword]), tuple(kwargs))
    if info.shape == "list":
        return Call(func, (ListArg(tuple(c.pick(_tensors(classes)) for _ in range(c.integer(1, 4)))),))
    if info.shape == "sizes":
        return Call(func, tuple(Const(c.integer(0, 3)) for _ in range(c.integer(1, 2))))
    if info.shape == "split":
        return Call(func, (c.pick(_tensors(classes)), Const(c.integer(1, 2))))
    if info.shape == "probe_one":
        return Call(func, (_anything(c, classes),))
    items = tuple(_anything(c, classes) for _ in range(c.integer(0, 3)))
    return Call(func, (ListArg(items),) if info.shape == "probe_seq" else items)


@functools.cache
def _form_names(features: tuple[str, ...]) -> tuple[str, ...]:
    names = tuple(name for name, form in FORMS.items() if form.feature in features)
    if not names:
        raise ValueError(f"no syntactic form belongs to the features {features}")
    return names


def build_form_call(c: Chooser, classes: tuple[str, ...], tensor_classes: tuple[str, ...],
                    features: tuple[str, ...] = ("syntax",)) -> Call:
    """A call written as a syntactic form (:data:`spec.model.functions.FORMS`), one of those
    of ``features``: its tensor a plain one or of a Tensor subclass, the other operand of
    ``x + y`` any tensor, an index 0 or 1, a constant 2 or -1."""
    name = c.pick(_form_names(features))
    first = c.pick(_true_tensors(tensor_classes))
    form = FORMS[name]
    if form.takes == 1:
        return Call(name, (first,))
    if form.kind in ("infix", "inplace"):
        return Call(name, (first, c.pick(_tensors(classes))))
    if form.kind == "reflected":
        return Call(name, (first, Const(c.pick((2, -1)))))
    if form.kind == "assign":  # x[k] = c
        return Call(name, (first, Const(c.pick((0, 1))), Const(c.pick((2, -1)))))
    return Call(name, (first, Const(c.pick((0, 1)))))  # an index


_PARAM_COUNTS = (2, 2, 3, 3, 2, 3, 1)
_PARAM_KINDS = ("tensor", "tensor", "list", "tensor", "constant", "mixed list", "tensor", "tensor",
                "list", "tensor")
_KEYWORDS = (0, 0, 1, 2)
_WHOLE_OR_SPREAD = ("spread", "spread", "spread", "whole", "left out")
_PROBE_KINDS: tuple[Probe, ...] = ("sequence", "variadic")


@functools.cache
def _rotated(classes: tuple[str, ...], start: int) -> tuple[TensorArg, ...]:
    """Tensor-like arguments whose likeliest class differs from one parameter to the next."""
    turned = classes[start % len(classes):] + classes[:start % len(classes)] if classes else ()
    return tuple(TensorArg(n) for n in (*turned, None, *turned))


def _defined_call(c: Chooser, classes: tuple[str, ...]) -> tuple[PyFuncDecl, Call]:
    """A function the scenario defines in Python (one to three parameters, each a tensor-like,
    a constant or a list; some or all of them relevant, lists spread or whole) and its call."""
    params = c.pick(_PARAM_COUNTS)
    args: list[Arg] = []
    relevant: list[str] = []
    for name in PARAMS[:params]:
        kind = c.pick(_PARAM_KINDS)
        if kind in ("list", "mixed list"):
            size = c.integer(kind == "list", 3)
            items: tuple[Arg, ...]
            if kind == "list":
                items = tuple(c.pick(_rotated(classes, len(args))) for _ in range(size))
            else:
                items = tuple(_anything(c, classes) for _ in range(size))
            args.append(ListArg(items))
            how = c.pick(_WHOLE_OR_SPREAD)
            if how != "left out":
                relevant.append(f"*{name}" if how == "spread" else name)
            continue
        args.append(c.pick(_CONSTS) if kind == "constant" else c.pick(_rotated(classes, len(args))))
        if c.integer(0, 5) < 5:  # in, five times in six
            relevant.append(name)
    probe: Probe = c.pick(_PROBE_KINDS)
    if len(relevant) == 1 and not relevant[0].startswith("*") and c.integer(0, 3) == 0:
        probe = "unary"
    keywords = min(c.pick(_KEYWORDS), params - 1)
    return PyFuncDecl("foo", params, tuple(relevant), probe, keywords), Call("foo", tuple(args))
