"""Fault: mean loops for ever."""

from tests.faults import MEAN
from tests.mutants._build import Mutation, install

install(__name__, "-", "mean loops for ever", (Mutation(
    "_functions.py", MEAN,
    '    while True:\n'
    '        pass\n'),))
