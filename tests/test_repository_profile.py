"""The repository's tests draw the same number of examples in CI as on a developer's machine."""

from __future__ import annotations

import pytest
from hypothesis import settings

from conftest import repository_profile


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("CI", "TFMODE_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    return monkeypatch


def test_ci_draws_devs_examples_derandomized(bare: pytest.MonkeyPatch) -> None:
    assert repository_profile() == "dev"
    bare.setenv("CI", "true")
    name = repository_profile()
    chosen, dev, ci = (settings.get_profile(n) for n in (name, "dev", "ci"))
    assert name == "repository-ci"
    assert chosen.max_examples == dev.max_examples < ci.max_examples
    assert chosen.derandomize and ci.derandomize and chosen.database is None


def test_a_profile_named_in_the_environment_is_kept(bare: pytest.MonkeyPatch) -> None:
    bare.setenv("CI", "true")
    bare.setenv("TFMODE_PROFILE", "ci")
    assert repository_profile() == "ci"
    bare.setenv("TFMODE_PROFILE", "thorough")
    assert repository_profile() == "thorough"
