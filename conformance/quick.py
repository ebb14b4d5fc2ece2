"""A quick check without the suite: the scenarios that ship with the specification, run on an
implementation in this process and compared with the model's predictions."""

from __future__ import annotations

from pathlib import Path

import spec
from spec.model import load_scenario, predict

from .adapter import load_adapter
from .compare import differences
from .runner import execute

__all__ = ["quick_check", "shipped_scenarios"]


def shipped_scenarios() -> list[Path]:
    """The scenario files installed with the ``spec`` package (``spec/scenarios/*.toml``)."""
    return sorted((Path(spec.__file__).parent / "scenarios").glob("*.toml"))


def quick_check(impl: str) -> list[str]:
    """Run every shipped scenario on ``impl`` (``MODULE`` or ``pkg.mod:Adapter``) in this
    process: one line per scenario where it does not do what the model predicts (empty: none).

    No sandbox, no time limit and no generated scenarios: a smoke test for an adapter, not a
    certification (that is :func:`conformance.certify`).
    """
    adapter = load_adapter(impl)
    found: list[str] = []
    for path in shipped_scenarios():
        scenario = load_scenario(path)
        observed, naming = execute(scenario, adapter)
        diverging = differences(predict(scenario), observed, naming)
        leaked = adapter.reset()
        if diverging:
            found.append(f"{path.stem}: {diverging[0]}")
        if leaked:
            found.append(f"{path.stem}: left state behind: {'; '.join(map(str, leaked))}")
    if not found and not shipped_scenarios():
        found.append("no scenario ships with this installation of spec")
    return found
