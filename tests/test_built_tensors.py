"""A failure caused by the suite building the call's tensors (``x0 = tensor(...)``, before the
scenario's set-up) says so: the runner notes which tensor's building ran a handler or raised
(:class:`spec.model.trace.Built`), the note travels from the sandbox's child, and the failure
message names the tensor and the code that built it instead of leaving it to a traceback."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.adapter import NamespaceAdapter
from conformance.judge.check import check
from conformance.sandbox.parent import SandboxedImplementation
from conformance.sandbox.tracewire import decode_trace, encode_trace
from conformance.sandbox.wire import WireError
from conformance.target.runner import execute
from spec.model import scenario_from_dict
from spec.model.trace import Built
from tests.mutants._build import Mutation, build

#: tensor() refuses data below -4: x0 ([1.0, -3.0]) builds, x1 ([2.0, -5.0]) raises.
RAISING = build("built_unit_tensor_raises", (Mutation(
    "_tensor.py",
    "    return Tensor(data)\n",
    "    data = list(data)\n"
    "    if min(data) < -4:\n"
    "        raise ValueError('tensor: values below -4 are not supported')\n"
    "    return Tensor(data)\n"),))
#: as_subclass dispatches Tensor.neg on its result, so the class's handler sees the build.
DISPATCHING = build("built_unit_as_subclass_dispatches", (Mutation(
    "_tensor.py",
    "        result._data = self._data\n        return result\n",
    "        result._data = self._data\n        result.neg()\n        return result\n"),))

ADD = scenario_from_dict({"modes": [{"name": "M", "behaviour": "forward"}],
                          "setup": [{"push": "M"}], "call": {"func": "add", "args": ["plain", "plain"]}})
NEG_OF_A = scenario_from_dict({"classes": [{"name": "A", "behaviour": "default"}],
                               "call": {"func": "neg", "args": ["A"]}})


def _differences(scenario: object, module: object) -> str:
    adapter = NamespaceAdapter(module)
    try:
        checked = check(scenario, adapter)  # type: ignore[arg-type]
    finally:
        adapter.reset()
    assert checked is not None and checked.rules
    return "\n".join(checked.differences)


def test_a_tensor_whose_building_raises_is_named_with_the_code_that_built_it() -> None:
    adapter = NamespaceAdapter(RAISING)
    try:
        trace, _ = execute(ADD, adapter)
    finally:
        adapter.reset()
    assert trace.built == (Built("x1", "tensor([2.0, -5.0])", 0, 0, raised=True),)
    text = _differences(ADD, RAISING)
    assert "raised while the suite built x1 with tensor([2.0, -5.0]), before the scenario's " \
           "set-up" in text
    # the first block (a set-up step entered, missing) says why nothing more was observed
    first = text.split("\nthen ")[0]
    assert "nothing more was observed: an exception was raised while the suite built x1" in first


def test_a_handler_run_during_the_building_of_a_tensor_says_so() -> None:
    adapter = NamespaceAdapter(DISPATCHING)
    try:
        trace, _ = execute(NEG_OF_A, adapter)
    finally:
        adapter.reset()
    assert trace.built == (Built("x0", "tensor([1.0, -3.0]).as_subclass(A)", 0, 1),)
    assert trace.built_during(0) == trace.built[0] and trace.built_during(1) is None
    text = _differences(NEG_OF_A, DISPATCHING)
    first = text.split("\nthen ")[0]
    assert "this event was observed while the suite built x0 with " \
           "tensor([1.0, -3.0]).as_subclass(A), before the scenario's set-up" in first


def test_a_building_that_runs_nothing_leaves_no_note() -> None:
    import reference_impl

    adapter = NamespaceAdapter(reference_impl)
    try:
        trace, _ = execute(NEG_OF_A, adapter)
    finally:
        adapter.reset()
    assert trace.built == ()


def test_the_note_travels_from_the_child_and_is_checked() -> None:
    adapter = NamespaceAdapter(DISPATCHING)
    try:
        trace, _ = execute(NEG_OF_A, adapter)
    finally:
        adapter.reset()
    body = json.loads(json.dumps(encode_trace(trace)))
    assert decode_trace(body).built == trace.built
    body["built"][0][3] = len(body["events"]) + 1  # ends past the last event
    with pytest.raises(WireError, match=r"the trace\.built\[0\]\.end"):
        decode_trace(body)
    del body["built"]
    with pytest.raises(WireError, match="no 'built'"):
        decode_trace(body)


@pytest.fixture
def refusing_namespace(tmp_path: Path) -> Iterator[str]:
    """reference_impl with a ``tensor`` that refuses values below -4, importable by name."""
    (tmp_path / "built_refuses_below_four.py").write_text(textwrap.dedent('''
        import reference_impl as _ref
        from reference_impl import *  # noqa: F403
        from reference_impl import _C, overrides  # noqa: F401
        __version__ = "broken"

        def tensor(data):
            if min(data) < -4:
                raise ValueError("tensor: values below -4 are not supported")
            return _ref.tensor(data)
    '''), encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    yield "built_refuses_below_four"
    sys.path.remove(str(tmp_path))


def test_the_note_reaches_the_message_of_a_sandboxed_run(refusing_namespace: str) -> None:
    impl = SandboxedImplementation(refusing_namespace)
    try:
        checked = check(ADD, impl)
    finally:
        impl.close()
    assert checked is not None and checked.fault is None and checked.rules
    assert checked.observed.built == (Built("x1", "tensor([2.0, -5.0])", 0, 0, raised=True),)
    assert "raised while the suite built x1 with tensor([2.0, -5.0])" in "\n".join(checked.differences)
