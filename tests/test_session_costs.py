"""tests/session_costs.py: the summary of a session's process time by test module."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.session_costs import by_module

pytest_plugins = ["pytester"]


def test_costs_add_up_by_module_the_costliest_first() -> None:
    lines = [json.dumps({"module": m, "seconds": s})
             for m, s in [("tests/a.py", 1.5), ("tests/b.py", 4.0), ("tests/a.py", 3.0), ("", 0)]]
    assert by_module([*lines[:3], "", "  "]) == [("tests/a.py", 4.5, 2), ("tests/b.py", 4.0, 1)]


def test_a_session_prints_the_cost_of_its_modules(pytester: pytest.Pytester,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parents[1]))
    pytester.makepyfile(test_spin="""
        import subprocess, sys

        def test_child():
            subprocess.run([sys.executable, "-c", "sum(range(20_000_000))"], check=True)

        def test_nothing():
            pass
    """)
    pytester.makeconftest('pytest_plugins = ["tests.session_costs"]')
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["tests/session_costs.py: * process-s in 2 tests of 1 modules",
                                 "tests/session_costs.py: * process-s in    2 test(s) of test_spin.py"])
    line = next(out for out in result.outlines if out.endswith("of test_spin.py"))
    assert float(line.split()[1]) > 0  # the child's time is the test's
