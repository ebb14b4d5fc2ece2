"""The docs' count of scenarios that reach the Python path with two or more candidates is current,
and large enough that the Python dispatch path is searched as the native one is."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.quality.python_path import OUTPUT, committed, counts

pytestmark = pytest.mark.xdist_group("test_python_path")
ROOT = Path(__file__).resolve().parents[2]
#: How far a generated count may move with the hypothesis release before the table is stale.
TOLERANCE = 0.25


def test_the_committed_counts_are_current() -> None:
    found, shown = counts(), committed(ROOT)
    stale = f"outdated: regenerate {OUTPUT} with python -m tests.quality.python_path"
    for generation in ("2022", "stack"):
        hit, total = found[f"generated-{generation}"]
        assert hit >= total // 20, f"only {hit} of {total} {generation} scenarios reach it"
        assert found[f"examples-{generation}"][0] >= 2
        # The examples are fixed; the generated scenarios move a little with hypothesis.
        assert found[f"examples-{generation}"] == shown[f"examples-{generation}"], stale
        shown_hit, shown_total = shown[f"generated-{generation}"]
        assert shown_total == total and abs(shown_hit - hit) <= TOLERANCE * shown_hit, (
            f"{stale}: {hit} of {total} {generation} scenarios now, the table shows {shown_hit}")
