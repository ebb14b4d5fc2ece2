"""Bounded-exhaustive checking: every scenario of a declared scope, each judged as a generated one.

This package owns the scopes (:mod:`.scope`: what a scope bounds, the default and the larger
documented one, and the ``--exhaustive`` text that declares one), their enumeration with
symmetry reduction (:mod:`.enumeration`: modes and classes are only names, so one scenario of
each renaming is checked) and the batched checking of many scenarios per round trip to the
implementation's process (:mod:`.batch`). It may import the model (``spec.model``),
:mod:`conformance.judge` (``check``, ``checked``, ``excusal``), :mod:`conformance.sandbox`
(``parent``, ``replies``), :mod:`conformance.target` and :mod:`conformance.base`; nothing outside
this package imports it but the suite's test of it and the plugin (:mod:`conformance.session`:
the option and the report).
"""
