"""``str()`` and ``repr()`` of the implementation's objects, which may raise or lie.

An exception (or warning, or mode) of the implementation under test is data: its ``__str__``
or ``__repr__`` may raise, loop into a RecursionError, or return something that is not a
string. These helpers always return a ``str``, so that such an object fails the scenario
where it was met, like any other wrong answer, and never the suite's own code that prints it.
"""

from __future__ import annotations

__all__ = ["attribute_name", "name_of", "repr_of", "text_of"]


def _fallback(obj: object, how: str, exc: BaseException | None) -> str:
    what = f"raised {name_of(type(exc))}" if exc is not None else "returned no str"
    return f"<{name_of(type(obj))} object whose {how}() {what}>"


def name_of(cls: object) -> str:
    """A class's ``__name__``, whatever its metaclass makes of it."""
    try:
        name = type.__getattribute__(cls, "__name__") if isinstance(cls, type) else None
    except Exception:
        name = None
    return name if isinstance(name, str) else "?"


def text_of(obj: object) -> str:
    """``str(obj)``; if that raises or is no string, a text that says so."""
    try:
        text = str(obj)
    except Exception as exc:  # the implementation's __str__ may raise anything
        return _fallback(obj, "__str__", exc)
    return str.__str__(text) if isinstance(text, str) else _fallback(obj, "__str__", None)


def repr_of(obj: object) -> str:
    """``repr(obj)``; if that raises or is no string, a text that says so."""
    try:
        text = repr(obj)
    except Exception as exc:
        return _fallback(obj, "__repr__", exc)
    return str.__str__(text) if isinstance(text, str) else _fallback(obj, "__repr__", None)


def attribute_name(obj: object) -> str:
    """``obj.__name__`` as a text (``str(obj)`` where it has none); its attributes may raise."""
    try:
        name = getattr(obj, "__name__", obj)
    except Exception:
        name = obj
    return text_of(name)
