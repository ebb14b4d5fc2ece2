"""The docs' count of scenarios that reach the Python path with two or more candidates is current,
and large enough that the Python dispatch path is searched as the native one is."""

from __future__ import annotations

import pytest

from tests.quality.python_path import OUTPUT, counts, main, render

pytestmark = pytest.mark.xdist_group("test_python_path")


def test_the_committed_counts_are_current() -> None:
    found = counts()
    for generation in ("2022", "stack"):
        hit, total = found[f"generated-{generation}"]
        assert hit >= total // 20, f"only {hit} of {total} {generation} scenarios reach it"
        assert found[f"examples-{generation}"][0] >= 2
    assert main(["--check"]) == 0, f"outdated: regenerate {OUTPUT} with python -m tests.quality.python_path"
    assert render(found).count(" of ") == 4
