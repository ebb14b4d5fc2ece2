"""Verdicts do not depend on luck: dev runs with different seeds and ``--certify`` runs give every
rule the same verdict, for reference_impl and for a broken implementation.

The repository's tests make three seeded runs and one certification of each; ``tox -e
reproducibility`` (``REPRODUCIBILITY_RUNS=full``) makes fifteen and three.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor

import pytest

from .cli import SuiteRun, certification, run_suite, shared_run
from .conftest import SUMMARY_KEY

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker: its
#: module-scoped fixture starts them all together.
pytestmark = pytest.mark.xdist_group("test_reproducible_verdicts")

FULL = os.environ.get("REPRODUCIBILITY_RUNS") == "full"
#: Seed 0 is the seed of the other modules' runs: those of reference_impl and of the mutant are
#: made once per session (cli.shared_run), and so is reference_impl's first certification
#: (cli.certification, which test_randomness reads too). The other certifications are made
#: afresh, each its own.
SEEDS = [str(n) for n in range(15 if FULL else 3)]
CERTIFY_RUNS = 3 if FULL else 1
#: reference_impl, and a mutant whose one bug (the mode's own type in ``types``) generated
#: scenarios meet often and explicit examples meet too.
IMPLS = ["reference_impl", "tests.mutants.mode_type_in_types"]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, list[Future[SuiteRun]]]]:
    pool = ThreadPoolExecutor(max_workers=max(1, min(2, os.cpu_count() or 1)))
    futures: dict[str, list[Future[SuiteRun]]] = {}
    for impl in IMPLS:
        name = impl.rpartition(".")[2]
        futures[impl] = [pool.submit(shared_run, tmp_path_factory, impl, seed=seed)
                         for seed in SEEDS]
        futures[impl] += [
            pool.submit(certification, tmp_path_factory) if impl == "reference_impl" and n == 0
            # (the certification's exhaustive scope, the same scenarios on every run, is left out
            # of the others: 50,000 scenarios each, and nothing random in them to reproduce)
            else pool.submit(run_suite, impl, tmp_path_factory.mktemp(f"{name}-c{n}"),
                             ("--certify", "--exhaustive", "none"),
                             seed=None, profile=None,
                             again="certifications repeated to compare" if n else None)
            for n in range(CERTIFY_RUNS)]
    yield futures
    pool.shutdown(wait=True, cancel_futures=True)


@pytest.mark.parametrize("impl", IMPLS)
def test_every_seed_and_every_certification_gives_the_same_verdicts(
        impl: str, runs: dict[str, list[Future[SuiteRun]]],
        record_property: Callable[[str, object], None]) -> None:
    done = [future.result() for future in runs[impl]]
    labels = [f"seed {s}" for s in SEEDS] + [f"--certify #{n + 1}" for n in range(CERTIFY_RUNS)]
    for label, run in zip(labels, done, strict=True):
        assert run.certificate is not None, f"{impl}, {label}: no certificate\n{run.tail()}"
        assert run.certificate["run"]["complete"], f"{impl}, {label}: {run.certificate['run']}"
    certify = [run.certificate for run in done[len(SEEDS):]]
    assert all(c is not None and c["hypothesis"]["derandomize"] for c in certify)
    first = done[0].verdicts()
    differing = {label: {r: (first[r], v) for r, v in run.verdicts().items() if v != first[r]}
                 for label, run in zip(labels, done, strict=True) if run.verdicts() != first}
    failing = sorted(r for r, v in first.items() if v == "fail")
    record_property(SUMMARY_KEY, f"reproducible {impl:34} {len(done)} runs, failing {failing}")
    assert not differing, f"{impl}: verdicts differ from seed {SEEDS[0]}'s: {differing}"
    assert (not failing) == (impl == "reference_impl"), failing
