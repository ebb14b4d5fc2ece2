"""The steps of a stateful (lockstep) run, and the scenario they amount to where there is one.

A scenario (:mod:`spec.model.scenario`) enters nested blocks, makes at most one call at the
innermost point and exits every block innermost first; a stateful run may also exit blocks out
of order, exit a mode it never entered, and call several times. :func:`as_scenario` gives the
scenario of the blocks open when the run diverged and the step where it did, or ``None`` where
the scenario language cannot express that step; whether that scenario reproduces the
divergence is for the caller to check by running it (the calls and blocks it leaves out may
have mattered).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from spec.model.scenario import Call, Const, Scenario, Step, TensorArg

__all__ = ["CALL_ARGS", "Op", "as_scenario", "listing", "why_not"]

OpKind = Literal["enter", "exit", "call", "exit_unentered"]

#: The arguments a lockstep call passes, as a scenario's call passes them.
CALL_ARGS: dict[str, tuple[TensorArg | Const, ...]] = {
    "add": (TensorArg(), TensorArg()), "sub": (TensorArg(), TensorArg()), "ones": (Const(2),)}


@dataclass(frozen=True)
class Op:
    """One step of a lockstep run, as its ``label`` says it.

    ``enter``: enter the block of set-up ``step`` (``opened`` once both sides entered it);
    ``exit``: exit open block ``index`` (0 is the outermost); ``call``: call ``func``;
    ``exit_unentered``: exit ``mode``, which no block entered.
    """

    kind: OpKind
    label: str
    step: Step | None = None
    index: int = 0
    func: str = ""
    mode: str = ""
    opened: bool = False

    def entered(self) -> Op:
        return replace(self, opened=True)


def listing(steps: tuple[Op, ...]) -> str:
    """The steps on one line: ``1. push M; 2. call add``."""
    return "; ".join(f"{i}. {op.label}" for i, op in enumerate(steps, 1)) or "(none)"


def why_not(steps: tuple[Op, ...]) -> str | None:
    """Why :func:`as_scenario` has no scenario for ``steps`` (``None``: it has one)."""
    if not steps:
        return "the run diverged before its first step"
    last = steps[-1]
    if last.kind == "exit_unentered":
        return "a scenario cannot exit a mode it never entered"
    opened = sum(op.kind == "enter" and op.opened for op in steps[:-1]) - sum(
        op.kind == "exit" for op in steps[:-1])
    if last.kind == "exit" and last.index != opened - 1:
        return "a scenario exits its blocks innermost first, and this step exits another one"
    if last.kind == "call" and last.func not in CALL_ARGS:
        return f"a call of {last.func} is not one the scenario can make"
    return None


def as_scenario(base: Scenario, steps: tuple[Op, ...]) -> Scenario | None:
    """The scenario of ``base``'s declarations whose set-up steps are the blocks open at the
    last of ``steps``, and which ends with that step: entering a block (entered last), calling
    (the call), or exiting the innermost block (exiting every block, the scenario's end).
    ``None`` where the scenario language cannot express the last step (:func:`why_not`)."""
    if why_not(steps) is not None:
        return None
    blocks: list[Step] = []
    for op in steps[:-1]:
        if op.kind == "enter" and op.opened and op.step is not None:
            blocks.append(op.step)
        elif op.kind == "exit":
            blocks.pop(op.index)
    last = steps[-1]
    call = None
    if last.kind == "enter" and last.step is not None:
        blocks.append(last.step)
    elif last.kind == "call":
        call = Call(last.func, CALL_ARGS[last.func])
    return Scenario(base.generation, base.classes, base.modes, tuple(blocks), call,
                    functions=base.functions)
