"""Plans of the generated device-context tests (conformance/suite/test_ownmodes.py), and the
adapter script that replays one.

A plan is a sequence of set-up steps around one probe call of the factory ``ones``: an optional
``set_default_device`` first, user modes entered below, an optional ``set_default_device``
inside them, nested ``with device(...)`` blocks, user modes entered above the blocks, then
``ones(2)`` with or without an explicit ``device=``. What each state must look like follows
from the OWNMODE rules and is computed here, with no call into the implementation.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

DEVICES = ("cpu", "meta")
#: The device the factories create on when nothing is set.
INITIAL = "cpu"
#: The explicit device the probe passes when ``explicit``.
EXPLICIT = "cpu"


@dataclass(frozen=True)
class Plan:
    default: str | None  # set_default_device(default) before anything else
    below: int  # user modes entered first, B0 outermost
    set_in_modes: str | None  # set_default_device(...) inside the `below` modes' blocks
    blocks: tuple[str, ...]  # nested `with device(d)` blocks, outermost first
    above: int  # user modes entered inside the innermost block, A0 outermost
    explicit: bool  # the probe is ones(2, device=EXPLICIT) rather than ones(2)

    @property
    def setting(self) -> str | None:
        """The device set_default_device last set (None: nothing set)."""
        return self.set_in_modes if self.set_in_modes is not None else self.default

    def base_stack(self) -> list[str]:
        """The stack once the user modes below are entered and the setting is made."""
        bottom = [] if self.setting is None else [f"device:{self.setting}"]
        return bottom + [f"B{i}" for i in range(self.below)]

    def block_stack(self, depth: int) -> list[str]:
        """The stack inside the first ``depth`` blocks (no mode above entered yet)."""
        return self.base_stack() + [f"device:{d}" for d in self.blocks[:depth]]

    def full_stack(self) -> list[str]:
        return self.block_stack(len(self.blocks)) + [f"A{i}" for i in range(self.above)]

    def factory_device(self, depth: int) -> str:
        """Where ones(...) without device= creates inside the first ``depth`` blocks."""
        if depth:
            return self.blocks[depth - 1]
        return self.setting or INITIAL

    def probe_device(self) -> str:
        return EXPLICIT if self.explicit else self.factory_device(len(self.blocks))

    def seen_above(self) -> dict[str, str]:
        """The keywords of the probe as a mode above every device context sees them."""
        return {"device": EXPLICIT} if self.explicit else {}

    def seen_below(self) -> dict[str, str]:
        """The keywords a mode below the blocks sees: the innermost block fills device in."""
        if self.explicit:
            return {"device": EXPLICIT}
        return {"device": self.blocks[-1]} if self.blocks else {}


_DEVICE = st.sampled_from(DEVICES)


@st.composite
def plans(draw: st.DrawFn) -> Plan:
    below = draw(st.integers(0, 2))
    return Plan(
        default=draw(st.none() | _DEVICE),
        below=below,
        set_in_modes=draw(st.none() | _DEVICE) if below else None,
        blocks=tuple(draw(st.lists(_DEVICE, max_size=3))),
        above=draw(st.integers(0, 2)),
        explicit=draw(st.booleans()),
    )


_PRELUDE = '''
import contextlib

ones = ad.func("ones")
seen = {}


def user(name):
    """A user mode that notes the keywords of every ones(...) call it sees."""
    def handler(self, func, types, args=(), kwargs=None):
        if func is ones:
            seen.setdefault(name, []).append({k: str(v) for k, v in (kwargs or {}).items()})
        return func(*args, **(kwargs or {}))

    return type(ad.TorchFunctionMode)(name, (ad.TorchFunctionMode,), {"__torch_function__": handler})()


def stack():
    return [f"device:{ad.device_mode_device(m)}" if ad.device_mode_device(m) else type(m).__name__
            for m in ad.mode_stack()]


def show(label):
    print(label, "- stack:", stack(), "- ones(1) on:", ad.device_of(ones(1)),
          "- get_default_device():", ad.default_device())
'''


def script_body(plan: Plan) -> str:
    """Straight-line adapter code that replays ``plan`` and prints every state it checks."""
    lines = [_PRELUDE.strip("\n"), "", "with contextlib.ExitStack() as blocks:"]
    body: list[str] = []
    if plan.default is not None:
        body.append(f"ad.set_default_device({plan.default!r})")
    for i in range(plan.below):
        body.append(f"blocks.enter_context(user('B{i}'))")
    if plan.set_in_modes is not None:
        body.append(f"ad.set_default_device({plan.set_in_modes!r})")
    body.append(f"show({f'expected {plan.base_stack()}, on {plan.factory_device(0)}:'!r})")
    for depth, device in enumerate(plan.blocks, 1):
        body.append(f"blocks.enter_context(ad.device_context({device!r}))")
        label = f"expected {plan.block_stack(depth)}, on {plan.factory_device(depth)}:"
        body.append(f"show({label!r})")
    for i in range(plan.above):
        body.append(f"blocks.enter_context(user('A{i}'))")
    body.append("seen.clear()")
    call = f"ones(2, device={EXPLICIT!r})" if plan.explicit else "ones(2)"
    body.append(f"print({call + ' creates on'!r}, ad.device_of({call}), "
                f"{'- expected ' + plan.probe_device()!r})")
    expected = f"- expected above the blocks {plan.seen_above()}, below them {plan.seen_below()}"
    body.append(f"print('keywords seen:', seen, {expected!r})")
    lines += [f"    {line}" for line in body]
    after = [f"device:{plan.setting}"] if plan.setting else []
    lines.append(f"show({f'after every block, expected {after}, on {plan.setting or INITIAL}:'!r})")
    lines.append("ad.set_default_device(None)")
    lines.append(f"show({f'after set_default_device(None), expected [], on {INITIAL}:'!r})")
    return "\n".join(lines)
