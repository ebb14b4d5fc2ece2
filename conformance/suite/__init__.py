"""The conformance suite: run it with ``pytest --pyargs conformance.suite --impl MODULE``."""
