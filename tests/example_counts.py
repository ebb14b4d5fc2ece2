"""How many examples a repository test that names its own number draws.

A test written for dev's number (``examples(2000)``) draws that many under dev and under any
profile with more; under a profile with fewer (``repository-portable``, on the other Python
versions) it draws the same share of its number as the profile does of dev's.
"""

from __future__ import annotations

from hypothesis import settings

from conformance.session.profiles import PROFILES


def examples(at_dev: int) -> int:
    """``at_dev`` scaled to the profile in force (read when the test module is imported)."""
    dev = PROFILES["dev"]["max_examples"]
    assert isinstance(dev, int)
    now = settings().max_examples
    return max(1, at_dev * now // dev) if now < dev else max(at_dev, now)
