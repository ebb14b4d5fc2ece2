"""Time limits nest, and the sandbox turns a crash, a hang or a looping thread into one failed request."""

from __future__ import annotations

import signal
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from conformance.judge.check import check
from conformance.sandbox.isolation import ScenarioTimeout, time_limit
from conformance.sandbox.parent import ImplementationCrashed, ImplementationHung, SandboxedImplementation
from spec.examples import load_examples

EXAMPLE = next(e for e in load_examples() if e.name == "test_modes_handle_first")


class Outer(Exception):
    pass


@pytest.fixture
def outer_timer() -> Iterator[None]:
    def expire(signum: int, frame: FrameType | None) -> None:
        raise Outer

    previous = signal.signal(signal.SIGALRM, expire)
    yield
    signal.setitimer(signal.ITIMER_REAL, 0)
    signal.signal(signal.SIGALRM, previous)


def test_an_inner_limit_leaves_the_outer_timer_running(outer_timer: None) -> None:
    signal.setitimer(signal.ITIMER_REAL, 0.6)
    with time_limit(5):
        pass
    left, _ = signal.getitimer(signal.ITIMER_REAL)
    assert 0.3 < left <= 0.6, left
    with pytest.raises(Outer):
        time.sleep(2)


def test_an_outer_limit_due_first_is_the_one_that_fires(outer_timer: None) -> None:
    signal.setitimer(signal.ITIMER_REAL, 0.2)
    start = time.monotonic()
    with pytest.raises(Outer), time_limit(5):
        time.sleep(3)
    assert time.monotonic() - start < 1.5
    time.sleep(0.3)  # the outer timer fired once: it is not armed again
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)


def test_an_inner_limit_fires_and_the_outer_one_still_does(outer_timer: None) -> None:
    signal.setitimer(signal.ITIMER_REAL, 0.8)
    with pytest.raises(ScenarioTimeout), time_limit(0.1):
        time.sleep(3)
    with pytest.raises(Outer):
        time.sleep(3)


def _namespace(tmp_path: Path, name: str, body: str) -> str:
    """A copy of reference_impl whose ``mean`` runs ``body`` first, importable as ``name``."""
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(f'''
        import reference_impl as _ref
        from reference_impl import *  # noqa: F403
        from reference_impl import _C, overrides  # noqa: F401
        __version__ = "fault"

        def mean(*args, **kwargs):
        {textwrap.indent(textwrap.dedent(body), "    ")}
            return _ref.mean(*args, **kwargs)
    '''), encoding="utf-8")
    return name


@pytest.fixture
def on_path(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    yield tmp_path
    sys.path.remove(str(tmp_path))


def test_a_crash_fails_one_request_and_the_next_runs_on_a_new_process(on_path: Path) -> None:
    impl = SandboxedImplementation(_namespace(on_path, "crashes", "import os; os._exit(7)"))
    try:
        with pytest.raises(ImplementationCrashed, match="exited with status 7"):
            impl.call("conformance.sandbox._child:reset", seconds=10, during="a test")
            impl.call("tests.test_isolation:_call_mean", seconds=10, during="a test")
        assert impl.reset() == []  # a fresh child answers
        assert impl.sandbox.restarts == 1
    finally:
        impl.close()


def _call_mean(adapter: object) -> None:
    adapter.func("mean")(adapter.tensor([1.0]))  # type: ignore[attr-defined]


def test_a_hang_is_cut_at_its_limit(on_path: Path) -> None:
    impl = SandboxedImplementation(_namespace(on_path, "hangs", "while True: pass"))
    try:
        start = time.monotonic()
        with pytest.raises(ImplementationHung, match=r"did not answer within 0\.5 s"):
            impl.call("tests.test_isolation:_call_mean", seconds=0.5, during="a test")
        assert time.monotonic() - start < 5
        assert impl.sandbox.hangs == 1
    finally:
        impl.close()


def test_a_crashing_scenario_fails_its_rules_with_the_crash(on_path: Path) -> None:
    impl = SandboxedImplementation(_namespace(on_path, "crashes_too", "import os; os._exit(1)"))
    try:
        from spec.model import scenario_from_dict, scenario_to_dict

        data = scenario_to_dict(EXAMPLE.scenario)
        data["call"]["func"] = "mean"
        data["call"]["args"] = data["call"]["args"][:1]
        checked = check(scenario_from_dict(data), impl)
        assert checked is not None and checked.fault == "crashed"
        assert checked.differences[0].startswith("the implementation crashed")
        assert checked.rules and set(checked.rules) <= checked.expected.rules_exercised()
    finally:
        impl.close()


def test_a_looping_thread_does_not_outlive_its_request(on_path: Path) -> None:
    spin = "import threading; threading.Thread(target=lambda: [0 for _ in iter(int, 1)]).start()"
    impl = SandboxedImplementation(_namespace(on_path, "spins", spin))
    try:
        impl.call("tests.test_isolation:_call_mean", seconds=10, during="a test")
        assert impl.sandbox._proc is None  # the child with the thread was ended at once
    finally:
        impl.close()


def _leave_a_mode(adapter: Any) -> None:
    class Left(adapter.ns.overrides.TorchFunctionMode):  # type: ignore[misc]
        pass

    adapter.enable(adapter.make_mode(Left)).__enter__()


def test_a_reset_after_a_test_is_asked_only_when_something_ran_since_the_last(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The plugin resets the implementation after each test's body and again at teardown: a
    reset with nothing run since the last one (a test skipped before its body, a teardown
    that ran nothing on the implementation) sends no request; one after a request still finds
    what it left behind."""
    impl = SandboxedImplementation("reference_impl")
    sent: list[str] = []
    call = impl.sandbox.call

    def counting(target: str, args: tuple[Any, ...], seconds: float, during: str) -> Any:
        sent.append(target)
        return call(target, args, seconds, during)

    monkeypatch.setattr(impl.sandbox, "call", counting)
    try:
        assert impl.reset(restart=False) == [] and sent == []  # nothing has run yet
        impl.call("tests.test_isolation:_leave_a_mode", seconds=30, during="a test")
        found = impl.reset(restart=False)
        assert len(found) == 1 and "left current" in found[0], found
        assert impl.reset(restart=False) == []
        assert sent == ["tests.test_isolation:_leave_a_mode", "conformance.sandbox._child:reset"]
        assert impl.reset() == [] and sent[-1] == "conformance.sandbox._child:reset"  # asked: it may restart
    finally:
        impl.close()
