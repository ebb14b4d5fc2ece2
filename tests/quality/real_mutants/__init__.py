"""Mutation testing of real implementations: single-bug variants of an installed package's
Python-level dispatch code, each checked by a conformance run of the suite's command line.

``harness`` makes and checks the variants (without writing into the installed package),
``runtime`` is the code of the generated module that serves the edited file, ``report`` writes
the JSON result and its reST table; ``torch_overrides`` and ``reference`` are variant sets.
``python -m tests.quality.real_mutants --target torch`` runs one set.
"""
