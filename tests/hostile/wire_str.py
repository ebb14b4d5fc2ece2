"""Hostile: mean raises an exception whose ``__str__`` and ``__repr__`` raise."""

from tests.hostile._base import mean_raises
from tests.mutants._build import install

install(__name__, "-", "mean raises an exception that cannot be printed", (mean_raises(
    raised='__import__("tests.hostile._base", fromlist=["_"]).Unprintable()'),))
