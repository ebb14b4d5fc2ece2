"""Bad input to the protocol's functions (TFM_REACH_008): the cases, and how one is tried.

Each case is a line of Python over the names :data:`PRELUDE` defines (the implementation's
``has_torch_function`` family and ``handle_torch_function``, a plain tensor ``x``, a duck-typed
``duck``, arguments whose ``__iter__``, ``__len__`` or ``__getitem__`` raise), with what the rule
allows of it without a mode and under a mode that answers ``'mode'``: the outcome of the same
call on a tuple of the same elements, or a TypeError, or the argument's own exception. The prelude is also the
head of the script a failure records, so the script runs the very lines the suite ran.

A crash cannot be reported from the process that crashed; before each case the body prints
which case comes next, so the sandbox's report of a dead child names it (its last output).
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from typing import Any

RULE = "TFM_REACH_008"

#: The names the cases use; ``ad`` is the adapter.
PRELUDE = '''
has_torch_function = ad.func("has_torch_function")
has_torch_function_unary = ad.func("has_torch_function_unary")
has_torch_function_variadic = ad.func("has_torch_function_variadic")
handle_torch_function = ad.func("handle_torch_function")


class Refused(Exception):
    """What the hostile arguments raise."""


REFUSED = Refused("raised by the argument itself")


class Duck:
    """A duck-typed argument: an override without being a tensor."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return "duck"


class IterRaises:
    def __iter__(self):
        raise REFUSED


class LenRaises:
    """Iterable through __getitem__ (one element, x); its __len__ raises."""

    def __len__(self):
        raise REFUSED

    def __getitem__(self, index):
        if index == 0:
            return x
        raise IndexError(index)


class HostileList(list):
    """A list whose __len__ and __getitem__ raise; iterating it yields its elements."""

    def __len__(self):
        raise REFUSED

    def __getitem__(self, index):
        raise REFUSED


def then_refuse(*items):
    """A generator: yields items, then raises."""
    yield from items
    raise REFUSED


def public(*args, **kwargs):
    return "computed"


def answering_mode():
    """A mode that answers 'mode' to every call, made current (2022: enabled, as the contract
    tests do, so that the check leans on no push; stack: entered)."""
    def handler(self, func, types, args=(), kwargs=None):
        return "mode"

    cls = type(ad.TorchFunctionMode)("Answer", (ad.TorchFunctionMode,),
                                     {"__torch_function__": handler})
    mode = ad.make_mode(cls)
    return ad.enter(mode) if ad.generation == "stack" else ad.enable(mode)


x, duck = ad.tensor([1.0]), Duck()
'''

#: Outcomes, as :func:`outcome` names them.
T, F, TE, R = "True", "False", "TypeError", "REFUSED, the same object"

Allowed = tuple[str, ...]

_PROBES = ("5", "None", "IterRaises()", "LenRaises()", "HostileList([x])", "then_refuse(x)",
           "{1, 2}")
_H = "has_torch_function"
_HT = "handle_torch_function(public, "


@dataclass(frozen=True)
class Case:
    """A call and what the rule allows of it.

    ``same_as``: a call on a tuple of the same elements, whose outcome (in the same state) the
    call must have, so that this rule checks the reading of the argument and the answer for a
    tuple stays the other rules' (TFM_REACH_001 to TFM_REACH_003). ``early``: the argument
    raises after its elements, so the latitude to stop early allows that answer only where it
    is True (a False is decided only by the last element). ``plain`` and ``moded``: outcomes
    allowed besides, without a mode and under the answering mode.
    """

    call: str
    same_as: str | None = None
    plain: Allowed = ()
    moded: Allowed = ()
    early: bool = False

    def allowed(self, under_mode: bool, same: str | None) -> Allowed:
        extra = self.moded if under_mode else self.plain
        if same is None or (self.early and same != T):
            return extra
        return (same, *extra)


CASES: tuple[Case, ...] = (
    Case(f"{_H}(5)", plain=(TE,), moded=(TE,)),
    Case(f"{_H}(None)", plain=(TE,), moded=(TE,)),
    Case(f"{_H}([x, duck])", f"{_H}((x, duck))"),
    Case(f"{_H}(o for o in (x, duck))", f"{_H}((x, duck))"),
    Case(f"{_H}(o for o in (x,))", f"{_H}((x,))"),
    Case(f"{_H}({{1, 2}})", f"{_H}((1, 2))"),
    Case(f"{_H}({{'key': x}})", f"{_H}(('key',))"),
    Case(f"{_H}('ab')", f"{_H}(('a', 'b'))"),
    Case(f"{_H}(HostileList([x, duck]))", f"{_H}((x, duck))"),
    Case(f"{_H}(HostileList([x]))", f"{_H}((x,))"),
    Case(f"{_H}(IterRaises())", plain=(R,), moded=(R,)),
    Case(f"{_H}(then_refuse(x))", f"{_H}((x,))", (R,), (R,), early=True),
    Case(f"{_H}(then_refuse(duck))", f"{_H}((duck,))", (R,), (R,), early=True),
    Case(f"{_H}(LenRaises())", f"{_H}((x,))", (R,), (R,)),
    Case(f"{_H}((x,) * 99999 + (duck,))", f"{_H}((x, duck))"),
    *(Case(f"{_H}_unary({probe})", plain=(T, F), moded=(T, F)) for probe in _PROBES),
    Case(f"{_H}_variadic({', '.join(_PROBES)})", plain=(T, F), moded=(T, F)),
    Case(f"{_HT}5, x)", plain=(TE,), moded=(TE,)),
    Case(f"{_HT}None, x)", plain=(TE,), moded=(TE,)),
    Case(f"{_HT}IterRaises(), x)", plain=(R,), moded=(R,)),
    Case(f"{_HT}then_refuse(duck), x)", plain=(R,), moded=(R,)),
    Case(f"{_HT}(o for o in (duck,)), x)", f"{_HT}(duck,), x)"),
    Case(f"{_HT}HostileList([duck]), x)", f"{_HT}(duck,), x)"),
    Case(f"{_HT}{{duck}}, x)", f"{_HT}(duck,), x)"),
    Case(f"{_HT}'ab', x)", f"{_HT}('a', 'b'), x)"),
)


class Said:
    """An outcome as the failure shows it: its plain text, unquoted."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text


def outcome(names: dict[str, Any], call: str) -> str:
    """What ``call`` did, named as the allowed outcomes are."""
    try:
        value = eval(call, names)  # the suite's own lines, over the prelude's names
    except Exception as exc:
        if exc is names["REFUSED"]:
            return R
        if isinstance(exc, TypeError):
            return TE
        return f"raised {type(exc).__name__}: {exc}"[:200]
    if value is True or value is False or value in ("mode", "duck"):
        return repr(value)
    return f"returned {type(value).__name__} {value!r}"[:200]


def script_body(call: str, same_as: str | None, under_mode: bool) -> str:
    """The lines of the failure's script after the adapter is loaded."""
    calls = [call] if same_as is None else [call, same_as]
    shown = "\n".join(f"print({c!r}, '->', {c})" for c in calls)
    if under_mode:
        indented = "".join(f"    {line}\n" for line in shown.splitlines())
        return f"{PRELUDE}\nwith answering_mode():\n{indented}"
    return f"{PRELUDE}\n{shown}\n"


def _each(names: dict[str, Any], under_mode: bool) -> list[tuple[Case, bool, Allowed, str]]:
    where = "under a mode" if under_mode else "without a mode"
    wrong: list[tuple[Case, bool, Allowed, str]] = []
    for case in CASES:
        print(f"{RULE}: next {case.call} {where} (a crash here fails {RULE})",
              file=sys.stderr, flush=True)
        same = None if case.same_as is None else outcome(names, case.same_as)
        got = outcome(names, case.call)
        allowed = case.allowed(under_mode, same)
        if got not in allowed:
            wrong.append((case, under_mode, allowed, got))
    return wrong


def try_all(adapter: Any) -> list[tuple[Case, bool, Allowed, str]]:
    """Every case, without a mode and under one: (case, under a mode, allowed, observed) of
    those whose outcome is not allowed. Announces each case on stderr before trying it."""
    names: dict[str, Any] = {"ad": adapter, "__name__": "tfmode_bad_input"}
    exec(PRELUDE, names)  # the suite's own code: the script's head
    wrong: list[tuple[Case, bool, Allowed, str]] = []
    for under_mode in (False, True):
        # One installation for every case under the mode: the check leans on it once.
        with names["answering_mode"]() if under_mode else contextlib.nullcontext():
            wrong += _each(names, under_mode)
    print(f"{RULE}: every case answered", file=sys.stderr, flush=True)
    return wrong
