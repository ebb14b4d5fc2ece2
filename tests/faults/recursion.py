"""Fault: mean calls itself without end."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean calls itself without end", (Mutation(
    "_functions.py", MEAN,
    '    return mean(*args, **kwargs)\n'),))
