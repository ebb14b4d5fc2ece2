"""Hostile implementations: namespaces that attack the suite instead of failing the protocol.

Each is built from reference_impl (as tests/faults and tests/mutants build their copies) with one
behaviour added that tries to turn a broken implementation into a passing certificate, or to
break the run: it writes to the reply pipe, patches the recorder, leaves processes behind,
signals the suite's process, names rules in its exceptions, and so on. The modules are named by
the promise of docs/trust.rst they attack: ``wire_*``, what the child sends; ``proc_*``, the
processes it starts and the signals it sends; ``evid_*``, the certificate and the reports
folder; ``time_*``, time limits; ``tamper_*``, the suite's own code in the child. The tests that
certify them through the real command line are tests/quality/test_trust_*.py: each fails if its
promise does not hold.
"""
