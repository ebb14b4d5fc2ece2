"""Fault: mean calls os._exit(0)."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean calls os._exit(0)", (Mutation(
    "_functions.py", MEAN,
    '    __import__("os")._exit(0)\n'),))
