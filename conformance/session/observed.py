"""The hypothesis settings the suite's tests actually ran with, read back from hypothesis.

Each test of a conformance run reads them just before it runs (:func:`read_settings`); the
certificate's ``hypothesis`` section is built from those readings (:func:`hypothesis_section`),
and any test whose settings differ from the profile the plugin chose is named.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from hypothesis import core, settings


@dataclass(frozen=True)
class Observed:
    """The settings one test ran with."""

    #: The name of the current settings profile, or None where hypothesis has none loaded.
    profile: str | None
    max_examples: int
    derandomize: bool
    #: Whether an example database was in use (a derandomized run must have none).
    database: bool
    #: The seed given to hypothesis (``--hypothesis-seed``), as text; None: none given.
    seed: str | None

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> Observed:
        data = json.loads(text)
        return cls(data["profile"], int(data["max_examples"]), bool(data["derandomize"]),
                   bool(data["database"]), data["seed"])

    def describe(self) -> str:
        return (f"profile {self.profile!r}, max_examples {self.max_examples}, derandomize "
                f"{str(self.derandomize).lower()}, database {'yes' if self.database else 'none'}, "
                f"seed {self.seed or 'none'}")


def read_settings() -> Observed:
    """The settings a test started now would run with, as hypothesis has them."""
    current = settings()
    try:
        name: str | None = settings.get_current_profile_name()
    except AssertionError:  # no profile was ever loaded
        name = None
    seed = getattr(core, "global_force_seed", None)
    return Observed(name, int(current.max_examples), bool(current.derandomize),
                    current.database is not None, None if seed is None else str(seed))


def expected_settings(profile: str, seed: str | None) -> Observed:
    """What a test should read back when the plugin chose ``profile`` and ``seed``."""
    chosen = settings.get_profile(profile)
    return Observed(profile, int(chosen.max_examples), bool(chosen.derandomize),
                    chosen.database is not None, seed)


def _agrees(seen: Observed, expected: Observed) -> bool:
    # hypothesis derives "<profile>-with-<option>" profiles for --hypothesis-verbosity and
    # --hypothesis-explain; they change nothing recorded here.
    same_name = seen.profile == expected.profile or (
        seen.profile is not None and seen.profile.startswith(f"{expected.profile}-with-"))
    return same_name and (seen.max_examples, seen.derandomize, seen.database, seen.seed) == (
        expected.max_examples, expected.derandomize, expected.database, expected.seed)


def disagreements(expected: Observed, seen: Mapping[str, Observed]) -> list[str]:
    """One line per distinct way tests ran with settings other than ``expected``."""
    groups: dict[Observed, list[str]] = {}
    for nodeid, observed in sorted(seen.items()):
        if not _agrees(observed, expected):
            groups.setdefault(observed, []).append(nodeid)
    lines = []
    for observed, tests in groups.items():
        shown = ", ".join(tests[:3]) + (f" and {len(tests) - 3} more" if len(tests) > 3 else "")
        lines.append(f"{len(tests)} test(s) ran with {observed.describe()} instead of "
                     f"{expected.describe()}: {shown}")
    return lines


def hypothesis_section(expected: Observed, seen: Mapping[str, Observed]) -> dict[str, Any]:
    """The certificate's ``hypothesis`` section: what the tests reported, stated so that it
    claims no more than every one of them ran with (null: no test reported)."""
    values = list(seen.values())
    profiles = {v.profile for v in values}
    seeds = {v.seed for v in values}
    return {
        "profile": profiles.pop() if len(profiles) == 1 else None,
        "seed": seeds.pop() if len(seeds) == 1 else None,
        "derandomize": all(v.derandomize for v in values) if values else None,
        "max_examples": min(v.max_examples for v in values) if values else None,
        "database": any(v.database for v in values) if values else None,
        "tests": len(values),
        "requested": {"profile": expected.profile, "seed": expected.seed},
        "disagreements": disagreements(expected, seen),
    }


def snapshot() -> dict[str, Any]:
    """The active hypothesis settings that matter to a test body, to apply in the child."""
    current = settings()
    return {"settings": {"max_examples": current.max_examples, "derandomize": current.derandomize,
                         "deadline": current.deadline, "phases": tuple(current.phases),
                         "suppress_health_check": tuple(current.suppress_health_check),
                         "print_blob": current.print_blob},
            "database": current.database is not None, "seed": core.global_force_seed}
