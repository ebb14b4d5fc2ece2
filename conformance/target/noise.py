"""Warnings an implementation raises for its own reasons: told apart from the protocol's, counted.

A warning is a protocol event when its text begins with one of the protocol's warning texts
of any release (spec/texts.toml), or when it concerns ``__torch_function__`` or a
TorchFunctionMode (the protocol's own subject); the trace records it and the model predicts
it. Anything else (torch's "Failed to initialize NumPy" notice, the deprecation of some
unrelated API) is noise: it is kept out of the trace, so it is never compared, and counted
per run for the certificate's ``noise_warnings``.
"""

from __future__ import annotations

import functools
import json
from collections import Counter
from collections.abc import Iterable

from spec.texts import load_texts

__all__ = ["is_protocol_warning", "merge", "note", "summary", "take"]

#: Words that make a warning the protocol's whatever its exact text.
_SUBJECTS = ("__torch_function__", "TorchFunctionMode")
#: The kinds of text in the table that are warnings.
WARNING_KINDS = ("plain-method-native", "plain-method-python")


@functools.cache
def _protocol_texts() -> tuple[str, ...]:
    return tuple(sorted(load_texts().every_text(*WARNING_KINDS)))


def is_protocol_warning(text: str) -> bool:
    """Whether a warning with this text is a protocol event (see the module's docstring)."""
    return text.startswith(_protocol_texts()) or any(word in text for word in _SUBJECTS)


def first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:300] if lines else ""


#: This process's noise since the last take(): (category, first line) -> count.
_SEEN: Counter[tuple[str, str]] = Counter()


def note(noise: Iterable[tuple[str, str]]) -> None:
    """Count the noise warnings one scenario raised (``(category, first line)`` pairs)."""
    _SEEN.update(noise)


def take() -> str:
    """The noise counted since the last call, as JSON (for a test report), and forget it."""
    found = [[category, line, count] for (category, line), count in sorted(_SEEN.items())]
    _SEEN.clear()
    return json.dumps(found)


def merge(into: Counter[tuple[str, str]], taken: str) -> None:
    """Add what :func:`take` returned (maybe in another process) to ``into``."""
    for category, line, count in json.loads(taken):
        into[(str(category), str(line))] += int(count)


def summary(counts: Counter[tuple[str, str]]) -> list[dict[str, object]]:
    """The certificate's ``noise_warnings``: one entry per distinct warning, most frequent first."""
    return [{"category": category, "message": line, "count": count}
            for (category, line), count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
