"""The implementation under test, and one scenario executed on it. It owns the adapter contract
(:mod:`.adapter`, re-exported as :mod:`conformance.adapter` for the adapters users write, and
:mod:`.namespace`, the namespace contract as data), how a scenario's objects are built
(:mod:`.builders`) and its handlers' arguments described (:mod:`.arguments`), the run that
records a scenario's observed trace (:mod:`.runner`, and :mod:`.compiled` under
``torch.compile``), and the warnings an implementation raises for its own reasons
(:mod:`.noise`). It may import :mod:`conformance.base`, :mod:`conformance.surface` (what an
implementation lists as overridable) and :mod:`spec`; it runs in whichever process calls it, the
sandbox's child included, and knows nothing of processes, judging or pytest.
"""
