"""The bottom layer: helpers every other layer may use, about texts the implementation cannot be
trusted to give. It owns :mod:`.safe` (``str()``, ``repr()`` and names of the implementation's
objects, which may raise or lie) and :mod:`.textdiff` (character-level differences between two
texts, shown so that an implementer can act on them). It imports nothing of :mod:`conformance`;
only :mod:`spec` and the standard library.
"""
