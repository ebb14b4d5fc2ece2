"""The rules' runnable examples: every ``example`` (against reference_impl, or against torch where
a release the rule holds for is installed) and every ``example_stack`` of a rule shared by both
generations, run against the installed torch where the rule holds for its release
(:func:`spec.holds.example_holds`, which the documentation's doctest builder asks too) and the
release's committed certificate does not call it not applicable (the OWNMODE rules need torch's
device context, which 1.13 lacks). Where a release breaks a rule in its example_stack's own
scenario (:data:`spec.holds.STACK_DIVERGENCES`) the example must still fail there, in a
process of its own."""

from __future__ import annotations

import doctest
import functools
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from conformance.matrix import release_verdicts
from spec.catalogue import Catalogue, Rule, load_catalogue
from spec.holds import STACK_DIVERGENCES, example_holds, stack_releases, stack_version

ROOT = Path(__file__).resolve().parents[1]

#: The shared rules that hold for torch 1.13 alone among the stack releases: by their versions
#: (1.13), or by their texts (TFM_TEXT_007's from 1.13 to 2.0, TFM_TEXT_008's in 1.13 and unknown
#: in 2.0); their example_stack runs on torch 1.13.1 and on no 2.x release after 2.0.
ONLY_1_13: tuple[str, ...] = ("TFM_SELF_002", "TFM_DISABLE_002", "TFM_DISABLE_003",
                              "TFM_DISABLE_005", "TFM_ERROR_001", "TFM_TEXT_007", "TFM_TEXT_008")


@pytest.fixture(scope="module")
def catalogue() -> Catalogue:
    return load_catalogue()


def _torch_version() -> str | None:
    """The installed torch's version, or ``None`` without torch."""
    try:
        import torch
    except ImportError:
        return None
    return str(torch.__version__)


@functools.cache
def _verdicts(version: str) -> dict[str, str]:
    return release_verdicts(ROOT, version)


def _holds_here(rule: Rule) -> bool:
    """Whether the rule holds for the installed torch: a stack release it holds for, whose
    committed certificate (if any) does not call the rule not applicable."""
    version = _torch_version()
    return (version is not None and example_holds(rule, version)
            and _verdicts(version).get(rule.id) != "not_applicable")


def _diverges_here(rule: Rule) -> bool:
    version = _torch_version()
    return version is not None and (rule.id, stack_version(version)) in STACK_DIVERGENCES


def _run(example: str, rule_id: str, field: str) -> tuple[int, str]:
    """Run one example as a doctest: the number of failed lines and the runner's report."""
    parser = doctest.DocTestParser()
    globs: dict[str, Any] = {"__name__": f"example_{rule_id}"}
    test = parser.get_doctest(example, globs, rule_id, f"{rule_id}.{field}", 0)
    assert test.examples, f"{rule_id}: the {field} has no doctest lines"
    runner = doctest.DocTestRunner(
        verbose=False, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    report: list[str] = []
    result = runner.run(test, out=report.append)
    return result.failed, textwrap.indent("".join(report), "  ")


# ---------------------------------------------------------------------------
# Which examples run where


def test_selection_by_release(catalogue: Catalogue) -> None:
    assert (stack_version("1.12.1"), stack_version("1.13.1"), stack_version("2.0.1"),
            stack_version("2.13.0+cpu"), stack_version("not a version")) == (
        None, "1.13", "2.x", "2.x", None)
    shared = [r for r in catalogue if set(r.generations) == {"2022", "stack"}]
    # The 2022 generation's torch runs no torch example; a shared rule without a version or a
    # text of its own runs on every stack release.
    assert not any(example_holds(r, "1.12.1") for r in catalogue)
    order = catalogue.by_id("TFM_ORDER_001")
    assert all(example_holds(order, v) for v in ("1.13.1", "2.0.1", "2.13.0+cpu"))
    for rule_id in ONLY_1_13:
        rule = catalogue.by_id(rule_id)
        assert rule in shared and example_holds(rule, "1.13.1"), rule_id
        assert not any(example_holds(rule, v) for v in ("2.1.2", "2.13.0", "2.14.1")), rule_id
    # By text: 2.0 keeps TFM_TEXT_007's text; TFM_TEXT_008's is unknown there; TFM_TEXT_009's
    # (a stack rule with a torch example) is absent from 1.13 and 2.0.
    by_id = catalogue.by_id
    assert example_holds(by_id("TFM_TEXT_007"), "2.0.1")
    assert not example_holds(by_id("TFM_TEXT_008"), "2.0.1")
    assert not example_holds(by_id("TFM_TEXT_009"), "1.13.1")
    assert not example_holds(by_id("TFM_TEXT_009"), "2.0.1")
    assert example_holds(by_id("TFM_TEXT_009"), "2.13.0")
    # By version: TFM_ERROR_001 names 1.13 only.
    assert not example_holds(by_id("TFM_ERROR_001"), "2.0.1")
    # The rule pages' heading of an example_stack names the same releases.
    assert [stack_releases(by_id(i)) for i in ("TFM_ORDER_001", "TFM_ERROR_001", "TFM_TEXT_007",
                                                "TFM_TEXT_008", "TFM_TEXT_009", "TFM_PUSH_010")] == [
        "1.13 and 2.x", "1.13", "1.13 and 2.0", "1.13", "2.1 to 2.14", ""]


def test_certificates_and_divergences(catalogue: Catalogue) -> None:
    # The committed certificate of the installed release, whatever its local version part, says
    # which rules do not apply there beyond their versions: torch 1.13 has no device context.
    verdicts = release_verdicts(ROOT, "1.13.1+cu117")
    assert {verdicts[r.id] for r in catalogue.area("OWNMODE").rules} == {"not_applicable"}
    assert verdicts["TFM_SELF_002"] == "pass" and release_verdicts(ROOT, "0.1.0") == {}
    # Each divergence names a rule whose example_stack holds for that version.
    for (rule_id, version), reason in STACK_DIVERGENCES.items():
        rule = catalogue.by_id(rule_id)
        assert rule.example_stack and example_holds(rule, f"{version}.1") and reason, rule_id


# ---------------------------------------------------------------------------
# The rules' examples: against reference_impl, or against torch where the rule holds


def _runnable(rule: Rule) -> bool:
    """Examples for reference_impl always; for torch where a release the rule holds for is
    installed (torch examples use the stack API: never 1.12)."""
    return rule.example_impl == "reference_impl" or _holds_here(rule)


def _examples() -> list[Any]:
    return [pytest.param(rule.example, id=rule.id) for rule in load_catalogue() if _runnable(rule)]


@pytest.mark.parametrize("example", _examples())
def test_example_runs(example: str, request: pytest.FixtureRequest) -> None:
    failed, report = _run(example, request.node.callspec.id, "example")
    assert failed == 0, report
    # Examples must clean up after themselves: no mode left behind.
    import reference_impl

    assert reference_impl._C._get_torch_function_mode() is None


# ---------------------------------------------------------------------------
# The stack generation's examples of shared rules (example_stack) run against torch itself


def _stack_examples(diverging: bool = False) -> list[Any]:
    """The example_stack of each rule that holds here: those torch runs as the rule says, or with
    ``diverging`` those of :data:`STACK_DIVERGENCES`."""
    return [pytest.param(rule.example_stack, id=rule.id) for rule in load_catalogue()
            if rule.example_stack and _holds_here(rule) and _diverges_here(rule) is diverging]


def test_every_shared_rule_has_an_example_stack(catalogue: Catalogue) -> None:
    shared = [r for r in catalogue if set(r.generations) == {"2022", "stack"}]
    assert len(shared) == 64
    assert [r.id for r in shared if not r.example_stack] == []


def test_stack_examples_use_the_stack_api(catalogue: Catalogue) -> None:
    stack = [rule for rule in catalogue if rule.example_stack]
    assert stack, "no rule has an example_stack"
    for rule in stack:
        text = rule.example_stack or ""
        assert set(rule.generations) == {"2022", "stack"}, rule.id
        assert ">>> import torch\n" in text, rule.id
        for old in ("reference_impl", "push_torch_function_mode", "inner",
                    "_get_torch_function_mode()", "enable_torch_function_mode"):
            assert old not in text, (rule.id, old)


@pytest.mark.parametrize("example", _stack_examples())
def test_example_stack_runs(example: str, request: pytest.FixtureRequest) -> None:
    import torch

    failed, report = _run(example, request.node.callspec.id, "example_stack")
    assert failed == 0, report
    assert torch._C._len_torch_function_stack() == 0, "the example left a mode on the stack"


@pytest.mark.parametrize("example", _stack_examples(diverging=True))
def test_example_stack_still_diverges(example: str, request: pytest.FixtureRequest) -> None:
    rule_id = request.node.callspec.id
    script = ("import sys\n"
              "from tests.test_catalogue_examples import _run\n"
              f"failed, report = _run(sys.stdin.read(), {rule_id!r}, 'example_stack')\n"
              "print(report)\n"
              "sys.exit(3 if failed else 0)\n")
    done = subprocess.run([sys.executable, "-c", script], input=example, cwd=ROOT, text=True,
                          capture_output=True, timeout=300, check=False)
    version = stack_version(_torch_version() or "")
    assert done.returncode != 0, (
        f"{rule_id}'s example_stack passes on torch {version}: the divergence of "
        f"STACK_DIVERGENCES is gone ({STACK_DIVERGENCES[rule_id, str(version)]})")
    assert done.returncode == 3 or done.returncode < 0, done.stderr[-2000:]


@pytest.mark.skipif(not _stack_examples(), reason="no torch of the stack generation installed")
def test_a_wrong_stack_example_fails() -> None:
    example = _stack_examples()[0].values[0]
    lines = example.rstrip("\n").split("\n")
    last = max(i for i, line in enumerate(lines) if line and not line.startswith((">>>", "...")))
    lines[last] = "'not what torch prints'"
    failed, report = _run("\n".join(lines) + "\n", "wrong", "example_stack")
    assert failed == 1 and "not what torch prints" in report
