"""The repository's tests draw the same number of examples in CI as on a developer's machine, and
a quarter of them on the portable envs (the other Python versions)."""

from __future__ import annotations

import pytest
from hypothesis import settings

from conftest import PORTABLE, repository_profile
from tests.example_counts import examples


@pytest.fixture
def bare(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    for name in ("CI", "TFMODE_PROFILE", PORTABLE):
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


def test_the_portable_envs_draw_a_quarter_of_devs_examples(bare: pytest.MonkeyPatch) -> None:
    bare.setenv(PORTABLE, "1")
    name = repository_profile()
    portable, dev = settings.get_profile(name), settings.get_profile("dev")
    assert name == "repository-portable"
    assert portable.max_examples == dev.max_examples // 4 and not portable.derandomize
    bare.setenv("CI", "true")  # in CI, derandomized as well
    chosen = settings.get_profile(repository_profile())
    assert chosen.max_examples == dev.max_examples // 4 and chosen.derandomize
    bare.setenv("TFMODE_PROFILE", "thorough")  # a profile named in the environment wins
    assert repository_profile() == "thorough"


@pytest.mark.parametrize(("profile", "drawn"), [("dev", 2000), ("repository-portable", 500),
                                                ("thorough", 20000)])
def test_a_test_naming_its_number_draws_the_profiles_share_of_it(
        bare: pytest.MonkeyPatch, profile: str, drawn: int) -> None:
    bare.setenv(PORTABLE, "1")
    repository_profile()  # registers repository-portable
    before = settings.get_current_profile_name()
    settings.load_profile(profile)
    try:
        assert examples(2000) == drawn
    finally:
        settings.load_profile(before)
