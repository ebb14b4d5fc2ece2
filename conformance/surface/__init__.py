"""The overridable surface: every callable an implementation lists, and its Tensor's syntax.

The scenarios of the suite reach a handful of functions by ordinary calls; this package checks
every callable an implementation lists as overridable (torch:
``torch.overrides.get_testing_overrides()``), and the syntactic entry points of its Tensor
(indexing, operators, conversions, ``iter``, ``numpy.asarray``, dispatched properties), each
under a recording mode and with duck-typed arguments. It owns four steps:

- :mod:`.listing` (runs in the implementation's sandbox): what the implementation lists, each
  callable with the name the certificate shows;
- :mod:`.arguments` (sandbox): arguments built from each callable's signature, refined from the
  implementation's own argument errors;
- :mod:`.probe` and :mod:`.syntax` (sandbox): the calls, and a plain-data account of what each
  handler saw;
- :mod:`.judge` (the suite's process): the account checked and turned into the rules it breaks,
  per callable, with the expected failures scoped to callables applied.

It may import :mod:`conformance.base.safe` and :mod:`spec`; nothing in it imports the plugin, and the
sandbox steps import nothing of the suite's process.
"""
