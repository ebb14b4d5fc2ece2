"""``python -m conformance diff``: differential runs of two implementations on generated scenarios."""

from __future__ import annotations

import importlib
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from conformance.__main__ import main
from conformance.tools.diff import compare_traces, portable, translate
from spec.model.scenario import (
    Behaviour,
    Disable,
    Enable,
    EnableInside,
    Enter,
    ModeDecl,
    Push,
    PushInside,
    Return,
    Scenario,
)
from spec.model.trace import HandlerRun, Message, Raised, Returned, Trace

ROOT = Path(__file__).resolve().parent.parent
COPY = "tfmode_refcopy_reversed"


def _fresh_copy(name: str) -> ModuleType:
    """A second, independent reference_impl (own modules, own mode slot) as ``name``; the
    original stays (imported first, if no test has imported it yet)."""
    importlib.import_module("reference_impl")
    saved = {k: v for k, v in sys.modules.items()
             if k == "reference_impl" or k.startswith("reference_impl.")}
    for key in saved:
        del sys.modules[key]
    try:
        package = importlib.import_module("reference_impl")
    finally:
        for key in [k for k in sys.modules if k == "reference_impl" or k.startswith("reference_impl.")]:
            del sys.modules[key]
        sys.modules.update(saved)
    package.__name__ = name
    sys.modules[name] = package
    return package


@pytest.fixture
def reversed_copy() -> Iterator[str]:
    """reference_impl with overloaded arguments tried last-seen first (breaks TFM_ORDER_004)."""
    copy = _fresh_copy(COPY)
    original = copy._C._append_overloaded_arg

    def prepend(overloaded: list[Any], obj: object) -> None:
        if all(type(existing) is not type(obj) for existing in overloaded):
            overloaded.insert(0, obj)

    copy._C._append_overloaded_arg = prepend
    assert copy._C is not sys.modules["reference_impl"]._C
    del original
    try:
        yield COPY
    finally:
        sys.modules.pop(COPY, None)


def test_an_implementation_does_not_differ_from_itself(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["diff", "--impl", "reference_impl", "--impl", "reference_impl",
                   "--examples", "150", "--seed", "1"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "no differences found" in out


def test_a_fresh_copy_does_not_differ_either(capsys: pytest.CaptureFixture[str]) -> None:
    _fresh_copy("tfmode_refcopy_plain")
    try:
        status = main(["diff", "--impl", "reference_impl", "--impl", "tfmode_refcopy_plain",
                       "--examples", "150", "--seed", "2"])
    finally:
        sys.modules.pop("tfmode_refcopy_plain", None)
    assert status == 0, capsys.readouterr().out


def test_a_different_order_is_reported_with_its_rule(reversed_copy: str,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["diff", "--impl", "reference_impl", "--impl", reversed_copy,
                   "--examples", "300", "--seed", "0", "--max-report", "1"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "difference 1 of" in out
    assert f"B = {reversed_copy} (generation 2022):" in out
    assert '"generation": "2022"' in out  # the scenario, as JSON
    assert "decided by (2022 model):" in out
    assert "TFM_ORDER_" in out


def test_bad_impl_is_one_line_and_exit_2() -> None:
    done = subprocess.run([sys.executable, "-m", "conformance", "diff", "--impl", "reference_impl",
                           "--impl", "no_such_module_xyz"], capture_output=True, text=True,
                          cwd=ROOT, check=False, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr + done.stdout
    lines = done.stderr.strip().splitlines()
    assert lines == ["python -m conformance diff: error: --impl 'no_such_module_xyz': no module "
                     "named 'no_such_module_xyz'"]


def test_diff_needs_two_implementations(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["diff", "--impl", "reference_impl"]) == 2
    assert "exactly twice" in capsys.readouterr().err


def test_help() -> None:
    done = subprocess.run([sys.executable, "-m", "conformance", "--help"], capture_output=True,
                          text=True, cwd=ROOT, check=False, timeout=120)
    assert done.returncode == 0
    assert "diff" in done.stdout and "snippet" in done.stdout


def test_translation_between_generations() -> None:
    mode = ModeDecl("M", Behaviour(PushInside("N", EnableInside("M", Return(1))),
                                   (("add", PushInside("N", Return(2))),)))
    sc = Scenario("2022", (), (mode, ModeDecl("N", Behaviour(Return(3)))),
                  (Push("M"), Enable("N"), Disable(), Push("N", how="instance")), None)
    plain = portable(sc)
    assert plain.setup == (Push("M"), Disable())
    assert plain.modes[0].behaviour == Behaviour(PushInside("N", Return(1)),
                                                 (("add", PushInside("N", Return(2))),))
    stack = translate(plain, "stack")
    assert stack.generation == "stack"
    assert stack.setup == (Enter("M"), Disable())
    assert translate(stack, "2022").setup == plain.setup


def test_addresses_and_module_names_are_not_differences() -> None:
    def trace(name: str, address: str) -> Trace:
        run = HandlerRun("M", "mode", "add", (), None, None)
        text = f"no implementation found for '{name}.add' nor on <M object at {address}>"
        return Trace((run,), Raised("TypeError", Message((text,))), None)

    a, b = trace("reference_impl", "0x7f01"), trace("other_impl", "0x7f99")
    assert compare_traces(a, b, ("reference_impl", "other_impl")) is None
    where, _ = compare_traces(a, Trace(a.events, Returned(1), None)) or ("", "")
    assert where == "outcome"
    other = Trace((HandlerRun("N", "mode", "add", (), None, None),), a.outcome, None)
    assert compare_traces(a, other, ("reference_impl", "other_impl")) is not None


STACKLIKE = '''
import reference_impl
from conformance.adapter import NamespaceAdapter


class StackLike(NamespaceAdapter):
    """reference_impl claiming to be of the stack generation (so runs on it go wrong)."""

    def __init__(self):
        super().__init__(reference_impl)
        self.generation = "stack"
        self.name = "stacklike"
'''


def test_implementations_of_two_generations_run_translated_scenarios(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "tfmode_stacklike.py").write_text(STACKLIKE, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    status = main(["diff", "--impl", "reference_impl", "--impl", "tfmode_stacklike:StackLike",
                   "--examples", "50", "--seed", "3", "--max-report", "1"])
    out = capsys.readouterr().out
    assert status == 1, out
    assert "B runs it as generation stack" in out
    assert "B = tfmode_stacklike:StackLike (generation stack):" in out
    assert "stack" in out.split("decided by")[1].splitlines()[0]
