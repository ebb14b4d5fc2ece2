"""Fault: mean writes 20 MB to stderr and raises with a 20 MB message."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean writes 20 MB to stderr and raises with a 20 MB message", (Mutation(
    "_functions.py", MEAN,
    '    __import__("sys").stderr.write("x" * 20_000_000)\n'
    '    raise ValueError("y" * 20_000_000)\n'),))
