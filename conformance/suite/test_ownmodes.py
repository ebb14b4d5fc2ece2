"""The implementation's own modes composed with the user's: the device context (area OWNMODE).

``with device(d):`` and ``set_default_device(d)`` put a mode of the implementation on the same
stack as the user's modes. These tests need the feature ``device-context``; each names the
rule it checks, runs in the implementation's sandbox, cleans the device context up whatever
happens, and fails with a script that reproduces the failure through the adapter. The
generated test draws plans (conformance.suite._ownmode_plans): user modes below and above,
nested blocks, ``set_default_device`` outside or inside the user modes, ``device=`` given or not.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import given, settings

from conformance.adapter import Adapter
from conformance.base.safe import name_of, text_of
from conformance.judge.failure import adapter_script, fail
from conformance.session.bodies import sandboxed

from ._ownmode_plans import _PRELUDE, INITIAL, Plan, plans, script_body
from ._ownmode_scripts import _DEFAULT, _HANDLER, _INSIDE_BLOCK, _THREAD
from .test_threads import _join

Record = Callable[[str, object], None]
#: Generated plans per run at most (each is some twenty calls into the implementation).
MAX_PLANS = 60


class _Broken(Exception):
    """A generated plan broke ``rules``: raised inside hypothesis, so that it shrinks the plan."""

    def __init__(self, rules: tuple[str, ...], where: str, expected: object, observed: object):
        super().__init__(f"{', '.join(rules)}: {where}: expected {expected!r}, got {observed!r}")
        self.rules, self.where, self.expected, self.observed = rules, where, expected, observed


def _label(ad: Any, mode: object) -> str:
    device = ad.device_mode_device(mode)
    return f"device:{device}" if device is not None else type(mode).__name__


def _stack(ad: Any) -> list[str]:
    return [_label(ad, m) for m in ad.mode_stack()]


def _on(ad: Any, **kwargs: Any) -> str:
    """Where ``ones(1, **kwargs)`` creates."""
    return str(ad.device_of(ad.func("ones")(1, **kwargs)))


def _user(ad: Any, name: str, seen: dict[str, list[dict[str, str]]]) -> Any:
    """A user mode named ``name`` that notes the keywords of every ``ones`` call it sees."""
    ones = ad.func("ones")

    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func is ones:
            seen.setdefault(name, []).append({k: str(v) for k, v in (kwargs or {}).items()})
        return func(*args, **(kwargs or {}))

    cls = type(ad.TorchFunctionMode)(name, (ad.TorchFunctionMode,), {"__torch_function__": handler})
    return cls()


@contextlib.contextmanager
def _clean(ad: Any) -> Iterator[None]:
    """Run the block, then clear the device setting and pop whatever it left on the stack."""
    try:
        yield
    finally:
        with contextlib.suppress(Exception):
            ad.set_default_device(None)
        ad.reset()


def _expect(rules: tuple[str, ...], where: str, expected: object, observed: object) -> None:
    if expected != observed:
        raise _Broken(rules, where, expected, observed)


def _check_default(ad: Any, where: str) -> None:
    """get_default_device() (where there is one) against the factories (TFM_OWNMODE_005)."""
    try:
        reported = ad.default_device()
    except Exception as exc:
        raise _Broken(("TFM_OWNMODE_005",), f"get_default_device() {where}",
                      "the factories' device", f"{name_of(type(exc))}({text_of(exc)!r})") from None
    if reported is not None:
        _expect(("TFM_OWNMODE_005",), f"get_default_device() {where}", _on(ad), reported)


def _run_plan(ad: Any, plan: Plan) -> None:
    """Replay ``plan``, checking every state it passes through against the OWNMODE rules,
    then what must hold once every block exited and after set_default_device(None)."""
    seen: dict[str, list[dict[str, str]]] = {}
    with _clean(ad):
        try:
            _run_blocks(ad, plan, seen)
        except _Broken:
            raise
        except Exception as exc:  # the implementation raised: blame the plan's first broken check
            earlier = exc.__context__
            if isinstance(earlier, _Broken):
                raise earlier from None
            raise _Broken(("TFM_OWNMODE_001", "TFM_OWNMODE_003"), "replaying the plan",
                          "no exception", f"{name_of(type(exc))}({text_of(exc)!r})") from None
        after = [f"device:{plan.setting}"] if plan.setting is not None else []
        rules = ("TFM_OWNMODE_001", "TFM_OWNMODE_003")
        _expect(rules, "the mode stack after every block exited", after, _stack(ad))
        _expect(rules, "where ones(1) creates after every block exited", plan.setting or INITIAL,
                _on(ad))
        _check_default(ad, "after every block exited")
        ad.set_default_device(None)
        _expect(("TFM_OWNMODE_003",), "the mode stack after set_default_device(None)", [],
                _stack(ad))
        _expect(("TFM_OWNMODE_003",), "where ones(1) creates after set_default_device(None)",
                INITIAL, _on(ad))
        _check_default(ad, "after set_default_device(None)")


def _run_blocks(ad: Any, plan: Plan, seen: dict[str, list[dict[str, str]]]) -> None:
    setting = ("TFM_OWNMODE_003",)
    with contextlib.ExitStack() as blocks:
        if plan.default is not None:
            ad.set_default_device(plan.default)
        for i in range(plan.below):
            blocks.enter_context(_user(ad, f"B{i}", seen))
        if plan.set_in_modes is not None:
            ad.set_default_device(plan.set_in_modes)
        _expect(setting, "the mode stack after set_default_device", plan.base_stack(), _stack(ad))
        _expect(setting, "where ones(1) creates after set_default_device", plan.factory_device(0),
                _on(ad))
        _check_default(ad, "after set_default_device")
        for depth, device in enumerate(plan.blocks, 1):
            blocks.enter_context(ad.device_context(device))
            where = f"inside {depth} nested with device(...) block(s)"
            _expect(("TFM_OWNMODE_001",), f"the mode stack {where}", plan.block_stack(depth),
                    _stack(ad))
            _expect(("TFM_OWNMODE_001",), f"where ones(1) creates {where}",
                    plan.factory_device(depth), _on(ad))
            _check_default(ad, where)
        for i in range(plan.above):
            blocks.enter_context(_user(ad, f"A{i}", seen))
        seen.clear()
        probe = ad.func("ones")(2, device="cpu") if plan.explicit else ad.func("ones")(2)
        if plan.explicit:
            rule: tuple[str, ...] = ("TFM_OWNMODE_002",)
        else:
            rule = ("TFM_OWNMODE_001",) if plan.blocks else setting
        _expect(rule, "where the probe creates", plan.probe_device(), str(ad.device_of(probe)))
        for i in range(plan.above):
            _expect(("TFM_OWNMODE_002",), f"the keywords user mode A{i} (above the blocks) sees",
                    [plan.seen_above()], seen.get(f"A{i}"))
        for i in range(plan.below):
            _expect(("TFM_OWNMODE_002",) if plan.blocks else setting,
                    f"the keywords user mode B{i} (below the blocks) sees", [plan.seen_below()],
                    seen.get(f"B{i}"))
        _expect(("TFM_OWNMODE_001", "TFM_OWNMODE_003"), "the mode stack at the probe",
                plan.full_stack(), _stack(ad))


# -- the generated plans ---------------------------------------------------------------------


@pytest.mark.rule("TFM_OWNMODE_001", "TFM_OWNMODE_002", "TFM_OWNMODE_003")
@pytest.mark.generation("stack")
@pytest.mark.feature("device-context")
@sandboxed(names=("TFM_OWNMODE_005",))  # where there is a get_default_device, it is checked too
def test_device_context_composes_with_user_modes(adapter: Adapter, impl_spec: str,
                                                 record_property: Record) -> None:
    current = settings()
    last: dict[str, Plan] = {}

    @given(plans())
    @settings(current, max_examples=min(current.max_examples, MAX_PLANS), deadline=None)
    def check(plan: Plan) -> None:
        last["plan"] = plan  # after a failure, the last plan run is the shrunk one
        _run_plan(adapter, plan)

    try:
        check()
    except Exception as exc:
        found = _broken_in(exc)
        if not found:
            raise
        # Hypothesis reports distinct failures together (an exception group): each breaks its
        # rules, so the test fails for all of them, an excused one never hiding another.
        broken, rules = found[0], tuple(dict.fromkeys(r for b in found for r in b.rules))
        failing = last.get("plan")
        script = adapter_script(impl_spec, "test_device_context_composes_with_user_modes",
                                script_body(failing) if failing is not None else _PRELUDE)
        others = tuple(f"also: {', '.join(b.rules)}: {b.where}: expected {b.expected!r}, "
                       f"got {b.observed!r}" for b in found[1:])
        fail(record_property, rules, broken.where, broken.expected, broken.observed,
             script, (*others, f"(the last shrunk plan: {failing})"))


def _broken_in(exc: BaseException) -> list[_Broken]:
    """The plan failures in ``exc``: itself, or those of an exception group, at any depth."""
    if isinstance(exc, _Broken):
        return [exc]
    inner = getattr(exc, "exceptions", None)
    if not isinstance(inner, (list, tuple)):
        return []
    return [b for e in inner if isinstance(e, BaseException) for b in _broken_in(e)]


# -- a device block and set_default_device inside a handler ----------------------------------


@pytest.mark.rule("TFM_OWNMODE_001", "TFM_OWNMODE_003")
@pytest.mark.generation("stack")
@pytest.mark.feature("device-context")
@sandboxed
def test_device_context_inside_a_handler(adapter: Adapter, impl_spec: str,
                                         record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_device_context_inside_a_handler",
                            _PRELUDE + _HANDLER)
    ad: Any = adapter
    neg = ad.func("neg")
    inside: dict[str, tuple[list[str], str]] = {}

    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if func is neg:
            with ad.device_context("meta"):
                inside["block"] = (_stack(ad), _on(ad))
            inside["after block"] = (_stack(ad), _on(ad))
            ad.set_default_device("meta")
            return "handled"
        return func(*args, **(kwargs or {}))

    mode = type(ad.TorchFunctionMode)("G", (ad.TorchFunctionMode,), {"__torch_function__": handler})
    with _clean(ad):
        try:
            with mode():
                result = neg(ad.tensor([1.0]))
                after_handler = _stack(ad)
            after_block = (_stack(ad), _on(ad))
        except Exception as exc:
            fail(record_property, ("TFM_OWNMODE_001", "TFM_OWNMODE_003"),
                 "a with device(...) block and set_default_device inside a mode's handler",
                 "no exception", f"{name_of(type(exc))}({text_of(exc)!r})", script)
    want = {"block": (["device:meta"], "meta"), "after block": ([], INITIAL)}
    if result != "handled" or inside != want:
        fail(record_property, ("TFM_OWNMODE_001",),
             "inside the handler (its mode popped): the stack and where ones(1) creates, in "
             "the block and after it", want, inside, script)
    if after_handler != ["device:meta", "G"] or after_block != (["device:meta"], "meta"):
        fail(record_property, ("TFM_OWNMODE_003",),
             "after set_default_device('meta') in the handler: the stack once the handler "
             "returned, then the stack and where ones(1) creates after the mode's block",
             (["device:meta", "G"], (["device:meta"], "meta")), (after_handler, after_block),
             script)


# -- threads ---------------------------------------------------------------------------------


@pytest.mark.rule("TFM_OWNMODE_004")
@pytest.mark.generation("stack")
@pytest.mark.feature("device-context")
@sandboxed
def test_device_context_is_per_thread(adapter: Adapter, impl_spec: str,
                                      record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_device_context_is_per_thread", _PRELUDE + _THREAD)
    ad: Any = adapter
    found: dict[str, object] = {}

    def work() -> None:
        try:
            found["start"] = (_stack(ad), _on(ad))
            ad.set_default_device("meta")
            found["set"] = (_stack(ad), _on(ad))
            with ad.device_context("cpu"):
                found["block"] = _on(ad)
            ad.set_default_device(None)
            found["cleared"] = (_stack(ad), _on(ad))
        except Exception as exc:
            found["raised"] = f"{name_of(type(exc))}({text_of(exc)!r})"
        finally:
            with contextlib.suppress(Exception):
                ad.set_default_device(None)
            with contextlib.suppress(Exception):
                ad.reset()

    with _clean(ad):
        ad.set_default_device("meta")
        worker = threading.Thread(target=work, daemon=True)
        worker.start()
        _join([worker])
        main = (_stack(ad), _on(ad))
    want = {"start": ([], INITIAL), "set": (["device:meta"], "meta"), "block": "cpu",
            "cleared": ([], INITIAL)}
    if found != want:
        fail(record_property, ("TFM_OWNMODE_004",),
             "in a thread started after set_default_device('meta'): the stack and where ones(1) "
             "creates at its start, after its own set_default_device('meta'), in its with "
             "device('cpu') block, after its set_default_device(None)", want, found, script)
    if main != (["device:meta"], "meta"):
        fail(record_property, ("TFM_OWNMODE_004",),
             "the main thread's stack and where ones(1) creates, after the second thread set and "
             "cleared its own default device", (["device:meta"], "meta"), main, script)


# -- set_default_device inside a with device(...) block --------------------------------------


@pytest.mark.rule("TFM_OWNMODE_006")
@pytest.mark.generation("stack")
@pytest.mark.feature("device-context")
@sandboxed
def test_set_default_device_inside_a_device_block(adapter: Adapter, impl_spec: str,
                                                  record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_set_default_device_inside_a_device_block",
                            _PRELUDE + _INSIDE_BLOCK)
    ad: Any = adapter
    with _clean(ad):
        try:
            with ad.device_context("cpu"):
                ad.set_default_device("meta")
            after: tuple[object, ...] = (_on(ad), ad.default_device())
            ad.set_default_device(None)
            cleared: tuple[object, ...] = (_stack(ad), _on(ad))
        except Exception as exc:
            fail(record_property, ("TFM_OWNMODE_006",),
                 "set_default_device('meta') inside with device('cpu'), then None",
                 "no exception", f"{name_of(type(exc))}({text_of(exc)!r})", script)
    want_after = ("meta", "meta" if after[1] is not None else None)
    if after != want_after:
        fail(record_property, ("TFM_OWNMODE_006",),
             "after a with device('cpu') block in which set_default_device('meta') was called: "
             "where ones(1) creates, and get_default_device()", want_after, after, script)
    if cleared != ([], INITIAL):
        fail(record_property, ("TFM_OWNMODE_006",),
             "then after set_default_device(None): the mode stack and where ones(1) creates",
             ([], INITIAL), cleared, script)


# -- get_default_device ------------------------------------------------------------------------


@pytest.mark.rule("TFM_OWNMODE_005")
@pytest.mark.generation("stack")
@pytest.mark.feature("device-context", "default-device")
@sandboxed
def test_get_default_device_agrees_with_the_factories(adapter: Adapter, impl_spec: str,
                                                      record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_get_default_device_agrees_with_the_factories",
                            _PRELUDE + _DEFAULT)
    ad: Any = adapter
    seen: dict[str, list[dict[str, str]]] = {}
    try:
        with _clean(ad):
            _check_default(ad, "initially")
            with ad.device_context("meta"):
                _check_default(ad, "inside with device('meta')")
                with ad.device_context("cpu"):
                    _check_default(ad, "inside with device('cpu') nested in with device('meta')")
            ad.set_default_device("meta")
            _check_default(ad, "after set_default_device('meta')")
            with _user(ad, "U", seen):
                _check_default(ad, "inside a user mode's block after set_default_device('meta')")
            ad.set_default_device(None)
            _check_default(ad, "after set_default_device(None)")
    except _Broken as broken:
        fail(record_property, broken.rules, broken.where, broken.expected, broken.observed, script)
