"""Every scenario of a :class:`~.scope.Scope`, one of each renaming.

A scenario's modes and classes are only names: renaming them (and reordering their
declarations to match) changes nothing a rule says. :func:`scenarios` yields a scenario only
when it is *canonical* — its modes and classes appear first, in the order the scenario uses
them, as ``M, N, P`` and ``A, B, C`` — and uses every one it declares (a declaration nothing
uses changes nothing either). Every scenario of the scope is a renaming of exactly one
canonical scenario with the unused declarations left out (``tests/test_exhaustive.py`` checks
this against a brute force on small scopes).
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterator

from spec.model.functions import FAMILY_ORDER, FORMS, FUNCS, may_redispatch
from spec.model.scenario import (
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
    Generation,
    ListArg,
    ModeDecl,
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

from .scope import Scope
from .symmetry import CLASS_NAMES, MODE_NAMES, canonical

#: The int a handler that answers returns (any will do: the model and the run compare it).
ANSWER = 7


def scenarios(scope: Scope, generation: Generation, features: frozenset[str] = frozenset(),
              reduce: bool = True) -> Iterator[Scenario]:
    """The canonical scenarios of ``scope`` for ``generation``, in a fixed order.

    ``features``: the implementation's optional features (a syntactic form is called only
    where its feature is; ``DisableTorchFunctionSubclass`` only with ``disable-subclass``).
    ``reduce=False``: every scenario of the scope, renamings and unused declarations too (what
    the reduction is tested against)."""
    functions = [f for f in scope.functions if f in FUNCS or FORMS[f].feature in features]
    for n_classes in range(scope.classes + 1):
        for classes in _class_sets(scope, n_classes):
            names = tuple(c.name for c in classes)
            tensors = tuple(c.name for c in classes if c.kind == "tensor")
            for func in functions:
                calls = list(_calls(scope, func, names, tensors))
                for n_modes in range(scope.modes + 1):
                    modes_names = MODE_NAMES[:n_modes]
                    steps = _steps(generation, modes_names, tensors, "disable-subclass" in features)
                    setups = [s for n in range(scope.setup + 1) for s in itertools.product(steps, repeat=n)]
                    # Without a handler that enters a mode, the set-up and the call alone decide
                    # whether a scenario is canonical: decided once for each pair.
                    pairs = [(setup, call) for setup in setups for call in calls
                             if canonical(Scenario(generation, classes, _unused(modes_names), setup, call))]
                    for modes in _mode_sets(scope, generation, modes_names, tensors, func):
                        if not reduce or any(_nests(m) for m in modes):
                            for setup in setups:
                                for call in calls:
                                    scenario = Scenario(generation, classes, modes, setup, call)
                                    if not reduce or canonical(scenario):
                                        yield scenario
                            continue
                        for setup, call in pairs:
                            yield Scenario(generation, classes, modes, setup, call)


@functools.lru_cache(maxsize=2)
def enumerated(scope: Scope, generation: Generation,
               features: frozenset[str] = frozenset()) -> tuple[Scenario, ...]:
    """:func:`scenarios`, made once per process and kept: a run checks its scope in chunks (its
    tests), each of which takes every n-th scenario, and enumerating the default scope costs
    about 1.5 s of CPU time each time (50,000 scenarios take about 9 MB)."""
    return tuple(scenarios(scope, generation, features))


def _unused(names: tuple[str, ...]) -> tuple[ModeDecl, ...]:
    """Modes named ``names`` whose handlers enter no mode (their use is their set-up's)."""
    return tuple(ModeDecl(name, Behaviour(Forward())) for name in names)


def _nests(mode: ModeDecl) -> bool:
    return any(isinstance(a, (PushInside, EnableInside))
               for a in (mode.behaviour.default, *(a for _, a in mode.behaviour.on)))


def _class_sets(scope: Scope, n: int) -> Iterator[tuple[ClassDecl, ...]]:
    if n == 0:
        yield ()
        return
    for rest in _class_sets(scope, n - 1):
        yield from (rest + (decl,) for decl in _classes(scope, CLASS_NAMES[n - 1], rest))


def _classes(scope: Scope, name: str, earlier: tuple[ClassDecl, ...]) -> Iterator[ClassDecl]:
    parents = ["Tensor", *(c.name for c in earlier if c.kind == "tensor")]
    actions = list(_subclass_actions(scope))
    for parent in parents:
        for action in actions:
            yield ClassDecl(name, parent, "tensor", "classmethod", Behaviour(action))
            yield ClassDecl(name, parent, "tensor", "plain", Behaviour(action))
        yield ClassDecl(name, parent, "tensor", "inherit")
        yield ClassDecl(name, parent, "tensor", "disabled")
    duck = [a for a in actions if isinstance(a, (Return, NotImpl, Raise))]
    for action in duck:
        yield ClassDecl(name, "object", "duck", "classmethod", Behaviour(action))
        yield ClassDecl(name, "object", "duck", "plain", Behaviour(action))


def _subclass_actions(scope: Scope) -> Iterator[Action]:
    b = scope.behaviours
    if "forward" in b:
        yield Forward(disable=True)
    if "notimpl" in b:
        yield NotImpl()
    if "return" in b:
        yield Return(ANSWER)
    if "raise" in b:
        yield Raise("boom")
    if "typeerror" in b:
        yield Raise("boom", "TypeError")
    if "default" in b:
        yield Default()


def _mode_actions(scope: Scope, modes: tuple[str, ...]) -> list[Action]:
    b = scope.behaviours
    simple: list[Action] = []
    simple += [Forward()] if "forward" in b else []
    simple += [NotImpl()] if "notimpl" in b else []
    simple += [Return(ANSWER)] if "return" in b else []
    simple += [Raise("boom")] if "raise" in b else []
    simple += [Raise("boom", "TypeError")] if "typeerror" in b else []
    simple += [Default()] if "default" in b else []
    simple += [DeferToTypes()] if "defer" in b else []
    pushes: list[Action] = [PushInside(m, Forward()) for m in modes] if "push" in b else []
    return simple + pushes


def _mode_sets(scope: Scope, generation: Generation, names: tuple[str, ...],
               tensors: tuple[str, ...], func: str) -> Iterator[tuple[ModeDecl, ...]]:
    del tensors
    behaviours = [Behaviour(a) for a in _mode_actions(scope, names)]
    # A redispatch is the call's own function handing over to a later one of its family.
    family = FUNCS[func].family if func in FUNCS else ""
    for target in (t for t in FAMILY_ORDER.get(family, ()) if may_redispatch(func, t)):
        for reenter in (False, True):
            if ("reenter" if reenter else "redispatch") in scope.behaviours:
                behaviours.append(Behaviour(Forward(), ((func, Redispatch(target, reenter)),)))
    kinds = (False, True) if generation == "stack" else (False,)
    one = [ModeDecl(name, b, c) for name in names for b in behaviours for c in kinds]
    per_name = [[d for d in one if d.name == name] for name in names]
    yield from itertools.product(*per_name)


def _steps(generation: Generation, modes: tuple[str, ...], tensors: tuple[str, ...],
           disable_subclass: bool) -> list[Step]:
    steps: list[Step] = []
    if generation == "stack":
        steps += [Enter(m) for m in modes] + [Construct(m) for m in modes]
        steps.append(Disable())
        if disable_subclass:
            steps.append(Disable(subclass_only=True))
        return steps
    steps += [Push(m) for m in modes]
    steps += [Push(m, how) for m in modes for how in ("instance", "bad_ctor")]
    targets: list[str | None] = [*modes, *tensors, None, "@object", "@nohandler",
                                 *(f"@class:{m}" for m in modes)]
    steps += [Enable(t, None, ignore) for t in targets for ignore in (False, True)]
    steps += [Enable(m, other) for m in modes for other in modes]
    steps += [SetRaw(t) for t in (*modes, *tensors, None)]
    steps += [Construct(m) for m in modes]
    steps.append(Disable())
    return steps


def _calls(scope: Scope, func: str, classes: tuple[str, ...], tensors: tuple[str, ...]) -> Iterator[Call]:
    anyone: list[Arg] = [TensorArg(None), *(TensorArg(c) for c in classes)]
    true: list[Arg] = [TensorArg(None), *(TensorArg(c) for c in tensors)]
    if func in FORMS:
        yield from _form_calls(func, anyone, true)
        return
    info = FUNCS[func]
    if info.shape in ("binary", "unary"):
        params = ("input", "other")[: 2 if info.shape == "binary" else 1]
        choices = [true if info.method and i == 0 else anyone for i in range(len(params))]
        splits = range(len(params) + 1) if scope.keywords else [len(params)]
        for operands in itertools.product(*choices):
            for first_keyword in splits:
                if info.method and first_keyword == 0:
                    continue  # a method's self is never a keyword
                args = tuple(operands[:first_keyword])
                kwargs = tuple(zip(params[first_keyword:], operands[first_keyword:], strict=True))
                yield Call(func, args, kwargs)
                if info.alpha and scope.keywords:
                    yield Call(func, args, (*kwargs, ("alpha", Const(2))))
    elif info.shape == "list":
        for n in range(1, scope.args + 1):
            for items in itertools.product(anyone, repeat=n):
                yield Call(func, (ListArg(tuple(items)),))
    elif info.shape == "sizes":
        yield Call(func, (Const(2),))
    elif info.shape == "split":
        for tensor in anyone:
            yield Call(func, (tensor, Const(1)))
    else:  # the has_torch_function family
        values: list[Arg] = [*anyone, Const(None)]
        if info.shape == "probe_one":
            yield from (Call(func, (v,)) for v in values)
            return
        for n in range(scope.args + 1):
            for chosen in itertools.product(values, repeat=n):
                yield Call(func, (ListArg(chosen),) if info.shape == "probe_seq" else chosen)


def _form_calls(name: str, anyone: list[Arg], true: list[Arg]) -> Iterator[Call]:
    form = FORMS[name]
    for first in true:
        if form.takes == 1:
            yield Call(name, (first,))
        elif form.kind in ("infix", "inplace"):
            yield from (Call(name, (first, other)) for other in anyone)
        elif form.kind == "reflected":
            yield Call(name, (first, Const(2)))
        elif form.kind == "assign":
            yield Call(name, (first, Const(0), Const(2)))
        else:
            yield Call(name, (first, Const(0)))
