"""Benchmarks of tfmode-conformance (scripts, not pytest tests): ``tox -e bench``.

``python -m tests.bench`` measures, in one run and on this machine:

* ``dispatch``: the per-call time of reference_impl and of torch 2.13 side by side, on tiny
  tensors (no mode, one and five pass-through modes, a trivial subclass with and without a
  mode, the Python-path function ``split`` under one and five modes);
* ``depth``: the per-call time against nesting depth 1 to 32, with a least-squares line;
* ``sweep``: how many generated scenarios per second ``conformance.search.sweep.run_sweep`` checks
  against reference_impl, and where the time goes;
* ``suite``: the wall time of certifying reference_impl with the ci profile;
* ``xdist``: the same run under ``pytest -n 2``, its verdicts compared with a serial run's;
* ``memory``: resident memory over 1,000,000 dispatches through five nested modes.

It prints its tables as reStructuredText; ``--write-docs`` also writes them to
``docs/_generated/bench.rst``, which ``docs/performance.rst`` includes. Nothing here is timed
inside a test: timings belong in benchmarks, as ratios against torch measured in the same run.
"""
