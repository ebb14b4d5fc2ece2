"""Single planted faults fail exactly the rules that govern them, in a real conformance run."""

# Each fault is one source mutation of reference_impl (built as tests/mutants builds its
# mutants): a mode left current, one changed error text, one wrong ``types``. The suite runs on
# each in a subprocess, as a user would run it, and the certificate must fail exactly the
# fault's rules, not the rules of every later check that happens to see the damage.

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from spec.examples import load_examples
from tests.mutants._build import Mutation
from tests.quality.cli import REPO, suite_command

#: A fault built here: the module the run imports (--impl), and its mutations.
PUSH_LEAK = ("blame_push_leak", (Mutation(
    "overrides.py",
    "        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.\n"
    "        _set_torch_function_mode(self._old)\n",
    "        pass  # the previous mode never comes back\n"),))


@dataclass(frozen=True)
class Fault:
    impl: str
    rules: frozenset[str]
    why: str


FAULTS = {
    "push_leaves_its_mode": Fault("blame_push_leak", frozenset({"TFM_PUSH_003"}),
                                  "push never restores the previous mode"),
    "push_leaves_its_mode_on_error": Fault("tests.mutants.push_no_restore_on_error",
                                           frozenset({"TFM_PUSH_003"}),
                                           "push restores only when the block returns"),
    "one_error_text": Fault("tests.mutants.error_text", frozenset({"TFM_TEXT_007"}),
                            "one phrase of the native no-implementation TypeError reworded"),
    "mode_in_types": Fault("tests.mutants.mode_type_in_types", frozenset({"TFM_TYPES_002"}),
                           "the mode's own type is added to types"),
    # Both rules forbid it in so many words: TYPES_003 always, REACH_007 under a mode.
    "plain_tensor_in_types": Fault("tests.mutants.plain_tensor_overloaded",
                                   frozenset({"TFM_TYPES_003", "TFM_REACH_007"}),
                                   "a plain Tensor is collected as an overloaded argument"),
}


def _write_fault_module(directory: Path) -> None:
    name, mutations = PUSH_LEAK
    (directory / f"{name}.py").write_text(
        "from tests.mutants._build import Mutation, install\n\n"
        f"install(__name__, 'TFM_PUSH_003', 'push never restores', {mutations!r})\n",
        encoding="utf-8")


def _certify(impl: str, workdir: Path, modules: Path) -> dict[str, Any]:
    reports = workdir / "reports"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(workdir / ".hypothesis")
    env["PYTHONPATH"] = os.pathsep.join([str(modules), str(REPO), env.get("PYTHONPATH", "")])
    proc = subprocess.run(suite_command(impl, reports), cwd=REPO, env=env, text=True,
                          capture_output=True, timeout=900, check=False)
    path = reports / "certificate.json"
    assert path.exists(), f"no certificate for {impl} (exit {proc.returncode})\n{proc.stdout[-3000:]}"
    certificate: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return certificate


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[dict[str, Any]]]]:
    modules = tmp_path_factory.mktemp("faults")
    _write_fault_module(modules)
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        yield {name: pool.submit(_certify, fault.impl, tmp_path_factory.mktemp(name), modules)
               for name, fault in FAULTS.items()}


def _failed(certificate: dict[str, Any]) -> set[str]:
    return {rule for rule, entry in certificate["rules"].items() if entry["verdict"] == "fail"}


@pytest.mark.parametrize("name", list(FAULTS))
def test_a_single_fault_fails_exactly_its_rules(
        name: str, certificates: dict[str, Future[dict[str, Any]]]) -> None:
    fault = FAULTS[name]
    certificate = certificates[name].result()
    failed = _failed(certificate)
    others = {rule: [f["test"] for f in certificate["rules"][rule]["failures"]][:3]
              for rule in failed - fault.rules}
    assert failed == fault.rules, (f"{fault.why}: fails {len(failed)} rules, expected "
                                   f"{sorted(fault.rules)}; also blamed: {others}")
    for rule in fault.rules:
        assert certificate["rules"][rule]["failures"], rule


def test_a_leak_seen_by_another_rules_example_is_listed_under_the_restoring_rule(
        certificates: dict[str, Future[dict[str, Any]]]) -> None:
    certificate = certificates["push_leaves_its_mode"].result()
    entry = certificate["rules"]["TFM_PUSH_003"]
    failing = {f["test"] for f in entry["failures"]}
    about_others = {f"conformance/suite/test_examples.py::test_example[{e.name}]"
                    for e in load_examples() if "TFM_PUSH_003" not in e.rules}
    through_others = failing & about_others
    assert through_others, "no example about another rule reported the leak"
    assert through_others <= set(entry["tests"])
    # The state machine sees the leak after an exit, and blames it on the same rule alone.
    assert "conformance/suite/test_stateful.py::test_install_exit_and_call" in failing
