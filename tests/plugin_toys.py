"""What the plugin's tests share: small suites marked with real rule IDs, the catalogue's rule
lists, running pytest on a toy, and reading its certificate. ``environment`` is an autouse
fixture: a test module imports it to use it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conformance.report.verdicts import MUST_LEVELS
from spec.catalogue import load_catalogue

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = load_catalogue()
#: MUST rules of the 2022 generation (all the reference implementation is checked against).
MUST_2022 = [r.id for r in CATALOGUE.for_generation("2022") if r.level in MUST_LEVELS]
NOT_2022 = len(CATALOGUE) - len(CATALOGUE.for_generation("2022"))
ONLY_2022 = next(r.id for r in CATALOGUE if r.generations == ("2022",))
BOTH = next(r.id for r in CATALOGUE if r.generations == ("2022", "stack"))
#: As a user would name it; where the package is installed, the plugin blocks its own entry
#: point so that it is not registered twice.
PLUGIN = ("-p", "conformance.plugin", "-p", "no:cacheprovider")

TOY = '''
import pytest

@pytest.mark.rule("TFM_ORDER_001")
def test_passes(adapter):
    assert adapter.generation == "2022"

@pytest.mark.rule("TFM_ORDER_002", "TFM_ORDER_003")
def test_fails_for_one_rule(record_property):
    record_property("failed_rules", "TFM_ORDER_003")
    record_property("scenario", '{"generation": "2022", "setup": [{"push": "M"}]}')
    record_property("snippet", "print('repro')")
    record_property("examples", 12)
    assert 1 == 2, "the order is wrong for <object at 0x7f00deadbeef>"

@pytest.mark.rule("TFM_ORDER_004")
def test_order_4_passes():
    pass

@pytest.mark.rule("TFM_ORDER_004")
def test_order_4_fails():
    raise AssertionError("left to right broken")

@pytest.mark.rule("TFM_ORDER_005")
def test_expected_to_fail():
    raise AssertionError("known divergence")

@pytest.mark.generation("stack")
@pytest.mark.rule("TFM_ORDER_006")
def test_for_the_stack_only():
    pass

@pytest.mark.feature("disable-subclass")
@pytest.mark.rule("TFM_ORDER_007")
def test_needs_a_feature():
    pass
'''

EXPECTED = '''
[TFM_ORDER_005]
reason = "this implementation tries types twice"
'''


@pytest.fixture(autouse=True)
def environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    for name in ("CI", "TFMODE_PROFILE", "TFMODE_IMPL", "TFMODE_REPORTS", "TFMODE_EXPECTED_FAILURES"):
        monkeypatch.delenv(name, raising=False)


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_subprocess(*PLUGIN, *args, timeout=300)


def certificate(pytester: pytest.Pytester, reports: str = "reports") -> dict[str, Any]:
    data: dict[str, Any] = json.loads((pytester.path / reports / "certificate.json").read_text())
    return data


def verdicts(cert: dict[str, Any]) -> dict[str, str]:
    return {k: v["verdict"] for k, v in cert["rules"].items() if v["tests"]}
