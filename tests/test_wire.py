"""The sandbox's reply protocol: frames of plain JSON, decoded and checked before use.

conformance.sandbox.wire and conformance.sandbox.replies encode in the child and check in the suite; the
Sandbox kills a child that sends anything else and runs the next request on a fresh one.
"""

from __future__ import annotations

import json
import os
import struct
import sys
from typing import Any

import pytest

from conformance.adapter import load_adapter
from conformance.base.safe import repr_of, text_of
from conformance.judge.check import check
from conformance.sandbox.parent import ImplementationMisbehaved, SandboxedImplementation
from conformance.sandbox.replies import (
    SCENARIO,
    decode_error,
    decode_metadata,
    decode_result,
    encode_error,
    encode_metadata,
    encode_result,
)
from conformance.sandbox.tracewire import decode_trace, encode_trace
from conformance.sandbox.wire import (
    CUT,
    MAX_FRAME,
    Frames,
    WireError,
    frame,
    printable,
)
from conformance.target.runner import Run, execute
from spec.examples import load_examples
from spec.model import scenario_from_dict, scenario_to_dict

EXAMPLES = [e for e in load_examples() if e.scenario.generation == "2022"]


def _messages(data: bytes) -> list[tuple[int, str, Any]]:
    frames = Frames()
    frames.feed(data)
    out = []
    while (message := frames.next()) is not None:
        out.append(message)
    return out


def test_every_example_trace_travels_unchanged() -> None:
    adapter = load_adapter("reference_impl")
    for example in EXAMPLES:
        trace, naming = execute(example.scenario, adapter)
        leaked = adapter.reset()
        body = json.loads(json.dumps(encode_result(SCENARIO, (trace, naming, leaked))))
        assert decode_result(SCENARIO, body) == (trace, naming, leaked), example.name


def test_frames_split_anywhere_are_read_whole() -> None:
    data = frame(3, "event", {"t": "settled", "current": None}) + frame(3, "ok", {"value": 1})
    frames = Frames()
    got = []
    for i in range(len(data)):  # one byte at a time
        frames.feed(data[i:i + 1])
        while (message := frames.next()) is not None:
            got.append(message)
    assert got == [(3, "event", {"t": "settled", "current": None}), (3, "ok", {"value": 1})]


@pytest.mark.parametrize("data", [
    b"\x00\x00\x00\x04junk",  # not JSON
    b"\x00\x00\x00\x02[]",  # not an object
    struct.pack(">I", 8) + b'{"id":1}',  # no kind, no body
    frame(1, "ok", None)[:4] + b'{"id":true,"kind":"ok","body":0}'[:len(frame(1, "ok", None)) - 4],
    struct.pack(">I", MAX_FRAME + 1),  # too large: refused before it is read
    struct.pack(">I", 5000) + b"[" * 5000,  # too deep for the JSON reader
    b"\x80\x04\x95" + b"\x00" * 8,  # the start of a pickle
])
def test_a_malformed_frame_is_refused(data: bytes) -> None:
    with pytest.raises(WireError):
        _messages(data)


def test_an_unknown_kind_is_refused() -> None:
    data = json.dumps({"id": 1, "kind": "exec", "body": None}).encode()
    with pytest.raises(WireError, match="kind"):
        _messages(struct.pack(">I", len(data)) + data)


def _trace_body() -> dict[str, Any]:
    adapter = load_adapter("reference_impl")
    trace, _ = execute(EXAMPLES[0].scenario, adapter)
    adapter.reset()
    return json.loads(json.dumps(encode_trace(trace)))


@pytest.mark.parametrize(("change", "problem"), [
    (lambda t: t.update(rules=["TFM_ORDER_001"]), "unknown field 'rules'"),
    (lambda t: t.update(after=7), "expected a string"),
    (lambda t: t.update(after="x" * 30000), "30000 characters"),
    (lambda t: t["outcome"].update(t="returned", value={"tensor": "T", "data": ["1"]}), "numbers"),
    (lambda t: t.update(events=[{"t": "handler", "role": "god"}]), "no 'who'"),
    (lambda t: t.update(events=[{"t": "pickle"}]), "is not one of"),
    (lambda t: t["outcome"].update(t="returned", value=json.loads("[" * 40 + "1" + "]" * 40)), "nested"),
])
def test_a_trace_that_breaks_the_schema_is_refused(change: Any, problem: str) -> None:
    body = _trace_body()
    change(body)
    with pytest.raises(WireError, match=problem):
        decode_trace(body)


def test_an_error_keeps_only_well_formed_rule_ids() -> None:
    body = json.loads(json.dumps(encode_error("Divergence", "x", ("TFM_ORDER_001",))))
    assert decode_error(body) == ("Divergence", "x", {"rules": ("TFM_ORDER_001",)})
    with pytest.raises(WireError, match="not a rule ID"):
        decode_error({"type": "E", "message": "x", "rules": ["os.system('x')"]})


def test_names_and_versions_are_shown_escaped_and_cut() -> None:
    assert printable("\x1b[32mok\x1b[0m\n\u202e\\", 100) == "\\x1b[32mok\\x1b[0m\\n\\u202e\\\\"
    assert printable("é ü 数", 100) == "é ü 数"
    assert printable("a" * 1000, 10) == "a" * 10 + CUT
    adapter = load_adapter("reference_impl")
    meta = encode_metadata(adapter)
    assert decode_metadata(meta)["name"] == "reference_impl"
    meta["name"] = "\x1b[2K" * 4000
    shown = decode_metadata(meta)["name"]
    assert shown.endswith(CUT) and "\x1b" not in shown and len(shown) <= 100 + len(CUT)


@pytest.mark.parametrize(("key", "value"), [
    ("generation", "2023"), ("features", ["telepathy"]), ("stack_version", "9.9"),
    ("name", ["a list"]), ("release", 3),
])
def test_a_description_out_of_its_range_is_refused(key: str, value: Any) -> None:
    meta = encode_metadata(load_adapter("reference_impl"))
    meta[key] = value
    with pytest.raises(WireError):
        decode_metadata(meta)


class _Unprintable(Exception):
    def __str__(self) -> str:
        raise RuntimeError("no")

    def __repr__(self) -> str:
        return 5  # type: ignore[return-value]


def test_str_and_repr_that_raise_or_lie_give_a_text() -> None:
    assert text_of(_Unprintable()) == "<_Unprintable object whose __str__() raised RuntimeError>"
    assert repr_of(_Unprintable()) == "<_Unprintable object whose __repr__() raised TypeError>"


def test_an_implementation_raising_an_unprintable_exception_is_observed_raising() -> None:
    adapter = load_adapter("reference_impl")
    example = next(e for e in EXAMPLES if e.scenario.call is not None and not e.scenario.setup)
    data = scenario_to_dict(example.scenario)
    data["call"]["func"], data["call"]["args"] = "mean", ["plain"]

    def mean(*args: object, **kwargs: object) -> object:
        raise _Unprintable()

    run = Run(scenario_from_dict(data), adapter)
    run.funcs[id(mean)] = "mean"
    original = adapter.ns.mean  # type: ignore[attr-defined]
    adapter.ns.mean = mean  # type: ignore[attr-defined]
    try:
        trace = run.execute()
    finally:
        adapter.ns.mean = original  # type: ignore[attr-defined]
        adapter.reset()
    assert trace.outcome.exc_type == "_Unprintable"  # type: ignore[union-attr]
    assert "whose __str__() raised RuntimeError" in trace.outcome.message.render()  # type: ignore[union-attr]


# -- the sandbox: requests run in a child of this process ------------------------------------


def _write(request: int | None, kind: str, body: Any) -> None:
    """Write a frame to the reply pipe from inside the child (as an implementation could)."""
    child = sys.modules["conformance.sandbox._child"]
    os.write(int(sys.argv[2]), frame(child._REQUEST if request is None else request, kind, body))


def _early_reply(adapter: object) -> int:
    _write(None, "ok", {"value": 41, "threads": 0})  # a reply before the real one
    return 42


def _reply_to_another(adapter: object) -> None:
    _write(999, "ok", {"value": None, "threads": 0})


def _unexpected_kind(adapter: object) -> None:
    _write(None, "ready", encode_metadata(adapter))


def _wrong_shape(adapter: object) -> None:
    _write(None, "event", {"t": "settled"})


@pytest.fixture
def sandbox() -> Any:
    impl = SandboxedImplementation("reference_impl")
    yield impl
    impl.close()


def test_a_reply_written_early_leaves_the_next_request_on_a_fresh_child(sandbox: Any) -> None:
    # The early reply is taken (the child is the implementation's: a well-formed lie passes);
    # the real one, left over, makes the next request start a fresh child, costing nothing.
    assert sandbox.call("tests.test_wire:_early_reply", seconds=10, during="a test") == 41
    assert sandbox.reset() == []
    assert sandbox.sandbox.restarts == 1


@pytest.mark.parametrize("target", ["_reply_to_another", "_unexpected_kind", "_wrong_shape"])
def test_a_message_out_of_step_fails_its_request_alone(sandbox: Any, target: str) -> None:
    with pytest.raises(ImplementationMisbehaved, match="broke the sandbox's protocol"):
        sandbox.call(f"tests.test_wire:{target}", seconds=10, during="a test")
    assert sandbox.sandbox.restarts == 1
    assert sandbox.reset() == []  # a fresh child answers


def _garbage(adapter: object) -> None:
    os.write(int(sys.argv[2]), b"\x00\x00\x00\x04junk")


def test_garbage_fails_its_request_and_the_next_runs(sandbox: Any) -> None:
    with pytest.raises(ImplementationMisbehaved, match="not JSON"):
        sandbox.call("tests.test_wire:_garbage", seconds=10, during="a test")
    assert sandbox.reset() == []


def test_a_run_that_raises_in_the_child_is_the_implementations_fault(sandbox: Any) -> None:
    # A scenario whose run raised in the child (the runner catches what the implementation
    # raises, so the implementation broke it) is a fault of that scenario, not the suite's.
    example = EXAMPLES[0]
    original = sandbox.sandbox.call

    def call(target: str, args: tuple[Any, ...], seconds: float, during: str) -> Any:
        if target == SCENARIO:
            target = "tests.test_wire:_raises"
        return original(target, args, seconds, during)

    sandbox.sandbox.call = call
    checked = check(example.scenario, sandbox)
    assert checked is not None and checked.fault == "misbehaved", checked
    assert checked.rules and set(checked.rules) <= checked.expected.rules_exercised()


def _raises(adapter: object, scenario: object) -> None:
    raise KeyError("the runner broke")


def test_a_mode_that_cannot_be_printed_is_still_reset() -> None:
    adapter = load_adapter("reference_impl")
    adapter.ns._C._set_torch_function_mode(_Unprintable())  # type: ignore[attr-defined]
    found = adapter.reset()
    assert found == ["mode <_Unprintable object whose __repr__() raised TypeError> left current"]
    assert adapter.current_mode() is None


def _stale_reply(adapter: object) -> None:
    child = sys.modules["conformance.sandbox._child"]
    _write(child._REQUEST - 1, "ok", {"value": None, "threads": 0})


def test_a_child_that_keeps_replaying_old_replies_fails_the_request(sandbox: Any) -> None:
    assert sandbox.reset() == []  # request 1; request 2 then writes a reply to it, and so on
    with pytest.raises(ImplementationMisbehaved, match="left-over messages again"):
        sandbox.call("tests.test_wire:_stale_reply", seconds=10, during="a test")
    assert sandbox.reset() == []
