"""What the model knows about a running handler and about where a call came from."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from .trace import ArgSeen, KwargsSeen, Role
from .values import ModeRef, SymValue, describe

OriginKind = Literal["top", "mode", "subclass", "submode", "default", "reenter", "pushed"]


@dataclass(frozen=True)
class Handler:
    """One dispatch as a handler sees it: the call, plus (once bound) who handles it."""

    func: str
    types: tuple[str, ...]
    args: list[SymValue]
    kwargs: dict[str, SymValue]
    seen: KwargsSeen
    python: bool
    collect_rules: tuple[str, ...] = ()
    role: Role = "mode"
    owner: str = ""
    mode: ModeRef | None = field(default=None)

    def bind(self, role: Role, owner: str, mode: ModeRef | None) -> Handler:
        # What dataclasses.replace(self, role=..., owner=..., mode=...) builds, without its
        # field-by-field introspection (a model run binds a handler several times).
        return Handler(self.func, self.types, self.args, self.kwargs, self.seen, self.python,
                       self.collect_rules, role, owner, mode)

    def described(self) -> tuple[tuple[ArgSeen, ...] | None, tuple[tuple[str, ArgSeen], ...] | None]:
        """TFM_ARGS_002: the ``args`` and the ``kwargs`` items its handlers receive, as written
        (either ``None`` where the model cannot name one of its arguments)."""
        args = [describe(a) for a in self.args]
        items = [(k, describe(v)) for k, v in sorted(self.kwargs.items())]
        return (None if any(a is None for a in args) else tuple(a for a in args if a is not None),
                None if any(v is None for _, v in items)
                else tuple((k, v) for k, v in items if v is not None))


@dataclass(frozen=True)
class Origin:
    """Where the call being dispatched was made: at top level, or inside some handler."""

    kind: OriginKind
    mode: ModeRef | None = None

    def rules_for(self, target: ModeRef | None, inner: dict[ModeRef, ModeRef | None]) -> tuple[str, ...]:
        """The rules that explain why ``target`` (a mode, or ``None`` for a subclass) is reached."""
        if target is None:
            return ()
        if self.kind == "mode" and self.mode is not None and inner.get(self.mode) == target:
            return ("TFM_PUSH_004", "TFM_REENTRY_004")
        return {
            "reenter": ("TFM_REENTRY_006",),
            "subclass": ("TFM_REENTRY_007",),
            "default": ("TFM_DISABLE_004",),
            "pushed": ("TFM_PUSH_001",),
        }.get(self.kind, ())
