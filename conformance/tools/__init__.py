"""Tools beside the suite, each run from the command line (``python -m conformance ...``) or from
Python: differential runs of two implementations (:mod:`.diff`), the quick check of the
specification's shipped scenarios (:mod:`.quick`, re-exported as
:func:`conformance.quick_check`), text measurement (:mod:`.measure`), and the rules across torch
releases (:mod:`.evolution`, :mod:`.glance`) that :mod:`conformance.matrix` writes. It may import
:mod:`conformance.search`, :mod:`conformance.judge`, :mod:`conformance.sandbox`,
:mod:`conformance.target`, :mod:`conformance.surface`, :mod:`conformance.snippet`,
:mod:`conformance.generate`, :mod:`conformance.base` and :mod:`spec`; nothing in it imports the
pytest plugin (:mod:`conformance.session`).
"""
