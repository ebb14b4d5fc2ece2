"""Repository-wide pytest set-up: hypothesis profiles for the repository's own tests."""

from __future__ import annotations

from hypothesis import settings

from conformance import profiles

profiles.register()
settings.load_profile(profiles.default_profile())
