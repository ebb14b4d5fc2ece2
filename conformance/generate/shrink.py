"""Greedy structural shrinking of a scenario while a predicate keeps holding."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import replace

from spec.model.scenario import (
    Action,
    Behaviour,
    Call,
    ClassDecl,
    Const,
    EnableInside,
    Forward,
    ListArg,
    NotImpl,
    PushInside,
    Redispatch,
    Return,
    Scenario,
    TensorArg,
)
from spec.model.validate import ScenarioError, validate


def shrink(scenario: Scenario, holds: Callable[[Scenario], bool], budget: int = 400,
           deadline: float | None = None) -> Scenario:
    """The smallest scenario reachable by single simplifications for which ``holds`` stays true
    (or the smallest found by ``deadline``, a ``time.monotonic()`` value)."""
    best, tried = scenario, 0
    progress = True
    while progress and tried < budget and (deadline is None or time.monotonic() < deadline):
        progress = False
        for candidate in _candidates(best):
            try:
                validate(candidate)
            except ScenarioError:
                continue
            tried += 1
            if holds(candidate):
                best, progress = candidate, True
                break
            if tried >= budget or (deadline is not None and time.monotonic() >= deadline):
                break
    return best


def _simpler_actions(action: Action) -> Iterator[Action]:
    if isinstance(action, (PushInside, EnableInside)):
        yield action.then
    if isinstance(action, Redispatch) and action.reenter:
        yield replace(action, reenter=False)
    for simple in (NotImpl(), Return(0), Forward()):
        if action != simple:
            yield simple
    if isinstance(action, Return) and action.value != 0:
        yield Return(0)


def _simpler_behaviours(b: Behaviour) -> Iterator[Behaviour]:
    for i in range(len(b.on)):
        yield Behaviour(b.default, b.on[:i] + b.on[i + 1:])
    for action in _simpler_actions(b.default):
        yield Behaviour(action, b.on)
    for i, (name, action) in enumerate(b.on):
        for simpler in _simpler_actions(action):
            yield Behaviour(b.default, b.on[:i] + ((name, simpler),) + b.on[i + 1:])


def _simpler_args(args: tuple[object, ...]) -> Iterator[tuple[object, ...]]:
    for i, arg in enumerate(args):
        if isinstance(arg, TensorArg) and arg.cls is not None:
            yield args[:i] + (TensorArg(None),) + args[i + 1:]
        if isinstance(arg, ListArg):
            for j in range(len(arg.items)):
                yield args[:i] + (ListArg(arg.items[:j] + arg.items[j + 1:]),) + args[i + 1:]
            for inner in _simpler_args(arg.items):
                yield args[:i] + (ListArg(inner),) + args[i + 1:]  # type: ignore[arg-type]


def _simpler_calls(call: Call) -> Iterator[Call]:
    if call.thread:
        yield replace(call, thread=False)
    for args in _simpler_args(call.args):
        yield replace(call, args=args)  # type: ignore[arg-type]
    keys = [k for k, _ in call.kwargs]
    values = tuple(v for _, v in call.kwargs)
    if "alpha" in keys:
        yield replace(call, kwargs=tuple(kv for kv in call.kwargs if kv[0] != "alpha"))
    for shrunk in _simpler_args(values):
        yield replace(call, kwargs=tuple(zip(keys, shrunk, strict=True)))  # type: ignore[arg-type]
    if call.kwargs and all(isinstance(v, (TensorArg, Const)) for v in values):
        yield replace(call, args=call.args + values, kwargs=())


def _candidates(s: Scenario) -> Iterator[Scenario]:
    for i in range(len(s.setup)):
        yield replace(s, setup=s.setup[:i] + s.setup[i + 1:])
    for i in range(len(s.modes)):
        yield replace(s, modes=s.modes[:i] + s.modes[i + 1:])
    for i in range(len(s.classes)):
        yield replace(s, classes=s.classes[:i] + s.classes[i + 1:])
    if s.call is not None:
        for call in _simpler_calls(s.call):
            yield replace(s, call=call)
    for i, mode in enumerate(s.modes):
        for b in _simpler_behaviours(mode.behaviour):
            yield replace(s, modes=s.modes[:i] + (replace(mode, behaviour=b),) + s.modes[i + 1:])
    for i, cls in enumerate(s.classes):
        options: list[ClassDecl] = []
        if cls.parent != "Tensor" and cls.kind == "tensor":
            options.append(replace(cls, parent="Tensor"))
        if cls.handler == "plain":
            options.append(replace(cls, handler="classmethod"))
        if cls.behaviour is not None:
            options += [replace(cls, behaviour=b) for b in _simpler_behaviours(cls.behaviour)]
        for option in options:
            yield replace(s, classes=s.classes[:i] + (option,) + s.classes[i + 1:])
