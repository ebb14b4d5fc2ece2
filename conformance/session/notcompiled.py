"""The outcome "not compiled", which the plugin owns: under ``--compile``, a test that judged
nothing inside ``torch.compile`` ends by raising :class:`NotCompiled` with the rules it stands for
and why. The plugin turns that into a report of its own (never a pass, never a failure): pytest's
terminal counts it as "not compiled", a JUnit file shows it as skipped with its reason, and the
rules it names get the verdict ``not_compiled`` (docs/compile.rst), on the pytest-xdist controller
as in a single process (the rules travel with the report)."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from spec.catalogue import RULE_ID

__all__ = [
    "NOT_COMPILED",
    "NOT_COMPILED_PROPERTY",
    "NotCompiled",
    "is_not_compiled",
    "pytest_report_teststatus",
    "settle",
]

#: How the reason of a not-compiled outcome begins (its text in reports and JUnit files).
NOT_COMPILED = "not compiled:"
#: The report property that carries the rules of a not-compiled outcome (comma-separated).
NOT_COMPILED_PROPERTY = "tfmode_not_compiled"


class NotCompiled(Exception):
    """A test judged nothing compiled: ``rules`` get ``not_compiled`` from it, for ``why``.

    A test of no rule, or with no reason, is refused (ValueError): the outcome stands for rules.
    """

    def __init__(self, rules: Sequence[str], why: str) -> None:
        if not rules or not all(RULE_ID.fullmatch(r) for r in rules) or not why.strip():
            raise ValueError(f"a not-compiled outcome needs rule IDs and a reason, got {rules!r}, {why!r}")
        self.rules = tuple(rules)
        self.why = why
        super().__init__(f"{NOT_COMPILED} {', '.join(self.rules)}: {why}")


def settle(item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport) -> None:
    """Make the report of a phase that raised :class:`NotCompiled` the plugin's outcome: no longer
    an error, shown with its reason, and carrying its rules."""
    caught = None if call.excinfo is None else call.excinfo.value
    if not isinstance(caught, NotCompiled):
        return
    path, line, _ = item.location
    report.outcome = "skipped"  # pytest's word for "ran to no verdict": neither passed nor failed
    report.longrepr = (path, (line or 0) + 1, str(caught))
    report.user_properties.append((NOT_COMPILED_PROPERTY, ",".join(caught.rules)))


def is_not_compiled(report: pytest.TestReport) -> bool:
    """Whether ``report`` is a not-compiled outcome (:func:`settle`)."""
    return report.skipped and any(key == NOT_COMPILED_PROPERTY for key, _ in report.user_properties)


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """The terminal's word for the outcome: "not compiled" (letter ``n``), counted apart."""
    if is_not_compiled(report):
        return "not compiled", "n", "NOT COMPILED"
    return None
