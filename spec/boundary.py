"""Where a scenario's user code meets ``torch.compile``: the boundary of compilation.

A scenario's user code is its set-up (each mode entered, each ``Disable*`` block, in order, one
inside the other), the call's tensors and the call. Run under ``torch.compile``, each of them
can lie on either side of the compiled function, or inside it but across a graph break:

- ``outside``: how many of the set-up's first steps are entered *around* the compiled
  function, active when it is called (0: every step inside it);
- ``graph_break``: where a graph break is forced inside the compiled function, as the number
  of set-up steps entered before it (from ``outside`` to all of them: just before the call);
  ``None`` forces none. A step entered before it is active across it;
- ``made_inside``: the call's tensors (subclass instances among them) are made inside the
  compiled function, its first act, rather than made before it is called and passed in. With
  a forced graph break they are made before it and used after it. Only with ``outside`` 0:
  a mode entered outside would see them being made, which an eager run never shows.

Run eagerly, where the boundary lies changes nothing: the same calls happen in the same
order. This module is data only; the runner (``conformance.target.runner``) gives it effect.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

__all__ = ["ACROSS_BREAK", "EVERYTHING_INSIDE", "MADE_INSIDE", "OUTSIDE_COMPILE", "WORDS", "Boundary"]


@dataclass(frozen=True)
class Boundary:
    """Where a scenario's user code meets the compiled function (see the module docstring)."""

    outside: int = 0
    graph_break: int | None = None
    made_inside: bool = False

    def problem(self, steps: int) -> str | None:
        """Why this boundary does not fit a set-up of ``steps`` steps, one line naming the field
        (``outside``, ``break``, ``made_inside``); ``None`` when it does."""
        if not _count(self.outside) or not 0 <= self.outside <= steps:
            return f"outside must be a number of set-up steps from 0 to {steps}, got {self.outside!r}"
        if self.graph_break is not None and (not _count(self.graph_break)
                                             or not self.outside <= self.graph_break <= steps):
            return (f"break must be a number of set-up steps from {self.outside} (those entered "
                    f"outside) to {steps}, got {self.graph_break!r}")
        if not isinstance(self.made_inside, bool):
            return f"made_inside must be true or false, got {self.made_inside!r}"
        if self.made_inside and self.outside:
            return ("made_inside needs every set-up step inside the compiled function "
                    f"(outside 0, got {self.outside})")
        return None

    def fitted(self, steps: int) -> Boundary:
        """This boundary for a set-up of ``steps`` steps: a number past the set-up is all of
        it (a drawn boundary fits the scenario it is drawn with; a shrunk scenario may have
        fewer steps), and tensors made inside keep every step inside."""
        outside = max(0, min(self.outside, steps))
        brk = None if self.graph_break is None else max(outside, min(self.graph_break, steps))
        made_inside = self.made_inside and outside == 0
        return Boundary(outside, brk, made_inside)

    @property
    def features(self) -> tuple[str, ...]:
        """The words an expected failure's scope may use for a divergence that needs this
        boundary (see ``conformance.judge.excusal``)."""
        words = []
        if self.outside:
            words.append(OUTSIDE_COMPILE)
        if self.graph_break is not None:
            words.append(ACROSS_BREAK)
        if self.made_inside:
            words.append(MADE_INSIDE)
        return tuple(words)

    def describe(self) -> str:
        """One phrase, for a failure's text: where the boundary lay (empty for the default)."""
        parts = []
        if self.outside:
            parts.append(f"{self.outside} set-up step(s) entered outside the compiled function")
        if self.made_inside:
            parts.append("the call's tensors made inside it")
        if self.graph_break is not None:
            parts.append(f"a graph break forced after {self.graph_break} set-up step(s)")
        return ", ".join(parts)


def _count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


#: Every step and the call's tensors inside the compiled function, no graph break forced.
EVERYTHING_INSIDE: Final = Boundary()

#: The word a scope uses for a divergence of a compiled run whose set-up began outside the
#: compiled function (some of its steps entered around it, active when it was called).
OUTSIDE_COMPILE: Final = "outside compile"
#: ... of a compiled run with a graph break forced inside the compiled function.
ACROSS_BREAK: Final = "across a graph break"
#: ... of a compiled run whose call's tensors were made inside the compiled function.
MADE_INSIDE: Final = "made inside compile"
#: The words, one per part of the boundary, in the order :attr:`Boundary.features` gives them.
WORDS: Final = (OUTSIDE_COMPILE, ACROSS_BREAK, MADE_INSIDE)
