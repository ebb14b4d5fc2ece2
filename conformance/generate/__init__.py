"""Scenarios as data: how the suite draws them, steps through them and makes them smaller. It owns
:mod:`.draws` (what a generated scenario is made of, as choices, and a seeded chooser),
:mod:`.strategies` (the same choices made by hypothesis, for either generation),
:mod:`.steps` (the steps of a stateful, lockstep run, and the scenario they amount to) and
:mod:`.shrink` (greedy structural shrinking while a predicate keeps holding). It runs nothing on
an implementation: it imports only :mod:`spec` and hypothesis, nothing of :mod:`conformance`.
"""
