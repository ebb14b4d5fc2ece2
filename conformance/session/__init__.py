"""The pytest plugin's machinery, for one conformance run (:mod:`conformance.plugin` is only its
entry point): the options and activation (:mod:`.activation`, :mod:`.profiles`,
:mod:`.expectations`, :mod:`.selection`), collection (:mod:`.collection`, :mod:`.nodeids`),
the fixtures and the state of the run (:mod:`.fixtures`, :mod:`.runstate`, :mod:`.observed`),
running each test (:mod:`.recording`, :mod:`.notcompiled`, :mod:`.bodies`, :mod:`.badinput`)
and the run's end (:mod:`.finish`, :mod:`.reportsdir`). It may import every layer below it
(:mod:`conformance.report`, :mod:`conformance.exhaustive`, :mod:`conformance.search`,
:mod:`conformance.judge`, :mod:`conformance.sandbox`, :mod:`conformance.target`,
:mod:`conformance.snippet`, :mod:`conformance.surface`, :mod:`conformance.generate`,
:mod:`conformance.base`), :mod:`conformance.version` and :mod:`spec`; only the plugin and the
suite's tests import it.
"""
