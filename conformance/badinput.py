"""Bad input to the protocol's functions (TFM_REACH_008): the cases, and how one is tried.

Each case is a line of Python over the names :data:`PRELUDE` defines (the implementation's
``has_torch_function`` family and ``handle_torch_function``, a plain tensor ``x``, a duck-typed
``duck``, arguments whose ``__iter__``, ``__len__`` or ``__getitem__`` raise), with the outcomes
the rule allows without a mode and under a mode that answers ``'mode'``. The prelude is also the
head of the script a failure records, so the script runs the very lines the suite ran.

A crash cannot be reported from the process that crashed; before each case the body prints
which case comes next, so the sandbox's report of a dead child names it (its last output).
"""

from __future__ import annotations

import sys
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
    """A mode that answers 'mode' to every call, installed as the generation installs one."""
    def handler(self, func, types, args=(), kwargs=None):
        return "mode"

    cls = type(ad.TorchFunctionMode)("Answer", (ad.TorchFunctionMode,),
                                     {"__torch_function__": handler})
    return ad.enter(ad.make_mode(cls)) if ad.generation == "stack" else ad.push(cls)


x, duck = ad.tensor([1.0]), Duck()
'''

#: Outcomes, as :func:`outcome` names them.
T, F, TE, R = "True", "False", "TypeError", "REFUSED, the same object"
MODE, DUCK = "'mode'", "'duck'"

Allowed = tuple[str, ...]

_PROBES = ("5", "None", "IterRaises()", "LenRaises()", "HostileList([x])", "then_refuse(x)",
           "{1, 2}")

#: (the call, the outcomes allowed without a mode, those allowed under the answering mode).
CASES: tuple[tuple[str, Allowed, Allowed], ...] = (
    ("has_torch_function(5)", (TE,), (TE,)),
    ("has_torch_function(None)", (TE,), (TE,)),
    ("has_torch_function((x, None))", (F,), (T,)),
    ("has_torch_function([x, duck])", (T,), (T,)),
    ("has_torch_function(o for o in (x, duck))", (T,), (T,)),
    ("has_torch_function(o for o in (x,))", (F,), (T,)),
    ("has_torch_function({1, 2})", (F,), (T,)),
    ("has_torch_function({'key': x})", (F,), (T,)),
    ("has_torch_function('ab')", (F,), (T,)),
    ("has_torch_function(HostileList([x, duck]))", (T,), (T,)),
    ("has_torch_function(HostileList([x]))", (F,), (T,)),
    ("has_torch_function(IterRaises())", (R,), (R,)),
    ("has_torch_function(then_refuse(x))", (R,), (T, R)),
    ("has_torch_function(then_refuse(duck))", (T, R), (T, R)),
    ("has_torch_function(LenRaises())", (F, R), (T, R)),
    ("has_torch_function((x,) * 99999 + (duck,))", (T,), (T,)),
    *((f"has_torch_function_unary({probe})", (F,), (T,)) for probe in _PROBES),
    (f"has_torch_function_variadic({', '.join(_PROBES)})", (F,), (T,)),
    ("handle_torch_function(public, 5, x)", (TE,), (TE,)),
    ("handle_torch_function(public, None, x)", (TE,), (TE,)),
    ("handle_torch_function(public, IterRaises(), x)", (R,), (R,)),
    ("handle_torch_function(public, then_refuse(duck), x)", (R,), (R,)),
    ("handle_torch_function(public, (o for o in (duck,)), x)", (DUCK,), (MODE,)),
    ("handle_torch_function(public, HostileList([duck]), x)", (DUCK,), (MODE,)),
    ("handle_torch_function(public, {duck}, x)", (DUCK,), (MODE,)),
    ("handle_torch_function(public, 'ab', x)", (TE,), (MODE,)),
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


def script_body(call: str, under_mode: bool) -> str:
    """The lines of the failure's script after the adapter is loaded."""
    shown = f"print({call!r}, '->', {call})"
    if under_mode:
        return f"{PRELUDE}\nwith answering_mode():\n    {shown}\n"
    return f"{PRELUDE}\n{shown}\n"


def try_all(adapter: Any) -> list[tuple[str, bool, Allowed, str]]:
    """Every case, without a mode and under one: (call, under a mode, allowed, observed) of
    those whose outcome is not allowed. Announces each case on stderr before trying it."""
    names: dict[str, Any] = {"ad": adapter, "__name__": "tfmode_bad_input"}
    exec(PRELUDE, names)  # the suite's own code: the script's head
    wrong: list[tuple[str, bool, Allowed, str]] = []
    for under_mode in (False, True):
        where = "under a mode" if under_mode else "without a mode"
        for call, plain, moded in CASES:
            allowed = moded if under_mode else plain
            print(f"{RULE}: next {call} {where} (a crash here fails {RULE})",
                  file=sys.stderr, flush=True)
            if under_mode:
                with names["answering_mode"]():
                    got = outcome(names, call)
            else:
                got = outcome(names, call)
            if got not in allowed:
                wrong.append((call, under_mode, allowed, got))
    print(f"{RULE}: every case answered", file=sys.stderr, flush=True)
    return wrong
