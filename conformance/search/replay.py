"""Turns the divergences of a stateful run into a failure like any other test's.

The failure counts against the rules the divergences carry and no others (``failed_rules``),
and comes with what reproduces the first of them: the scenario of its steps, where the
scenario language can express them and running that scenario shows the same divergence
(``scenario``, shrunk further, and its ``snippet``), or else a script that replays the steps
one by one (``snippet``). Its message names, for each divergence, the step, the rules, the
field and both values in full, then the steps and how the failure is reproduced.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence

from spec.model import scenario_to_dict
from spec.model.scenario import Scenario

from ..generate.shrink import shrink
from ..generate.steps import Op, as_scenario, listing, why_not
from ..judge.check import Target, check
from ..snippet import snippet, steps_snippet

__all__ = ["Divergence", "report", "reproduce"]

class Divergence(AssertionError):
    """The implementation parts from the model ``where`` ("at step 2 (push M)"): ``rules``
    decide what differs, ``blocks`` say how (:func:`~conformance.judge.divergence.block`); ``steps``
    are the run's steps up to it, over the declarations of ``scenario`` with up-front
    instances of ``modes``."""

    def __init__(self, rules: tuple[str, ...], where: str, blocks: list[str],
                 steps: tuple[Op, ...], scenario: Scenario, modes: tuple[str, ...]) -> None:
        super().__init__("\n".join([f"{where}:", *blocks]))
        self.rules, self.where, self.blocks = rules, where, tuple(blocks)
        self.steps, self.scenario, self.modes = steps, scenario, modes


#: Seconds spent shrinking the scenario of a stateful failure (each try runs it once).
SHRINK_SECONDS = 10.0


def _breaks(rules: tuple[str, ...], adapter: Target) -> Callable[[Scenario], bool]:
    """Whether a scenario breaks every one of ``rules`` on ``adapter`` (a scenario observes
    less than a lockstep step and may blame more rules: the failure blames the step's)."""
    def holds(scenario: Scenario) -> bool:
        checked = check(scenario, adapter)
        return checked is not None and bool(rules) and set(rules) <= set(checked.rules)

    return holds


def reproduce(divergence: Divergence, adapter: Target) -> tuple[Scenario | None, str]:
    """The scenario that shows ``divergence`` (breaking its rules), shrunk; or ``None`` and
    why there is none."""
    why = why_not(divergence.steps)
    if why is not None:
        return None, why
    candidate = as_scenario(divergence.scenario, divergence.steps)
    assert candidate is not None
    holds = _breaks(divergence.rules, adapter)
    try:
        if not holds(candidate):
            return None, ("the scenario of the blocks open at that step does not show it: the "
                          "steps it leaves out (calls, blocks exited before) matter")
        return shrink(candidate, holds, deadline=time.monotonic() + SHRINK_SECONDS), ""
    except Exception as exc:  # the implementation failed in another way: the steps stand
        return None, f"running the scenario of the steps failed ({type(exc).__name__}: {exc})"


def _message(divergence: Divergence) -> list[str]:
    rules = ", ".join(divergence.rules) or "an unattributed rule"
    return [f"breaks {rules} {divergence.where}:", *divergence.blocks,
            f"the steps (shrunk): {listing(divergence.steps)}"]


def report(found: Sequence[Divergence], adapter: Target, impl_spec: str,
           record_property: Callable[[str, object], None]) -> str:
    """Record ``found`` (the divergences of one failing run) as the test's failure; its message."""
    rules = tuple(dict.fromkeys(r for d in found for r in d.rules))
    if rules:
        record_property("failed_rules", ",".join(rules))
    first = found[0]
    scenario, why = reproduce(first, adapter)
    try:
        if scenario is not None:
            record_property("scenario", json.dumps(scenario_to_dict(scenario), sort_keys=True))
            record_property("snippet", snippet(scenario, impl_spec, adapter.generation))
            how = ("reproduced by this scenario (recorded with the failure, with its snippet): "
                   + json.dumps(scenario_to_dict(scenario), sort_keys=True))
        else:
            record_property("snippet", steps_snippet(
                first.scenario, first.modes, first.steps, impl_spec, adapter.generation, why,
                [f"breaks {', '.join(first.rules)} {first.where}:", *first.blocks]))
            how = (f"no scenario reproduces it ({why}); the snippet recorded with the failure "
                   "replays the steps")
    except Exception as exc:  # a snippet is a courtesy; the verdict stands without it
        record_property("snippet", f"# no snippet: {type(exc).__name__}: {exc}")
        how = f"no snippet could be written ({type(exc).__name__}: {exc})"
    lines = [*_message(first), how]
    for other in found[1:]:
        lines += ["", *_message(other)]
    return "\n".join(lines)
