"""Judging one scenario: predict it with the model, run it in the sandbox, compare, conclude. It
owns the check (:mod:`.check`, and :mod:`.compilecheck` under ``--compile`` with its three-way
oracle :mod:`.threeway`), the one comparison pass (:mod:`.comparison` over :mod:`.compare`, with
the rules that decide each difference: :mod:`.attribution`), expected failures applied to it
(:mod:`.excusal`), the conclusion (:mod:`.checked`) and how a failure is said in an implementer's
terms (:mod:`.divergence`, :mod:`.failure`). It may import :mod:`conformance.sandbox`,
:mod:`conformance.target`, :mod:`conformance.snippet`, :mod:`conformance.generate`,
:mod:`conformance.base` and :mod:`spec`; it knows nothing of pytest's run.
"""
