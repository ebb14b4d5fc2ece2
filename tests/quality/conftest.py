"""Prints what the mutant tests recorded (examples needed, timings) after the run."""

from __future__ import annotations

from typing import Any

#: The user_properties key under which tests record one line for the summary table.
SUMMARY_KEY = "mutant_summary"


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
