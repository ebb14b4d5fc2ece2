"""Character-level differences between two texts, shown so that an implementer can act on them.

A failure shows both texts in full (a text longer than :data:`MAX_SHOWN` characters is
shortened around its first difference, and the line says so), then where they first differ:
the character offset, both characters with their Unicode names, and a window of each text
around that point with a caret under the first differing character. Characters that do not
print (a tab, a no-break space, a zero-width space) are escaped in the windows, so that "two
spaces versus one" and invisible characters are visible.
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["MAX_SHOWN", "escape", "first_difference", "shorten", "text_diff"]

#: The longest text a failure shows in full; a longer one is shown around its first difference.
MAX_SHOWN = 1200
#: Characters of context either side of the first difference in the caret windows.
CONTEXT = 40
#: An object's address in a repr (it differs from run to run).
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{4,}")


def first_difference(a: str, b: str) -> int | None:
    """The index of the first character where ``a`` and ``b`` differ (``None``: they are equal).

    When one text is a prefix of the other, it is the shorter text's length."""
    if a == b:
        return None
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return i
    return min(len(a), len(b))


def escape(text: str) -> str:
    """``text`` with backslashes and the characters that do not print escaped as Python does."""
    out: list[str] = []
    for char in text:
        if char == "\\":
            out.append("\\\\")
        elif char.isprintable():
            out.append(char)
        else:
            out.append(repr(char)[1:-1])
    return "".join(out)


def describe_char(text: str, index: int) -> str:
    """The character at ``index`` with its code point and name, or "the end of the text"."""
    if index >= len(text):
        return "the end of the text"
    char = text[index]
    name = unicodedata.name(char, "")
    return f"'{escape(char)}' (U+{ord(char):04X}{' ' + name if name else ''})"


def shorten(text: str, at: int, limit: int = MAX_SHOWN) -> tuple[str, str]:
    """``text`` cut to about ``limit`` characters around index ``at``, and a note saying what was
    cut ("" when nothing was)."""
    if len(text) <= limit:
        return text, ""
    start = max(0, min(at - limit // 2, len(text) - limit))
    end = start + limit
    shown = ("…" if start else "") + text[start:end] + ("…" if end < len(text) else "")
    return shown, (f" (shortened around the first difference: characters {start}-{end} of "
                   f"{len(text)} shown)")


def _window(text: str, at: int) -> tuple[str, str]:
    """The escaped text before and from ``at``, at most CONTEXT characters each way; object
    addresses are blanked here already (as the certificate blanks them), so that doing it
    later cannot move the caret."""
    start, end = max(0, at - CONTEXT), min(len(text), at + CONTEXT)
    before = ("…" if start else "") + "'" + escape(_ADDRESS.sub("0x…", text[start:at]))
    after = escape(_ADDRESS.sub("0x…", text[at:end])) + "'" + ("…" if end < len(text) else "")
    return before, after


def text_diff(expected: str, observed: str, exp_at: int | None = None, obs_at: int | None = None,
              indent: str = "  ") -> list[str]:
    """Lines that show where ``observed`` first departs from ``expected``.

    ``exp_at`` and ``obs_at`` give the first differing character of each text where they are
    not at the same offset (an object's repr the expected text leaves open); by default the
    first index at which the two texts differ. Empty when the texts are equal."""
    if exp_at is None or obs_at is None:
        found = first_difference(expected, observed)
        if found is None:
            return []
        exp_at = obs_at = found
    where = (f"character {exp_at}" if exp_at == obs_at
             else f"character {exp_at} of the expected text, {obs_at} of the observed")
    lines = [f"{indent}first difference at {where}: expected {describe_char(expected, exp_at)}, "
             f"observed {describe_char(observed, obs_at)}"]
    exp_before, exp_after = _window(expected, exp_at)
    obs_before, obs_after = _window(observed, obs_at)
    width = max(len(exp_before), len(obs_before))
    lines += [f"{indent}  expected: {exp_before.rjust(width)}{exp_after}",
              f"{indent}  observed: {obs_before.rjust(width)}{obs_after}",
              f"{indent}  {' ' * len('expected: ')}{' ' * width}^"]
    return lines
