"""Searches over many scenarios, each judged by :mod:`conformance.judge`: a pass of generated
scenarios recorded rule by rule (:mod:`.sweep`), the model and an implementation stepped in
lockstep (:mod:`.lockstep`), and a stateful run's divergences turned into a failure like any
other test's (:mod:`.replay`). It may import :mod:`conformance.judge` and everything below it
(:mod:`conformance.sandbox`, :mod:`conformance.target`, :mod:`conformance.snippet`,
:mod:`conformance.generate`, :mod:`conformance.base`) and :mod:`spec`.
"""
