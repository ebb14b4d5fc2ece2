"""A pytest plugin that stops the run from outside the implementation: ``FAULT_BATTERY_STOP=worker``
kills the pytest-xdist worker that runs the first explicit example; ``FAULT_BATTERY_STOP=interrupt``
interrupts the run there (as Ctrl-C would)."""

from __future__ import annotations

import os
from typing import Any

#: The test at which the run is stopped.
VICTIM = "test_examples.py::test_example[test_modes_handle_first]"


def pytest_runtest_call(item: Any) -> None:
    if not item.nodeid.endswith(VICTIM):
        return
    fault = os.environ.get("FAULT_BATTERY_STOP")
    if fault == "worker" and os.environ.get("PYTEST_XDIST_WORKER"):
        os._exit(1)
    if fault == "interrupt":
        raise KeyboardInterrupt
