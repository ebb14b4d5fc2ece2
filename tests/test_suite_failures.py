"""Every kind of suite test fails in terms an implementer can act on, in a real conformance run.

Each broken implementation is certified through the real command line, in a subprocess, as a
user would run it; its certificate must say, for the failure of each kind of test (explicit
examples, generated scenarios, the state machines, the thread and contract tests), which rule
it breaks and nothing else, the value that differs in full, where two texts part, and carry a
scenario or a snippet that, run on its own, shows the failure (and, run on reference_impl,
does not).
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import NamespaceAdapter
from conformance.judge.check import check
from spec.model import scenario_from_dict
from tests.mutants._build import Mutation, build
from tests.quality.cli import REPO, mutant_run, suite_command

#: Under pytest-xdist (--dist loadgroup) this module's runs start once, on one worker.
pytestmark = pytest.mark.xdist_group("test_suite_failures")

TORCH = importlib.util.find_spec("torch") is not None

#: The "already an active mode" error with one space where the rules say two (TFM_TEXT_005).
ONE_SPACE = (Mutation("overrides.py", 'f"{old}.  {help_text}"', 'f"{old}. {help_text}"'),)
#: BaseTorchFunctionMode drops the keywords of the calls it passes through (TFM_PUSH_009).
NO_KEYWORDS = (Mutation("overrides.py", "        return func(*args, **kwargs)\n",
                        "        return func(*args)\n"),)
BUILT = {"msg_one_space": ONE_SPACE, "msg_no_keywords": NO_KEYWORDS}

#: A stack-generation adapter over torch whose empty-stack error has two spaces (TFM_TEXT_012).
STACK_ADAPTER = '''
import torch

from conformance.adapter import NamespaceAdapter


class _Mode(torch.overrides.TorchFunctionMode):
    def __exit__(self, *exc_info):
        try:
            return super().__exit__(*exc_info)
        except RuntimeError as exc:
            raise RuntimeError(str(exc).replace("empty mode", "empty  mode")) from None


class OneSpaceAdapter(NamespaceAdapter):
    def __init__(self):
        super().__init__(torch)
        self.TorchFunctionMode = _Mode
'''

#: Each run: the implementation and which of the suite's tests it runs (-k). A whole run of one
#: of tests/mutants is the one tests/quality/test_mutants_certified.py makes (cli.mutant_run:
#: the same command, made once per session); its state machine's failure is the same there.
RUNS: dict[str, tuple[str, str | None]] = {
    "one_space": ("msg_one_space", None),
    "threads": ("tests.mutants.global_slot", "test_threads"),
    "contract": ("msg_no_keywords", "test_contract"),
    "same_mode": ("tests.mutants.enable_same_mode_raises", None),
}
if TORCH:
    RUNS["stack"] = ("msg_stack_adapter:OneSpaceAdapter", "test_stateful")

STATEFUL = "conformance/suite/test_stateful.py::test_install_exit_and_call"


def _env(modules: Path, workdir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "TFMODE_"))}
    env["HYPOTHESIS_STORAGE_DIRECTORY"] = str(workdir / ".hypothesis")
    env["PYTHONPATH"] = os.pathsep.join([str(modules), str(REPO), env.get("PYTHONPATH", "")])
    return env


def _certify(impl: str, select: str | None, workdir: Path, modules: Path,
             factory: pytest.TempPathFactory) -> dict[str, Any]:
    if select is None and impl.startswith("tests.mutants."):
        run = mutant_run(factory, impl)
        assert run.certificate is not None, f"no certificate for {impl} (exit {run.returncode})\n{run.tail()}"
        return run.certificate
    reports = workdir / "reports"
    extra = ("-k", select) if select else ()
    proc = subprocess.run(suite_command(impl, reports, extra), cwd=REPO, env=_env(modules, workdir),
                          text=True, capture_output=True, timeout=900, check=False)
    path = reports / "certificate.json"
    assert path.exists(), f"no certificate for {impl} (exit {proc.returncode})\n{proc.stdout[-3000:]}"
    certificate: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return certificate


@pytest.fixture(scope="module")
def modules(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("modules")
    for name, mutations in BUILT.items():
        (directory / f"{name}.py").write_text(
            "from tests.mutants._build import Mutation, install\n\n"
            f"install(__name__, '-', {name!r}, {mutations!r})\n", encoding="utf-8")
    (directory / "msg_stack_adapter.py").write_text(STACK_ADAPTER, encoding="utf-8")
    return directory


@pytest.fixture(scope="module")
def certificates(tmp_path_factory: pytest.TempPathFactory,
                 modules: Path) -> Iterator[dict[str, Future[dict[str, Any]]]]:
    with ThreadPoolExecutor(max_workers=2) as pool:
        yield {name: pool.submit(_certify, impl, select, tmp_path_factory.mktemp(name), modules,
                                 tmp_path_factory)
               for name, (impl, select) in RUNS.items()}


def _failures(certificate: dict[str, Any], test: str) -> dict[str, dict[str, Any]]:
    """{rule: the failure of ``test`` listed under it} for every rule ``test`` failed."""
    return {rule: failure for rule, entry in certificate["rules"].items()
            for failure in entry["failures"] if failure["test"].endswith(test)}


def _run(snippet: str, modules: Path, tmp_path: Path, name: str) -> tuple[int, str]:
    """Run ``snippet`` as a script (``modules`` and the repository importable); its exit
    status and what it printed."""
    path = tmp_path / f"{name}.py"
    path.write_text(snippet, encoding="utf-8")
    proc = subprocess.run([sys.executable, str(path)], cwd=tmp_path, env=_env(modules, tmp_path),
                          text=True, capture_output=True, timeout=120, check=False)
    return proc.returncode, proc.stdout


def _on_reference(snippet: str, impl: str) -> str:
    """``snippet`` with reference_impl where it names ``impl``."""
    return snippet.replace(impl, "reference_impl")


def _caret_under(message: str, expected_char: str, observed_char: str) -> None:
    """The message's caret stands under the first character where the two windows differ."""
    lines = message.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip() == "^")
    exp, obs, col = lines[at - 2], lines[at - 1], lines[at].index("^")
    assert exp.lstrip().startswith("expected: ") and obs.lstrip().startswith("observed: "), message
    assert exp[col] == expected_char and obs[col] == observed_char, message
    assert exp[col - 20:col] == obs[col - 20:col] or "0x…" in exp + obs, message


# -- the state machine: the user's report --------------------------------------------------


def test_a_one_character_text_difference_fails_its_rule_alone_with_a_scenario(
        certificates: dict[str, Future[dict[str, Any]]]) -> None:
    certificate = certificates["one_space"].result()
    failed = _failures(certificate, STATEFUL)
    assert set(failed) == {"TFM_TEXT_005"}, sorted(failed)
    marked = [r for r, e in certificate["rules"].items() if STATEFUL in e["tests"]]
    assert len(marked) > 1 and all(certificate["rules"][r]["verdict"] == "pass"
                                   for r in marked if r != "TFM_TEXT_005")
    failure = failed["TFM_TEXT_005"]
    message = failure["message"]
    assert message.startswith("Failed: breaks TFM_TEXT_005 at step "), message
    assert "the outcome, the error text [TFM_TEXT_005]:" in message
    # Both texts in full, never cut: the model's (two spaces) and the implementation's (one).
    help_text = r"(Use push_torch_function_mode instead\.|If you intended .* compositional!)'\)\n"
    assert re.search(r"\n  expected: ValueError\('Attempted to enable_torch_function_mode, but "
                     r"there is already an active mode <[^>]+>\.  " + help_text, message)
    assert re.search(r"\n  observed: ValueError\('Attempted to enable_torch_function_mode, but "
                     r"there is already an active mode <[^>]+>\. " + help_text, message)
    assert re.search(r"first difference at character \d+.*: expected ' ' \(U\+0020 SPACE\), "
                     r"observed '[UI]'", message)
    _caret_under(message, " ", "U" if "observed 'U'" in message else "I")
    assert "the steps (shrunk): 1. " in message and "more lines" not in message


def test_the_stateful_failures_scenario_and_snippet_reproduce_it(
        certificates: dict[str, Future[dict[str, Any]]], modules: Path, tmp_path: Path) -> None:
    failure = _failures(certificates["one_space"].result(), STATEFUL)["TFM_TEXT_005"]
    assert isinstance(failure["scenario"], dict), failure
    scenario = scenario_from_dict(failure["scenario"])
    checked = check(scenario, NamespaceAdapter(build("msg_one_space_here", ONE_SPACE)))
    assert checked is not None and checked.rules == ("TFM_TEXT_005",), checked
    code, out = _run(failure["snippet"], modules, tmp_path, "broken")
    assert code == 1 and re.search(r"raised ValueError: Attempted .* mode <[^>]+>\. (Use|If)", out), out
    code, out = _run(_on_reference(failure["snippet"], "msg_one_space"), modules,
                     tmp_path, "reference")
    assert code == 1 and re.search(r"raised ValueError: Attempted .* mode <[^>]+>\.  (Use|If)", out), out


def test_a_run_no_scenario_expresses_has_a_snippet_that_replays_it(
        certificates: dict[str, Future[dict[str, Any]]], modules: Path, tmp_path: Path) -> None:
    impl = "tests.mutants.enable_same_mode_raises"
    failed = _failures(certificates["same_mode"].result(), STATEFUL)
    assert failed and set(failed) <= {"TFM_ENABLE_001", "TFM_ENABLE_002"}, sorted(failed)
    failure = next(iter(failed.values()))
    assert "the steps (shrunk): 1. " in failure["message"]
    assert ("reproduced by this scenario" in failure["message"]) == ("scenario" in failure)
    broken = _run(failure["snippet"], modules, tmp_path, "broken")
    reference = _run(_on_reference(failure["snippet"], impl), modules, tmp_path,
                     "reference")
    assert broken[1] and broken != reference, broken


if TORCH:  # the stack generation, through an adapter over torch (where torch is installed)

    def test_a_stack_run_that_exits_a_mode_never_entered_is_replayed_step_by_step(
            certificates: dict[str, Future[dict[str, Any]]], modules: Path, tmp_path: Path) -> None:
        test = "conformance/suite/test_stateful.py::test_enter_exit_out_of_order_and_call"
        failed = _failures(certificates["stack"].result(), test)
        assert set(failed) == {"TFM_TEXT_012"}, sorted(failed)
        failure = failed["TFM_TEXT_012"]
        message = failure["message"]
        assert "expected: RuntimeError('trying to pop from empty mode stack')" in message
        assert "observed: RuntimeError('trying to pop from empty  mode stack')" in message
        _caret_under(message, "m", " ")
        assert "scenario" not in failure and "a scenario cannot exit a mode it never entered" in message
        code, out = _run(failure["snippet"], modules, tmp_path, "broken")
        assert code == 0 and "raised RuntimeError: trying to pop from empty  mode stack" in out, out


# -- the other kinds of test -------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["test_examples.py::test_example[", "test_generated.py::test_generated"])
def test_scenario_failures_show_the_character_where_the_texts_part(
        kind: str, certificates: dict[str, Future[dict[str, Any]]]) -> None:
    certificate = certificates["one_space"].result()
    failures = [f for f in certificate["rules"]["TFM_TEXT_005"]["failures"] if kind in f["test"]]
    assert failures, kind
    for failure in failures:
        message = failure["message"]
        assert "TFM_TEXT_005" in message.splitlines()[0]
        assert "the outcome, the error text [TFM_TEXT_005]:" in message
        assert "(U+0020 SPACE)" in message
        _caret_under(message, " ", "U" if "observed 'U'" in message else "I")
        assert isinstance(failure["scenario"], dict) and failure["snippet"].startswith('"""Reproduces')
    assert {r for r, e in certificate["rules"].items() if e["verdict"] == "fail"} == {"TFM_TEXT_005"}


def test_a_thread_failure_names_its_rule_and_the_mode_it_saw(
        certificates: dict[str, Future[dict[str, Any]]], modules: Path, tmp_path: Path) -> None:
    test = "test_threads.py::test_a_new_thread_starts_without_a_mode"
    failed = _failures(certificates["threads"].result(), test)
    assert set(failed) == {"TFM_THREAD_001"}, sorted(failed)
    message = failed["TFM_THREAD_001"]["message"]
    assert ("the current mode in a new thread started inside the push block [TFM_THREAD_001]:\n"
            "  expected: None\n  observed: <tests.mutants.global_slot.overrides.Log0 object at 0x…>"
            in message), message
    snippet = failed["TFM_THREAD_001"]["snippet"]
    _, out = _run(snippet, modules, tmp_path, "broken")
    assert re.search(r"in a new thread started inside the block: <\S+Log0 object", out), out
    _, out = _run(_on_reference(snippet, "tests.mutants.global_slot"), modules,
                  tmp_path, "reference")
    assert "in a new thread started inside the block: None" in out, out


def test_a_contract_failure_shows_both_values(
        certificates: dict[str, Future[dict[str, Any]]], modules: Path, tmp_path: Path) -> None:
    failed = _failures(certificates["contract"].result(), "test_the_base_mode_passes_keywords_through")
    assert set(failed) == {"TFM_PUSH_009"}, sorted(failed)
    failure = failed["TFM_PUSH_009"]
    assert ("the value of add(x, y, alpha=2) with x = [1.0, 2.0], y = [3.0, 5.0] through "
            "BaseTorchFunctionMode [TFM_PUSH_009]:\n  expected: [7.0, 12.0]\n  observed: [4.0, 7.0]"
            in failure["message"]), failure["message"]
    _, out = _run(failure["snippet"], modules, tmp_path, "broken")
    assert "add(x, y, alpha=2): [4.0, 7.0]" in out, out
    _, out = _run(_on_reference(failure["snippet"], "msg_no_keywords"), modules,
                  tmp_path, "reference")
    assert "add(x, y, alpha=2): [7.0, 12.0]" in out, out
