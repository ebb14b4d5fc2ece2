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
from tests.quality.cli import REPO, mutant_run, suite_command

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker: its
#: module-scoped fixture starts them all together.
pytestmark = pytest.mark.xdist_group("test_blame")

#: A fault built here: the module the run imports (--impl), and its mutations.
PUSH_LEAK = ("blame_push_leak", (Mutation(
    "overrides.py",
    "        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.\n"
    "        _set_torch_function_mode(self._old)\n",
    "        pass  # the previous mode never comes back\n"),))
#: Faults built here: the module the run imports (--impl), and its mutations.
BUILT = {
    "blame_push_leak": PUSH_LEAK[1],
    # The Python path's DeprecationWarning worded otherwise: one warning text.
    "blame_warning_text": (Mutation(
        "overrides.py", "plain method is deprecated and will be an error ",
        "plain method is deprecated and will become an error "),),
    # Not a fault: tensor() warns for its own reasons the first time (as torch's NumPy notice).
    "blame_noisy_tensor": (Mutation(
        "_tensor.py",
        "    return Tensor(data)\n",
        "    import warnings\n"
        "    if not _NOTICE:\n"
        "        _NOTICE.append(1)\n"
        "        warnings.warn('Failed to initialize FooLib: no module named foolib', UserWarning)\n"
        "    return Tensor(data)\n\n\n_NOTICE: list[int] = []\n"),),
    # has_torch_function ends the process on a non-iterable argument, as torch 1.12.1's C code
    # did (pytorch/pytorch#87963): a crash of the child, which fails the rule of the case.
    "blame_abort_non_sequence": (Mutation(
        "_C.py",
        '    """True if some element must dispatch; with a mode current, any element does."""\n',
        '    """True if some element must dispatch; with a mode current, any element does."""\n'
        "    try:\n"
        "        iter(relevant_args)\n"
        "    except TypeError:\n"
        '        __import__("os").abort()\n'),),
    # has_torch_function counts a subclass's override inside DisableTorchFunction (as compiled
    # torch 2.5.1 and 2.8.0 did): a function a handler calls again under the guard dispatches,
    # finds no handler and raises where it should compute.
    "blame_guard_ignores_disable": (Mutation(
        "_C.py", "    if tp is _tensor_class or not _tls.state.enabled:\n",
        "    if tp is _tensor_class:\n"),),
}
#: The warning blame_noisy_tensor raises, as the certificate lists it.
NOISE = {"category": "UserWarning", "message": "Failed to initialize FooLib: no module named foolib"}


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
    "one_warning_text": Fault("blame_warning_text", frozenset({"TFM_TEXT_011"}),
                              "one word of the Python path's plain-method warning changed"),
    "noise_warning": Fault("blame_noisy_tensor", frozenset(),
                           "tensor() warns once for its own reasons: no rule may fail"),
    "mode_in_types": Fault("tests.mutants.mode_type_in_types", frozenset({"TFM_TYPES_002"}),
                           "the mode's own type is added to types"),
    # Both rules forbid it in so many words: TYPES_003 always, REACH_007 under a mode.
    "plain_tensor_in_types": Fault("tests.mutants.plain_tensor_overloaded",
                                   frozenset({"TFM_TYPES_003", "TFM_REACH_007"}),
                                   "a plain Tensor is collected as an overloaded argument"),
    # The warning is right but early: the rule that says when it comes, not the rules that
    # forbid a warning where none is due.
    "native_warning_early": Fault("tests.mutants.plain_warning_early", frozenset({"TFM_SELF_002"}),
                                  "the native plain-method warning comes before the handler runs"),
    # A crash of the implementation while the suite tries bad input: a failure of that rule.
    "abort_on_non_sequence": Fault("blame_abort_non_sequence", frozenset({"TFM_REACH_008"}),
                                   "has_torch_function(5) kills the process with SIGABRT"),
    # A function with no relevant arguments dispatched to the mode: the empty sequence's rule,
    # not the rule of the event predicted there (the mode restored once the call is over).
    "empty_sequence_dispatches": Fault("tests.mutants.empty_sequence_dispatches",
                                       frozenset({"TFM_REACH_002"}),
                                       "has_torch_function(()) is True under a mode"),
    # The exception the guarded call raises is the guard's divergence, not that of every rule
    # that decides the value it should have returned (the default handler's TFM_DISABLE_004,
    # the first answer's TFM_ORDER_007, ...).
    "guard_ignores_disable": Fault("blame_guard_ignores_disable", frozenset({"TFM_REACH_003"}),
                                   "has_torch_function counts overrides inside DisableTorchFunction"),
}


def _write_fault_module(directory: Path) -> None:
    for name, mutations in BUILT.items():
        (directory / f"{name}.py").write_text(
            "from tests.mutants._build import Mutation, install\n\n"
            f"install(__name__, '-', {name!r}, {mutations!r})\n",
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


def _mutant(impl: str, factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The run of one of tests/mutants that tests/quality/test_mutants_certified.py makes too:
    the same command, made once per session (cli.mutant_run)."""
    run = mutant_run(factory, impl)
    assert run.certificate is not None, f"no certificate for {impl} (exit {run.returncode})\n{run.tail()}"
    return run.certificate


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Future[dict[str, Any]]]]:
    modules = tmp_path_factory.mktemp("faults")
    _write_fault_module(modules)
    with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
        yield {name: (pool.submit(_mutant, fault.impl, tmp_path_factory)
                      if fault.impl.startswith("tests.mutants.")
                      else pool.submit(_certify, fault.impl, tmp_path_factory.mktemp(name), modules))
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


def test_a_crash_on_bad_input_names_the_signal_and_the_case(
        certificates: dict[str, Future[dict[str, Any]]]) -> None:
    certificate = certificates["abort_on_non_sequence"].result()
    failures = certificate["rules"]["TFM_REACH_008"]["failures"]
    assert [f["test"] for f in failures] == [
        "conformance/suite/test_contract.py::test_bad_input_to_the_protocol_functions"]
    message = failures[0]["message"]
    assert "killed by SIGABRT" in message, message
    assert "next has_torch_function(5) without a mode" in message, message
    assert certificate["run"]["complete"] and certificate["level"]["reached"] == "none"


def test_noise_warnings_are_listed_and_fail_nothing(
        certificates: dict[str, Future[dict[str, Any]]]) -> None:
    certificate = certificates["noise_warning"].result()
    assert not _failed(certificate)
    assert certificate["level"]["reached"] != "none"
    listed = [{k: n[k] for k in ("category", "message")} for n in certificate["noise_warnings"]]
    assert NOISE in listed, certificate["noise_warnings"]
    assert all(n["count"] >= 1 for n in certificate["noise_warnings"])
