"""Symbolic values the model computes with: tensors, mode references, and the class world."""

from __future__ import annotations

from dataclasses import dataclass
from types import EllipsisType
from typing import Literal, Union

from .scenario import Behaviour, ClassDecl, HandlerKind, Scenario
from .trace import ArgSeen, TensorValue, Value


@dataclass(frozen=True)
class SymTensor:
    """A tensor (or duck object) of class ``cls``; ``ident`` names a call argument (``x0``...)."""

    cls: str
    data: tuple[float, ...]
    ident: str | None = None


class _NotImplementedType:
    def __repr__(self) -> str:
        return "NotImplemented"


NOTIMPL = _NotImplementedType()

#: An index is written with ``slice`` and ``...`` too (``x[k:]``, ``x[...]``).
SymValue = Union[int, bool, None, SymTensor, tuple["SymValue", ...], list["SymValue"], _NotImplementedType,
                 slice, EllipsisType]


@dataclass(frozen=True)
class ModeRef:
    """Something that can be the current mode.

    ``kind``: ``inst`` (an instance of a mode declaration), ``base`` (an implicit
    ``BaseTorchFunctionMode``), ``cls`` (a class used as the mode). ``serial``
    tells apart objects of the same name.
    """

    kind: Literal["inst", "base", "cls"]
    name: str
    serial: int = 0

    @property
    def label(self) -> str:
        return "<base>" if self.kind == "base" else self.name


@dataclass(frozen=True)
class Effective:
    """The handler an overloaded argument of some class really has."""

    kind: Literal["classmethod", "plain", "disabled", "default", "none"]
    behaviour: Behaviour | None


class ClassWorld:
    """Subclass relations and effective handlers of a scenario's classes."""

    def __init__(self, scenario: Scenario) -> None:
        self._decls: dict[str, ClassDecl] = {c.name: c for c in scenario.classes}

    def is_tensor_class(self, name: str) -> bool:
        return name == "Tensor" or self.is_subclass(name, "Tensor")

    def is_subclass(self, name: str, base: str) -> bool:
        current: str | None = name
        while current is not None:
            if current == base:
                return True
            decl = self._decls.get(current)
            current = decl.parent if decl is not None else None
        return base == "object"

    def effective(self, name: str) -> Effective:
        current: str | None = name
        while current is not None:
            if current == "Tensor":
                return Effective("default", None)
            decl = self._decls.get(current)
            if decl is None:
                return Effective("none", None)
            kind: HandlerKind = decl.handler
            if kind != "inherit":
                return Effective(kind, decl.behaviour)
            current = decl.parent
        return Effective("none", None)


def to_value(value: SymValue) -> Value:
    """The observable form of a symbolic value."""
    if isinstance(value, SymTensor):
        return TensorValue(value.cls, value.data)
    if isinstance(value, (tuple, list)):
        return tuple(to_value(v) for v in value)
    if isinstance(value, (_NotImplementedType, slice, EllipsisType)):
        raise TypeError(f"{value!r} is not a call result")  # only ever an argument
    return value


def describe(value: SymValue) -> ArgSeen | None:
    """How a handler must see ``value`` among its arguments (``None``: the model does not know
    which object it is, so it predicts nothing about it)."""
    if isinstance(value, SymTensor):
        return None if value.ident is None else ("obj", value.ident)
    if isinstance(value, (list, tuple)):
        items = [describe(v) for v in value]
        if any(i is None for i in items):
            return None
        return ("list" if isinstance(value, list) else "tuple", tuple(i for i in items if i is not None))
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int):
        return ("int", value)
    if value is None:
        return ("none", None)
    if value is Ellipsis:
        return ("ellipsis", None)
    if isinstance(value, slice):
        ends = [describe(v) for v in (value.start, value.stop, value.step)]
        return None if any(e is None for e in ends) else ("slice", tuple(e for e in ends if e is not None))
    return None
