"""A conformance run fails each mutant on the rule that names its bug; reference_impl passes.

Each implementation is certified in its own subprocess, exactly as a user would run it::

    python -m pytest --pyargs conformance.suite -p conformance.plugin --impl IMPL \\
        --reports-dir DIR -q -p no:cacheprovider --hypothesis-profile triage --hypothesis-seed 0

and the test reads ``DIR/certificate.json``. The seed is fixed so that verdicts do not vary
from run to run, and each run gets its own hypothesis storage directory (the triage profile keeps
an example database; it is dev without shrinking), so no run replays another implementation's failures.

The runs are started together (as many at a time as there are CPUs) the first time a test here
needs one, so the wall time is about the total divided by the CPU count; each run's time is
printed in the "mutants" section of the terminal summary.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from spec.catalogue import load_catalogue
from tests.mutants import MUTANTS

from .cli import SuiteRun, mutant_run
from .conftest import SUMMARY_KEY

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker: its
#: module-scoped fixture starts them all together.
pytestmark = pytest.mark.xdist_group("test_mutants_certified")

REFERENCE = "reference_impl"


def certify(impl: str, factory: pytest.TempPathFactory) -> SuiteRun:
    """Run the suite on ``impl`` in a subprocess (from the repository root) and read the result:
    a run other modules make too (reference_impl's clean run, test_reproducible_verdicts' seed 0
    of a mutant, tests/test_blame.py's runs of mutants) is made once per session (cli.mutant_run)."""
    return mutant_run(factory, impl)


class _Runs:
    """Starts every certification this session selected, together, the first time one is needed."""

    def __init__(self, impls: list[str], factory: pytest.TempPathFactory) -> None:
        self.impls, self.factory = impls, factory
        self.pool: ThreadPoolExecutor | None = None
        self.futures: dict[str, Future[SuiteRun]] = {}

    def get(self, impl: str) -> SuiteRun:
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1))
            for name in self.impls:
                self.futures[name] = self.pool.submit(certify, name, self.factory)
        if impl not in self.futures:
            assert self.pool is not None
            self.futures[impl] = self.pool.submit(certify, impl, self.factory)
        return self.futures[impl].result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)


@pytest.fixture(scope="module")
def runs(request: pytest.FixtureRequest,
         tmp_path_factory: pytest.TempPathFactory) -> Iterator[_Runs]:
    selected: list[str] = []
    for item in request.session.items:
        if getattr(item, "module", None) is not request.module:
            continue
        callspec = getattr(item, "callspec", None)
        impl = f"tests.mutants.{callspec.params['name']}" if callspec else REFERENCE
        if impl not in selected:
            selected.append(impl)
    pool = _Runs(selected, tmp_path_factory)
    yield pool
    pool.close()


def test_reference_impl_passes_every_must_rule(
    runs: _Runs, record_property: Callable[[str, object], None]
) -> None:
    run = runs.get(REFERENCE)
    record_property(SUMMARY_KEY, f"{'(reference_impl)':34} {'':16} certified in {run.seconds:6.1f}s")
    assert run.certificate is not None, f"no certificate (exit {run.returncode})\n{run.tail()}"
    verdicts = run.verdicts()
    must = [r.id for r in load_catalogue().for_generation("2022") if r.level.startswith("MUST")]
    not_passed = {r: verdicts.get(r, "missing") for r in must if verdicts.get(r) != "pass"}
    assert not not_passed, "\n".join(
        [f"reference_impl does not pass every MUST rule: {not_passed}"]
        + [run.why(r) for r in not_passed if verdicts.get(r) == "fail"])
    assert run.certificate["level"]["reached"] in ("MUST", "SHOULD")
    # Every feature it declares is exercised (the examples that need one are marked with it).
    assert run.certificate["level"]["features"] == [
        "comparisons", "conversions", "more-operators", "more-syntax", "properties", "python-path",
        "raw-slot", "setitem", "slicing", "subclass-as-mode", "surface", "syntax"]
    assert run.returncode == 0, run.tail()


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_suite_fails_the_mutant_on_its_rule(
    name: str, runs: _Runs, record_property: Callable[[str, object], None]
) -> None:
    rule = MUTANTS[name]
    run = runs.get(f"tests.mutants.{name}")
    assert run.certificate is not None, f"no certificate (exit {run.returncode})\n{run.tail()}"
    verdicts = run.verdicts()
    failed = run.failed()
    others = [r for r in failed if r != rule]
    record_property(SUMMARY_KEY, f"{name:34} {rule:16} certified in {run.seconds:6.1f}s: "
                                 f"{rule} {verdicts.get(rule, 'missing')}; also failed "
                                 f"{len(others)}: {' '.join(others)}")
    print(f"{name}: {rule} -> {verdicts.get(rule, 'missing')} ({run.seconds:.1f}s); "
          f"other failed rules: {others}")
    assert verdicts.get(rule) == "fail", (
        f"{name} breaks {rule} but the certificate says {verdicts.get(rule, 'missing')!r}; "
        f"failed rules: {failed}")
    # A broken MUST rule reaches no level; a broken SHOULD rule (and no MUST) reaches MUST.
    level = load_catalogue().by_id(rule).level
    assert run.certificate["level"]["reached"] == ("MUST" if level == "SHOULD" else "none")
    assert run.returncode != 0
