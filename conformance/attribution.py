"""Attributes a divergence between a prediction and an observation to the rules that decide it."""

from __future__ import annotations

from spec.model.scenario import Scenario
from spec.model.trace import Constructed, HandlerRun, Installed, Settled, Trace, WarningEmitted

from .compare import Naming, align, differences, event_matches

_FIELDS = ("who", "role", "types", "func", "kwargs", "current", "bound")
#: An observed warning where none is expected breaks these.
_NO_WARNING = ("TFM_SELF_004", "TFM_SELF_005", "TFM_SELF_006")


def attribute(scenario: Scenario, expected: Trace, observed: Trace, naming: Naming) -> tuple[str, ...]:
    """The rules the first divergence breaks; empty when the observation matches the prediction."""
    if not differences(expected, observed, naming):
        return ()
    expected = align(expected, observed, naming)
    for i in range(max(len(expected.events), len(observed.events))):
        exp = expected.events[i] if i < len(expected.events) else None
        obs = observed.events[i] if i < len(observed.events) else None
        if exp is not None and obs is not None and event_matches(exp, obs, naming):
            continue
        if isinstance(obs, WarningEmitted) and not isinstance(exp, WarningEmitted):
            return _NO_WARNING
        if exp is None:
            return expected.outcome.rules
        if isinstance(exp, HandlerRun) and isinstance(obs, HandlerRun):
            for name in _FIELDS:
                if not event_matches(exp, obs, naming, only=name):
                    return exp.rules_for(name)
        if isinstance(exp, HandlerRun):
            return exp.rules_for("who")
        assert isinstance(exp, (WarningEmitted, Installed, Constructed, Settled))
        return exp.rules
    if differences(Trace((), expected.outcome, None), Trace((), observed.outcome, None), naming):
        return expected.outcome.rules
    return expected.after_rules
