"""What an implementation lists as overridable, each callable with the name the certificate shows.

Runs in the implementation's sandbox. An adapter lists its callables with an ``overridable()``
method returning ``(name, callable, template)`` triples, the template a callable whose signature
is that of the listed one (``None``: the callable's own); :class:`~conformance.adapter.NamespaceAdapter`
reads ``overrides.get_testing_overrides()``, torch's table of every overridable callable with a
dummy of its signature. The names are those a user writes, without the namespace:
``add``, ``Tensor.add``, ``Tensor.grad.__get__``, ``nn.functional.relu``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["Listed", "listed", "namer", "same_callable"]

#: No implementation lists more (torch 2.14 lists about 1,450).
MAX_LISTED = 20_000


@dataclass(frozen=True)
class Listed:
    """One listed callable: the name shown, the callable, and where its signature comes from."""

    name: str
    func: Callable[..., Any]
    template: Callable[..., Any] | None


def same_callable(a: object, b: object) -> bool:
    """Whether ``a`` is ``b``: the same object, or the same bound slot of one descriptor
    (``Tensor.grad.__get__`` is a new method-wrapper each time it is read)."""
    if a is b:
        return True
    self_a, self_b = getattr(a, "__self__", None), getattr(b, "__self__", None)
    if self_a is None or self_a is not self_b:
        return False
    return getattr(a, "__name__", None) == getattr(b, "__name__", None) is not None


def _key(func: object) -> tuple[int, str] | int:
    owner = getattr(func, "__self__", None)
    name = getattr(func, "__name__", None)
    if owner is not None and isinstance(name, str) and name in ("__get__", "__set__", "__delete__"):
        return (id(owner), name)
    return id(func)


def namer(ns: Any) -> Callable[[object], str]:
    """A function that names a callable of namespace ``ns`` as a user writes it."""
    names: dict[tuple[int, str] | int, str] = {}
    if ns is None:
        ns = object()
    tensor = getattr(ns, "Tensor", None)
    if isinstance(tensor, type):
        for attr in dir(tensor):
            try:
                member = getattr(tensor, attr)
            except Exception:  # an attribute that raises on the class: nothing to name
                continue
            names.setdefault(id(member), f"Tensor.{attr}")
            if hasattr(type(member), "__set__"):  # a property: its getter and setter dispatch
                for slot in ("__get__", "__set__"):
                    bound = getattr(member, slot, None)
                    if bound is not None:
                        names.setdefault(_key(bound), f"Tensor.{attr}.{slot}")
    for attr in dir(ns):
        try:
            member = getattr(ns, attr)
        except Exception:
            continue
        names.setdefault(id(member), attr)
    prefix = f"{getattr(ns, '__name__', '')}."

    def name_of(func: object) -> str:
        known = names.get(_key(func))
        if known is not None:
            return known
        module = getattr(func, "__module__", None)
        qualname = getattr(func, "__qualname__", None) or getattr(func, "__name__", None)
        if not isinstance(qualname, str):
            return f"<{type(func).__name__}>"
        if isinstance(module, str) and module.startswith(prefix):
            return f"{module.removeprefix(prefix)}.{qualname}"
        return f"{module}.{qualname}" if isinstance(module, str) else qualname

    return name_of


def listed(adapter: Any) -> list[Listed] | None:
    """The implementation's listed callables, sorted by name (duplicates numbered);
    ``None`` when it lists none."""
    declared = getattr(adapter, "overridable", None)
    if not callable(declared):
        return None
    raw = declared()
    if raw is None:
        return None
    out: list[Listed] = []
    seen: dict[str, int] = {}
    for name, func, template in list(raw)[:MAX_LISTED]:
        shown = str(name)
        seen[shown] = seen.get(shown, 0) + 1
        if seen[shown] > 1:
            shown = f"{shown}#{seen[shown]}"
        out.append(Listed(shown, func, template))
    out.sort(key=lambda entry: entry.name)
    return out
