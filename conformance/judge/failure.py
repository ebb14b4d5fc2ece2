"""How a hand-written suite test fails: like a scenario's failure, in terms an implementer can act on.

:func:`fail` names the rules the failure counts against (and records them, so that no other
rule of the test fails), the field that differs, both values in full and, where both are
texts, the character where they part; it records a script that reproduces the failure where
the test has one (:func:`adapter_script`). Thread-locality and what ``with mode as m`` binds
are not scenarios, so these scripts drive the implementation through its adapter.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import pytest

from ..base.safe import repr_of
from ..base.textdiff import MAX_SHOWN, first_difference, shorten, text_diff
from .divergence import block

__all__ = ["adapter_script", "fail", "shown"]

Record = Callable[[str, object], None]


def shown(value: object) -> str:
    """``value`` as a failure shows it: its repr (a very long one cut at its end, saying so)."""
    text = repr_of(value)
    if len(text) <= MAX_SHOWN:
        return text
    return f"{shorten(text, 0)[0]} (the first {MAX_SHOWN} of {len(text)} characters)"


def fail(record_property: Record, rules: tuple[str, ...], where: str, expected: object,
         observed: object, snippet: str | None = None, notes: tuple[str, ...] = ()) -> NoReturn:
    """Fail the test for ``rules`` alone: ``where`` (the field), ``expected`` and ``observed``
    in full (texts: shortened around their first difference if very long, with the caret)."""
    record_property("failed_rules", ",".join(rules))
    if snippet is not None:
        record_property("snippet", snippet)
    extra: list[str] = []
    if isinstance(expected, str) and isinstance(observed, str):
        at = first_difference(expected, observed) or 0
        (want, want_note), (got, got_note) = shorten(expected, at), shorten(observed, at)
        exp_text, obs_text = f"{want!r}{want_note}", f"{got!r}{got_note}"
        extra = text_diff(expected, observed)
    else:
        exp_text, obs_text = shown(expected), shown(observed)
    lines = [f"breaks {', '.join(rules)}:", *block(where, rules, exp_text, obs_text, extra), *notes]
    if snippet is not None:
        lines.append("the snippet recorded with this failure reproduces it")
    raise pytest.fail.Exception("\n".join(lines), pytrace=False)


def adapter_script(impl_spec: str, title: str, body: str) -> str:
    """A runnable script that loads ``impl_spec`` through its adapter (``ad``) and runs ``body``.

    The body uses ``ad``'s calls (``ad.push``, ``ad.enter``, ``ad.current_mode``,
    ``ad.tensor``, ``ad.func``...) so one script serves either generation and any adapter."""
    return "\n".join([
        f'"""Reproduces {title} on {impl_spec}, through its adapter."""',
        "",
        "import threading",
        "",
        "from conformance.adapter import load_adapter",
        "",
        f"ad = load_adapter({impl_spec!r})",
        "",
        "",
        "def logging_mode(seen, owner):",
        '    """A mode class that notes ``owner`` in ``seen`` for every call it handles."""',
        "    def handler(self, func, types, args=(), kwargs=None):",
        "        seen.append(owner)",
        "        return func(*args, **(kwargs or {}))",
        "",
        "    return type(ad.TorchFunctionMode)(f'Log{owner}', (ad.TorchFunctionMode,),",
        "                                      {'__torch_function__': handler})",
        "",
        "",
        body.strip("\n"),
        "",
    ])
