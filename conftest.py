"""Repository-wide pytest set-up: hypothesis profiles for the repository's own tests.

The conformance suite chooses its own profile (``conformance.plugin``); when it is active —
also when it is run as a plugin from elsewhere and pytest finds this file — nothing here
touches hypothesis' settings.
"""

from __future__ import annotations

import pytest
from hypothesis import settings

from conformance import plugin, profiles

#: --dist loadgroup keeps each xdist_group on one worker on every pytest (tests/xdist_groups.py);
#: a session that starts the same run of the suite twice fails (tests/suite_runs.py)
pytest_plugins = ["tests.xdist_groups", "tests.suite_runs"]


def pytest_configure(config: pytest.Config) -> None:
    if plugin.suite_active(config) or config.getoption("hypothesis_profile", None):
        return
    profiles.register()
    settings.load_profile(profiles.default_profile())
