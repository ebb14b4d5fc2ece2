"""The model's entry point: the engine of a scenario's generation runs it into a trace.

The 2022 design is :class:`~spec.model.engine.Engine`; the stack generation overrides the few
steps where the designs differ (:class:`~spec.model.stack.StackEngine`). This module sits above
both, so neither imports the other's user.
"""

from __future__ import annotations

from collections.abc import Mapping

from .engine import Engine
from .scenario import Scenario
from .stack import StackEngine
from .trace import Trace

__all__ = ["predict"]

def predict(scenario: Scenario, version: str | None = None, release: str | None = None,
            forced: Mapping[int, tuple[str, ...]] | None = None) -> Trace:
    """The trace the rules predict for ``scenario``: ``version`` is the stack generation's
    (default 2.x), ``release`` the key of the release whose texts to predict (default: the
    PR's for 2022, 1.13's or the latest measured 2.x release's for the stack generation).

    ``forced`` predicts what follows from a known divergence: the dispatch whose first handler
    run is the ``k``-th of the trace overloads on the arguments of the types ``forced[k]``
    instead of those the rules collect (raising :class:`Unspecified` when no rule says what
    such an argument does); a call the rules do not dispatch is dispatched all the same when
    its dispatch would be that one.
    """
    engine: Engine
    if scenario.generation == "2022":
        engine = Engine(scenario, release)
    else:
        engine = StackEngine(scenario, "1.13" if version == "1.13" else "2.x", release)
    engine.forced = dict(forced or {})
    return engine.run()

