"""Prints what the mutant tests recorded (examples needed, timings) after the run; makes the
base temporary folder before the modules' pools start (``_basetemp``)."""

from __future__ import annotations

from typing import Any

import pytest

#: The user_properties key under which tests record one line for the summary table.
SUMMARY_KEY = "mutant_summary"


@pytest.fixture(scope="session", autouse=True)
def _basetemp(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Make the session's base temporary folder before any test here starts threads.

    The pools of these modules ask for it first from their threads (``mktemp``, ``shared_run``),
    and pytest makes it on first use without a lock: under pytest-xdist (``--basetemp`` given)
    an asker that finds it already there removes it and makes it again, so two threads asking
    together fail with FileExistsError or delete each other's folders (seen with pytest 9.2:
    every test of test_fault_battery failed at once on the worker where it ran first).
    """
    tmp_path_factory.getbasetemp()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    lines: list[str] = []
    for outcome in ("passed", "failed"):
        for report in terminalreporter.stats.get(outcome, []):
            if getattr(report, "when", None) != "call":
                continue
            for key, value in getattr(report, "user_properties", ()):
                if key == SUMMARY_KEY:
                    lines.append(f"{value}{'' if outcome == 'passed' else '  [FAILED]'}")
    if lines:
        terminalreporter.write_sep("-", "mutants")
        for line in sorted(lines):
            terminalreporter.write_line(line)
