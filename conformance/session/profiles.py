"""Hypothesis settings profiles of the suite: dev, triage, ci, certify and thorough."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

#: Scenario generation filters out scenarios the model bounds (see
#: spec.model.engine.Unbounded); timing checks would only make verdicts flaky.
_QUIET = [HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large]

PROFILES: dict[str, dict[str, object]] = {
    #: quick local runs: few examples, the example database on.
    "dev": {"max_examples": 100, "deadline": None, "suppress_health_check": _QUIET},
    #: verdicts at dev's size, fast: a failing scenario is reported as first found, not
    #: shrunk (shrinking is most of a failing run's time; the scenarios shown are longer).
    "triage": {"max_examples": 100, "deadline": None, "suppress_health_check": _QUIET,
               "phases": (Phase.explicit, Phase.reuse, Phase.generate)},
    #: CI (derived from hypothesis' own "ci" profile, which CI=true loads):
    #: derandomized and printing the blob to reproduce a failure.
    "ci": {"max_examples": 300, "deadline": None, "suppress_health_check": _QUIET},
    #: certification: derandomized (the seed is fixed), no example database,
    #: more examples; two runs give the same verdicts.
    "certify": {"max_examples": 1000, "deadline": None, "derandomize": True, "database": None,
                "suppress_health_check": _QUIET, "print_blob": True},
    #: a long search: many examples, every phase.
    "thorough": {"max_examples": 20000, "deadline": None, "suppress_health_check": _QUIET,
                 "phases": tuple(Phase)},
}


def register() -> None:
    """Register every profile (idempotent)."""
    for name, values in PROFILES.items():
        parent = settings.get_profile("ci") if name == "ci" else settings.get_profile("default")
        settings.register_profile(name, parent=parent, **values)


def default_profile() -> str:
    """``ci`` when CI is set (as hypothesis does), else ``dev``; TFMODE_PROFILE overrides."""
    if os.environ.get("TFMODE_PROFILE"):
        return os.environ["TFMODE_PROFILE"]
    return "ci" if os.environ.get("CI") else "dev"
