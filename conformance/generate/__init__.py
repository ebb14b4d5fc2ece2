"""Scenarios as data: how the suite draws them, steps through them and makes them smaller. It owns
:mod:`.strategies` (the hypothesis strategies that generate scenarios for either generation),
:mod:`.steps` (the steps of a stateful, lockstep run, and the scenario they amount to) and
:mod:`.shrink` (greedy structural shrinking while a predicate keeps holding). It runs nothing on
an implementation: it imports only :mod:`spec` and hypothesis, nothing of :mod:`conformance`.
"""
