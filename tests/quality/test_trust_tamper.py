"""The child's tripwire: an implementation that replaces the suite's own code in its process
(here the resolver of the child's requests, so that every request runs on an honest
reference_impl) gets no passing certificate, whether it does so at import or later, inside a
scenario; serially and with ``-n 2 --certify``.

The forgery itself is in tests/hostile/_tamper.py; without conformance.sandbox.integrity each of these
runs certified the broken namespace (its ``mean`` always raises) at MUST or better.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from .cli import SuiteRun, run_suite

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker.
pytestmark = pytest.mark.xdist_group("test_trust_tamper")

BOUND = 240.0
#: a small exhaustive scope that calls mean
MEAN_SCOPE = ("--exhaustive", "modes=0,classes=1,setup=0,functions=mean|add")
RUNS: dict[str, tuple[str, tuple[str, ...]]] = {
    "at-import": ("tests.hostile.tamper_resolve", ()),
    "in-a-scenario": ("tests.hostile.tamper_lazy", ()),
    # (a certification's exhaustive part, in a scope that calls mean, where the forgery is)
    "in-a-scenario-n2-certify": ("tests.hostile.tamper_lazy", ("-n", "2", "--certify", *MEAN_SCOPE)),
}
TAMPERED = "changed the suite's own code in its process"


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[SuiteRun]]]:
    with ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1))) as pool:
        yield {key: pool.submit(run_suite, impl, tmp_path_factory.mktemp(key), extra, BOUND)
               for key, (impl, extra) in RUNS.items()}


def test_a_forgery_at_import_is_refused_in_one_line(runs: dict[str, Future[SuiteRun]]) -> None:
    run = runs["at-import"].result()
    assert run.returncode == 4, run.tail()
    errors = [line for line in run.output.splitlines() if TAMPERED in line]
    assert len(errors) == 1 and "conformance.sandbox._child._resolve replaced" in errors[0], run.tail()
    assert "Traceback" not in run.output, run.tail()
    assert run.certificate is None, "a run refused at load writes no certificate"


@pytest.mark.parametrize("key", ["in-a-scenario", "in-a-scenario-n2-certify"])
def test_a_forgery_in_a_scenario_certifies_nothing(runs: dict[str, Future[SuiteRun]], key: str) -> None:
    run = runs[key].result()
    assert run.returncode not in (0, -1), run.tail()
    assert run.certificate is not None, run.tail()
    assert run.certificate["run"]["complete"] is False, run.certificate["run"]
    assert any(TAMPERED in p and "conformance.sandbox._child._resolve replaced" in p
               for p in run.certificate["run"]["problems"]), run.certificate["run"]["problems"]
    assert run.certificate["level"]["reached"] == "none"
    badge = (run.reports / "badge.json").read_text(encoding="utf-8")
    assert "incomplete run" in badge, badge
    # the requests after the forgery fail (they are not sent), rather than pass on reference_impl
    assert run.certificate["summary"]["fail"] > 0, run.certificate["summary"]
