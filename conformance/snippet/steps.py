"""Writes a script that replays the steps of a stateful run on one implementation, one by one.

Used where the scenario language cannot express the steps (an out-of-order exit, the exit of
a mode never entered): the script declares the run's modes and classes as a scenario's script
does, builds the up-front mode instances, then enters, exits and calls in the run's order,
printing after every step what it returned or raised and the current mode (the whole mode
stack, in the stack generation). The step where the implementation departs from the
specification is marked, and what the specification expects there is written above it.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from spec.model.functions import tensor_data
from spec.model.scenario import Scenario, TensorArg

from ..generate.steps import CALL_ARGS, Op, listing
from .prelude import HELPERS
from .script import ScriptWriter

__all__ = ["steps_snippet"]

_REPLAY = '''

UPFRONT = {{}}
blocks = []


def which(obj):
    """A mode as the steps name it: an up-front instance by its variable, any other by its class."""
    for name, known in UPFRONT.items():
        if obj is known:
            return name
    return "None" if obj is None else f"{{label(obj)}} (made by a step)"


def report():
    {report}


def enter(text, make):
    print(text)
    try:
        block = make()
        block.__enter__()
    except Exception as exc:
        print(f"  raised {{type(exc).__name__}}: {{exc}}")
    else:
        blocks.append(block)
        print("  entered")
    report()


def leave(text, index):
    print(text)
    try:
        blocks.pop(index).__exit__(None, None, None)
    except Exception as exc:
        print(f"  raised {{type(exc).__name__}}: {{exc}}")
    else:
        print("  exited")
    report()


def leave_unentered(text, mode):
    print(text)
    try:
        mode.__exit__(None, None, None)
    except Exception as exc:
        print(f"  raised {{type(exc).__name__}}: {{exc}}")
    else:
        print("  exited")
    report()


def call(text, make):
    print(text)
    try:
        print(f"  returned {{observe(make())}}")
    except Exception as exc:
        print(f"  raised {{type(exc).__name__}}: {{exc}}")
    report()
'''


class StepsWriter(ScriptWriter):
    """The script of a lockstep run's ``steps``, over ``sc``'s declarations."""

    def __init__(self, sc: Scenario, impl: str, generation: str, modes: tuple[str, ...],
                 steps: tuple[Op, ...], why: str, divergence: Sequence[str]) -> None:
        entered = tuple(op.step for op in steps if op.kind == "enter" and op.step is not None)
        super().__init__(Scenario(sc.generation, sc.classes, sc.modes, entered, None,
                                  functions=sc.functions), impl, generation)
        self.upfront, self.steps, self.why, self.divergence = modes, steps, why, divergence

    def title(self) -> Iterator[str]:
        yield (f'"""Replays the steps of a tfmode-conformance stateful run on {self.where()} '
               f'(generation {self.gen})."""')
        yield f"# The steps, as the run took them: {listing(self.steps)}"
        yield f"# (No scenario reproduces them: {self.why}.)"
        yield "# Where the implementation departs from the specification (the last step):"
        yield from (f"#   {line}" for line in self.divergence)

    def replay(self) -> Iterator[str]:
        if self.gen == "stack":
            stack = "ad.mode_stack()" if self.adapter_style else \
                "torch.overrides._get_current_function_mode_stack()"
            shown = f'print(f"  mode stack: {{[which(m) for m in {stack}]}}")'
        else:
            shown = 'print(f"  current mode: {which(current_mode())}")'
        yield from _REPLAY.format(report=shown).splitlines()
        yield ""
        yield ""
        yield 'warnings.simplefilter("always")'
        yield "warnings.showwarning = warned"
        for name in self.upfront:
            yield f"{self.obj(name)} = {self.make_mode(name)}"
            yield f'UPFRONT["{self.obj(name)}"] = {self.obj(name)}'
        for number, op in enumerate(self.steps, 1):
            text = f"step {number}: {op.label}"
            mark = "  # <- where the implementation departs" if number == len(self.steps) else ""
            yield f"{self._op(op, text)}{mark}"

    def _op(self, op: Op, text: str) -> str:
        if op.kind == "enter" and op.step is not None:
            return f"enter({text!r}, lambda: {self.step(op.step)})"
        if op.kind == "exit":
            return f"leave({text!r}, {op.index})"
        if op.kind == "exit_unentered":
            return f"leave_unentered({text!r}, {self.obj(op.mode)})"
        tensors = iter(range(len(CALL_ARGS[op.func])))
        args = [f"torch.tensor({list(tensor_data(next(tensors)))!r})" if isinstance(a, TensorArg)
                else repr(a.value) for a in CALL_ARGS[op.func]]
        return f"call({text!r}, lambda: {self.call(op.func, args, [])})"

    def script(self) -> str:
        lines = [*self.header(), *HELPERS.splitlines(), *self.extras(), *self.class_decls(),
                 *self.mode_decls(), *self.function_decls(), *self.replay()]
        return "\n".join(lines) + "\n"


def steps_snippet(scenario: Scenario, modes: tuple[str, ...], steps: tuple[Op, ...],
                  impl_spec: str, generation: str, why: str, divergence: Sequence[str]) -> str:
    """A runnable script that replays ``steps`` (over ``scenario``'s declarations, with up-front
    instances of ``modes``) on ``impl_spec`` and prints what each step does; ``why`` no
    scenario reproduces them, ``divergence`` what the specification expects at the last step."""
    return StepsWriter(scenario, impl_spec, generation, modes, steps, why, divergence).script()
