"""Repository-wide pytest set-up: hypothesis profiles for the repository's own tests.

The conformance suite chooses its own profile (``conformance.plugin``); when it is active —
also when it is run as a plugin from elsewhere and pytest finds this file — nothing here
touches hypothesis' settings.

The repository's tests draw as many examples in CI as anywhere else: where CI is set they run
under ``repository-ci``, the suite's ``ci`` profile (derandomized, so a CI run is reproducible)
with ``dev``'s number of examples. The suite's ``ci`` profile itself keeps its 300 for
conformance runs; the repository's tests, under it, drew three times the examples in CI that
they draw on a developer's machine.

On the other Python versions (tox's tests-py310 ... tests-py313 set TESTS_PORTABLE) they draw
a quarter of those examples, under ``repository-portable``: the search runs whole on the Python
that runs tox; there the question is whether the same code gives the same answers on another
interpreter, which a smaller sample of the same scenarios answers. Tests that name their own
number of examples scale it the same way (tests/example_counts.py).
"""

from __future__ import annotations

import os

import pytest
from hypothesis import settings

from conformance import plugin
from conformance.session import profiles

#: --dist loadgroup keeps each xdist_group on one worker on every pytest (tests/xdist_groups.py);
#: a session that starts the same run of the suite twice fails (tests/suite_runs.py); it ends
#: with its process time by test module (tests/session_costs.py)
pytest_plugins = ["tests.xdist_groups", "tests.suite_runs", "tests.session_costs"]

#: Set (to anything) by the tox envs of the other Python versions.
PORTABLE = "TESTS_PORTABLE"
#: There the repository's property tests draw one in this many of their examples.
PORTABLE_SHARE = 4


def pytest_configure(config: pytest.Config) -> None:
    if plugin.suite_active(config) or config.getoption("hypothesis_profile", None):
        return
    profiles.register()
    settings.load_profile(repository_profile())


def repository_profile() -> str:
    """The profile of the repository's own tests: the suite's default (TFMODE_PROFILE, else
    ``dev``), but ``repository-ci`` for ``ci`` chosen by the CI variable, and
    ``repository-portable`` (either, with a quarter of dev's examples) where TESTS_PORTABLE is
    set."""
    name = profiles.default_profile()
    if os.environ.get("TFMODE_PROFILE"):
        return name
    portable = bool(os.environ.get(PORTABLE))
    if name != "ci" and not portable:
        return name
    dev = settings.get_profile("dev").max_examples
    label = "repository-portable" if portable else "repository-ci"
    settings.register_profile(label, parent=settings.get_profile(name),
                              max_examples=dev // PORTABLE_SHARE if portable else dev)
    return label
