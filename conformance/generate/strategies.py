"""Hypothesis strategies that generate scenarios for either generation."""

from __future__ import annotations

import functools

from hypothesis import strategies as st

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
    Redispatch,
    Return,
    Scenario,
    SetRaw,
    Step,
    TensorArg,
)

CLASS_NAMES = ("A", "B", "C", "D", "E")
MODE_NAMES = ("M", "N", "P")
CALLABLE = tuple(n for n, f in FUNCS.items() if f.path != "probe")
PROBES = tuple(n for n, f in FUNCS.items() if f.path == "probe")
#: Calls to draw from: every overridable function three times, each probe once,
#: interleaved so that no one function is favoured by hypothesis' bias to the first.
ORDERED_FUNCS = tuple(f for group in zip(CALLABLE, CALLABLE[::-1], CALLABLE[3:] + CALLABLE[:3],
                                         strict=True) for f in group) + PROBES

returns = st.integers(min_value=-50, max_value=50).map(Return)
raises = st.builds(Raise, st.sampled_from(["boom", "bad input"]),
                   st.sampled_from(("HandlerError", "HandlerError", "TypeError")))


@functools.cache
def _overrides(base: st.SearchStrategy[Action], mode: bool) -> st.SearchStrategy[
        tuple[tuple[str, Action], ...]]:
    """Per-function actions; modes may redispatch to a later function of the same family."""
    entries = []
    for family, order in FAMILY_ORDER.items():
        for src in order:
            later = [t for t in order if may_redispatch(src, t)]
            options: list[st.SearchStrategy[Action]] = [base]
            if later:
                options.append(st.builds(Redispatch, st.sampled_from(later),
                                         st.booleans() if mode else st.just(False)))
            entries.append(st.tuples(st.just(src), st.one_of(options)))
        del family
    return st.lists(st.one_of(entries), max_size=2, unique_by=lambda e: e[0]).map(tuple)


@functools.cache
def subclass_actions() -> st.SearchStrategy[Action]:
    notimpl, forward = st.just(NotImpl()), st.just(Forward(disable=True))
    return st.one_of(notimpl, forward, returns, notimpl, forward, returns, st.just(Default()), raises)


#: The feature a compiled sweep adds: mode handlers that change the value they forward
#: (:class:`~spec.model.scenario.ForwardAdd`), which show where torch.compile applies a mode
#: entered outside the compiled function twice.
FORWARD_ADD = "forward-add"


@functools.cache
def mode_actions(generation: Generation, modes: tuple[str, ...],
                 classes: tuple[str, ...], adds: bool = False) -> st.SearchStrategy[Action]:
    """A mode handler's action; with ``adds``, one that changes the value it forwards is drawn
    too (:class:`~spec.model.scenario.ForwardAdd`, feature ``forward-add``)."""
    forward, notimpl = st.just(Forward()), st.just(NotImpl())
    options: list[st.SearchStrategy[Action]] = [
        forward, notimpl, returns, forward, notimpl, returns, forward, raises,
        st.just(Default()), st.just(DeferToTypes())]
    if adds:
        options += [st.just(ForwardAdd(100))] * 2
    simple = st.one_of(options)
    nested: list[st.SearchStrategy[Action]] = [simple] * 6
    if modes:
        nested.append(st.builds(PushInside, st.sampled_from(modes), simple))
        if generation == "2022":
            nested.append(st.builds(EnableInside, st.sampled_from(modes + classes), simple,
                                    st.sampled_from([None, "inner", *modes]), st.booleans()))
    return st.one_of(nested)


# The strategies a scenario draws from are built once (module constants, or cached by their
# arguments) rather than on every draw: hypothesis validates a new strategy and computes its
# label the first time it is drawn from, which cost more than the drawing itself. The
# strategies, and so the scenarios drawn for a given seed, are the same as built afresh.
_N_CLASSES = st.sampled_from((2, 3, 1, 4, 5, 0, 2, 3))
_ONE_IN_TEN = st.integers(0, 9)
_ONE_IN_TWELVE = st.integers(0, 11)
_DUCK_HANDLERS: st.SearchStrategy[HandlerKind] = st.sampled_from(["classmethod", "plain"])
_DUCK_ACTIONS = st.one_of(returns, st.just(NotImpl()), raises)
_TENSOR_HANDLERS: st.SearchStrategy[HandlerKind] = st.sampled_from(
    ["classmethod", "classmethod", "plain", "inherit", "disabled"])
_N_MODES = st.sampled_from((1, 2, 3, 1, 2, 0))
_SETUP_LENGTHS = st.sampled_from((2, 1, 3, 2, 1, 0))
_SETUP_LENGTHS_NO_MODES = st.sampled_from((0, 1))


@functools.cache
def _parents(tensors: tuple[str, ...]) -> st.SearchStrategy[str]:
    return st.sampled_from(["Tensor", *tensors])


@st.composite
def scenarios(draw: st.DrawFn, generation: Generation = "2022",
              features: frozenset[str] = frozenset({"disable-subclass", "python-path"})) -> Scenario:
    """A scenario: subclass hierarchies, modes, nested set-up and one call."""
    n_classes: int = draw(_N_CLASSES)
    classes: list[ClassDecl] = []
    for i in range(n_classes):
        name = CLASS_NAMES[i]
        tensors = [c.name for c in classes if c.kind == "tensor"]
        if draw(_ONE_IN_TEN) == 0:
            handler: HandlerKind = draw(_DUCK_HANDLERS)
            behaviour = Behaviour(draw(_DUCK_ACTIONS))
            classes.append(ClassDecl(name, "object", "duck", handler, behaviour))
            continue
        parent = draw(_parents(tuple(tensors))) if tensors else "Tensor"
        handler = draw(_TENSOR_HANDLERS)
        beh = None
        if handler in ("classmethod", "plain"):
            beh = Behaviour(draw(subclass_actions()),
                            draw(_overrides(subclass_actions(), mode=False)))
        classes.append(ClassDecl(name, parent, "tensor", handler, beh))
    class_names = tuple(c.name for c in classes)
    tensor_classes = tuple(c.name for c in classes if c.kind == "tensor")
    n_modes: int = draw(_N_MODES)
    mode_names = MODE_NAMES[:n_modes]
    actions = mode_actions(generation, mode_names, tensor_classes, FORWARD_ADD in features)
    modes = tuple(
        ModeDecl(name, Behaviour(draw(actions), draw(_overrides(actions, mode=True))),
            classmethod_handler=generation == "stack" and draw(_ONE_IN_TWELVE) == 0)
        for name in mode_names
    )
    length: int = draw(_SETUP_LENGTHS if mode_names else _SETUP_LENGTHS_NO_MODES)
    step = _steps(generation, mode_names, tensor_classes, "disable-subclass" in features)
    setup = tuple(draw(step) for _ in range(length))
    functions: tuple[PyFuncDecl, ...] = ()
    # About as often as a function of the vocabulary, one of its own (on the Python path).
    if "python-path" in features and draw(_ONE_IN_TEN) < 4:
        function, call = draw(defined_calls(class_names))
        functions = (function,)
    elif "syntax" in features and draw(_ONE_IN_TEN) < 2:  # a call written as syntax
        call = draw(form_calls(class_names, tensor_classes,
                               tuple(sorted(FORM_FEATURES & frozenset(features)))))
    else:
        call = draw(calls(class_names, tensor_classes))
    if draw(_ONE_IN_TEN) == 0:
        call = Call(call.func, call.args, call.kwargs, thread=True)
    return Scenario(generation, tuple(classes), modes, setup, call, functions=functions)


@functools.cache
def _steps(generation: Generation, modes: tuple[str, ...], classes: tuple[str, ...],
           disable_subclass: bool = True) -> st.SearchStrategy[Step]:
    # Installing a mode comes first: hypothesis draws the first option more often than the rest.
    options: list[st.SearchStrategy[Step]] = []
    if modes and generation == "stack":
        options += [st.builds(Enter, st.sampled_from(modes))] * 6
        options.append(st.builds(Construct, st.sampled_from(modes)))
    if modes and generation == "2022":
        options += [st.builds(Push, st.sampled_from(modes))] * 6
        specials = ("@object", "@nohandler", *(f"@class:{m}" for m in modes))
        targets = st.sampled_from((*modes, *modes, *classes, None, *specials))
        options += [st.builds(Enable, targets, st.sampled_from((None, *modes, *classes)),
                              st.booleans())] * 3
        # One mode instance over another, naming it as the one replaced (TFM_ENABLE_005).
        options += [st.builds(Enable, st.sampled_from(modes), st.sampled_from(modes),
                              st.just(False))] * 2
        options.append(st.builds(Push, st.sampled_from(modes),
                                 st.sampled_from(["instance", "bad_ctor"])))
        options.append(st.builds(SetRaw, st.sampled_from((*modes, *classes, None))))
        options.append(st.builds(Construct, st.sampled_from(modes)))
    options.append(st.builds(Disable, st.just(False)))
    if generation == "stack" and disable_subclass:
        options.append(st.builds(Disable, st.just(True)))
    return st.one_of(options)


@functools.cache
def calls(classes: tuple[str, ...], tensor_classes: tuple[str, ...]) -> st.SearchStrategy[Call]:
    """A call of any function, with tensors positional, keyword, or in lists."""
    return _calls(classes, tensor_classes)


_FUNCS = st.sampled_from(ORDERED_FUNCS)
_BOOLEANS = st.booleans()
_ALPHAS = st.integers(-2, 3)
_SIZES = st.lists(st.integers(0, 3), min_size=1, max_size=2)
_SPLIT_SIZES = st.integers(1, 2)
_CONSTS = st.sampled_from([Const(None), Const(3)])


@functools.cache
def _first_keyword(params: int, method: bool) -> st.SearchStrategy[int]:
    return st.sampled_from((params, params, 1, 0) if not method else (params, 1))


class _CallParts:
    """The strategies one call draws its arguments from, for one set of classes."""

    def __init__(self, classes: tuple[str, ...], tensor_classes: tuple[str, ...]) -> None:
        self.tensor = st.sampled_from((*classes, None, *classes)).map(TensorArg)
        self.true_tensor = st.sampled_from((None, *tensor_classes)).map(TensorArg)
        self.tensor_lists = st.lists(self.tensor, min_size=1, max_size=4)
        self.anything = st.one_of(self.tensor, _CONSTS)
        self.anything_lists = st.lists(self.anything, max_size=3)


@functools.cache
def _call_parts(classes: tuple[str, ...], tensor_classes: tuple[str, ...]) -> _CallParts:
    return _CallParts(classes, tensor_classes)


@st.composite
def _calls(draw: st.DrawFn, classes: tuple[str, ...], tensor_classes: tuple[str, ...]) -> Call:
    """A call of any function, with tensors positional, keyword, or in lists."""
    parts = _call_parts(classes, tensor_classes)
    tensor, true_tensor = parts.tensor, parts.true_tensor
    func = draw(_FUNCS)
    info = FUNCS[func]
    if info.shape in ("binary", "unary"):
        params = ("input", "other")[: 2 if info.shape == "binary" else 1]
        first_keyword: int = draw(_first_keyword(len(params), info.method))
        first_keyword = min(first_keyword, len(params))
        values = [draw(true_tensor if info.method and i == 0 else tensor)
                  for i, _ in enumerate(params)]
        args: tuple[Arg, ...] = tuple(values[:first_keyword])
        kwargs: list[tuple[str, Arg]] = list(zip(params[first_keyword:], values[first_keyword:],
                                                 strict=True))
        if info.alpha and draw(_BOOLEANS):
            kwargs.append(("alpha", Const(draw(_ALPHAS))))
        return Call(func, args, tuple(kwargs))
    if info.shape == "list":
        return Call(func, (ListArg(tuple(draw(parts.tensor_lists))),))
    if info.shape == "sizes":
        return Call(func, tuple(Const(n) for n in draw(_SIZES)))
    if info.shape == "split":
        return Call(func, (draw(tensor), Const(draw(_SPLIT_SIZES))))
    items = tuple(draw(parts.anything_lists))
    if info.shape == "probe_seq":
        return Call(func, (ListArg(items),))
    if info.shape == "probe_one":
        return Call(func, (draw(parts.anything),))
    return Call(func, items)


#: The features that draw syntactic forms (each form's :attr:`~spec.model.functions.FormInfo.feature`).
FORM_FEATURES = frozenset(form.feature for form in FORMS.values())
_INDEXES = st.sampled_from((0, 1))
_LEFT_OPERANDS = st.sampled_from((2, -1))


@functools.cache
def form_calls(classes: tuple[str, ...], tensor_classes: tuple[str, ...],
               features: tuple[str, ...] = ("syntax",)) -> st.SearchStrategy[Call]:
    """A call written as a syntactic form (:data:`spec.model.functions.FORMS`), one of those
    of ``features``: its tensor a plain one or of a Tensor subclass, the other operand of
    ``x + y`` any tensor, an index 0 or 1, a constant 2 or -1."""
    names = tuple(name for name, form in FORMS.items() if form.feature in features)
    if not names:
        raise ValueError(f"no syntactic form belongs to the features {features}")
    return _form_calls(classes, tensor_classes, st.sampled_from(names))


@st.composite
def _form_calls(draw: st.DrawFn, classes: tuple[str, ...], tensor_classes: tuple[str, ...],
                names: st.SearchStrategy[str]) -> Call:
    parts = _call_parts(classes, tensor_classes)
    name = draw(names)
    first = draw(parts.true_tensor)
    kind = FORMS[name].kind
    if FORMS[name].takes == 1:
        return Call(name, (first,))
    if kind in ("infix", "inplace"):
        return Call(name, (first, draw(parts.tensor)))
    if kind == "reflected":
        return Call(name, (first, Const(draw(_LEFT_OPERANDS))))
    if kind == "assign":  # x[k] = c
        return Call(name, (first, Const(draw(_INDEXES)), Const(draw(_LEFT_OPERANDS))))
    return Call(name, (first, Const(draw(_INDEXES))))  # an index


_PARAM_COUNTS = st.sampled_from((2, 3, 3, 1))
_PARAM_KINDS = st.sampled_from(("tensor", "tensor", "list", "tensor", "constant", "mixed list",
                                "tensor"))
_KEYWORDS = st.sampled_from((0, 0, 1, 2))
_WHOLE_OR_SPREAD = st.sampled_from(("spread", "spread", "spread", "whole", "left out"))
_IN_OR_OUT = st.sampled_from(("in", "in", "in", "in", "in", "left out"))
_SEQUENCE_OR_VARIADIC: st.SearchStrategy[Probe] = st.sampled_from(("sequence", "variadic"))


@functools.cache
def _rotated(classes: tuple[str, ...], start: int) -> st.SearchStrategy[TensorArg]:
    """A tensor-like argument whose most likely class differs from one parameter to the next."""
    turned = classes[start % len(classes):] + classes[:start % len(classes)] if classes else ()
    return st.sampled_from((*turned, None, *turned)).map(TensorArg)


@functools.cache
def defined_calls(classes: tuple[str, ...]) -> st.SearchStrategy[tuple[PyFuncDecl, Call]]:
    """A function the scenario defines in Python (one to three parameters, each a tensor-like,
    a constant or a list; some or all of them relevant, lists spread or whole) and its call."""
    return _defined_calls(classes)


@st.composite
def _defined_calls(draw: st.DrawFn, classes: tuple[str, ...]) -> tuple[PyFuncDecl, Call]:
    parts = _call_parts(classes, ())
    params: int = draw(_PARAM_COUNTS)
    args: list[Arg] = []
    relevant: list[str] = []
    for name in PARAMS[:params]:
        kind = draw(_PARAM_KINDS)
        if kind in ("list", "mixed list"):
            one = _rotated(classes, len(args)) if kind == "list" else parts.anything
            items = tuple(draw(st.lists(one, min_size=kind == "list", max_size=3)))
            args.append(ListArg(items))
            how = draw(_WHOLE_OR_SPREAD)
            if how != "left out":
                relevant.append(f"*{name}" if how == "spread" else name)
            continue
        args.append(draw(_CONSTS) if kind == "constant" else draw(_rotated(classes, len(args))))
        if draw(_IN_OR_OUT) == "in":
            relevant.append(name)
    probe: Probe = draw(_SEQUENCE_OR_VARIADIC)
    if len(relevant) == 1 and not relevant[0].startswith("*") and draw(_BOOLEANS):
        probe = "unary"
    keywords = min(draw(_KEYWORDS), params - 1)
    decl = PyFuncDecl("foo", params, tuple(relevant), probe, keywords)
    return decl, Call("foo", tuple(args))
