"""Hypothesis strategies that generate scenarios for either generation: what
:mod:`conformance.generate.draws` makes, each choice drawn by hypothesis."""

from __future__ import annotations

import functools
from typing import TypeVar

from hypothesis import strategies as st

from spec.model.scenario import Generation, Scenario

from .draws import FORM_FEATURES, FORWARD_ADD, build_scenario

T = TypeVar("T")

__all__ = ["FORM_FEATURES", "FORWARD_ADD", "HypothesisChooser", "scenarios"]


# The strategies each choice is drawn from are built once per range (cached) rather than on
# every draw: hypothesis validates a new strategy and computes its label the first time it is
# drawn from, which costs more than the drawing itself. A pick draws the option's index, never
# the options themselves: a cache keyed by options would take (0, 1) for (False, True).
@functools.cache
def _integers(low: int, high: int) -> st.SearchStrategy[int]:
    return st.integers(low, high)


class HypothesisChooser:
    """Each choice drawn by hypothesis (``draw`` of a composite strategy or of ``st.data()``)."""

    def __init__(self, draw: st.DrawFn) -> None:
        self._draw = draw

    def pick(self, options: tuple[T, ...]) -> T:
        return options[self._draw(_integers(0, len(options) - 1))]

    def integer(self, low: int, high: int) -> int:
        return self._draw(_integers(low, high))


@st.composite
def scenarios(draw: st.DrawFn, generation: Generation = "2022",
              features: frozenset[str] = frozenset({"disable-subclass", "python-path"})) -> Scenario:
    """A scenario: subclass hierarchies, modes, nested set-up and one call."""
    return build_scenario(HypothesisChooser(draw), generation, features)
