"""Symmetry reduction: which scenario of a renaming class is the one enumerated.

The order in which a scenario *uses* its modes and classes does not depend on their names:
the set-up steps in order, then the call's arguments (a class after its ancestors), then the
handlers of the modes in the order they were first used (a mode a handler enters is used
there). A scenario is canonical when that order is its declaration order, the declarations
are named ``M, N, P`` and ``A, B, C, D`` in that order, and every declaration is used.
"""

from __future__ import annotations

from spec.model.scenario import (
    Action,
    Arg,
    Construct,
    Enable,
    EnableInside,
    Enter,
    ListArg,
    Push,
    PushInside,
    Scenario,
    SetRaw,
    Step,
    TensorArg,
)

MODE_NAMES = ("M", "N", "P")
CLASS_NAMES = ("A", "B", "C", "D")


class _Order:
    """The modes and the classes of one scenario, in the order it uses them."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.modes: list[str] = []
        self.classes: list[str] = []
        self.mode_names = {m.name for m in scenario.modes}
        self.parents = {c.name: c.parent for c in scenario.classes}

    def name(self, name: str | None) -> None:
        if name is None:
            return
        if name.startswith("@class:"):
            name = name[len("@class:"):]
        if name in self.mode_names:
            if name not in self.modes:
                self.modes.append(name)
        elif name in self.parents:
            self.cls(name)

    def cls(self, name: str) -> None:
        parent = self.parents.get(name)
        if parent is not None and parent in self.parents:
            self.cls(parent)
        if name not in self.classes:
            self.classes.append(name)

    def step(self, step: Step) -> None:
        if isinstance(step, (Push, Construct, Enter)):
            self.name(step.mode)
        elif isinstance(step, Enable):
            self.name(step.target)
            self.name(step.replace)
        elif isinstance(step, SetRaw):
            self.name(step.target)

    def arg(self, arg: Arg) -> None:
        if isinstance(arg, TensorArg) and arg.cls is not None:
            self.cls(arg.cls)
        elif isinstance(arg, ListArg):
            for item in arg.items:
                self.arg(item)

    def action(self, action: Action) -> None:
        while isinstance(action, (PushInside, EnableInside)):
            self.name(action.mode)
            if isinstance(action, EnableInside):
                self.name(action.replace)
            action = action.then


def use_order(scenario: Scenario) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The scenario's modes and classes in the order it uses them (unused ones left out)."""
    order = _Order(scenario)
    for step in scenario.setup:
        order.step(step)
    if scenario.call is not None:
        for arg in (*scenario.call.args, *(v for _, v in scenario.call.kwargs)):
            order.arg(arg)
    done = 0
    while done < len(order.modes):  # a mode's handler may use a mode not used before
        decl = scenario.mode_named(order.modes[done])
        done += 1
        if decl is not None:
            for action in (decl.behaviour.default, *(a for _, a in decl.behaviour.on)):
                order.action(action)
    return tuple(order.modes), tuple(order.classes)


def canonical(scenario: Scenario) -> bool:
    """Whether ``scenario`` is the one of its renaming class that is enumerated."""
    modes = tuple(m.name for m in scenario.modes)
    classes = tuple(c.name for c in scenario.classes)
    if modes != MODE_NAMES[:len(modes)] or classes != CLASS_NAMES[:len(classes)]:
        return False
    return use_order(scenario) == (modes, classes)
