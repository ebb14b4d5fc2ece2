"""The whole overridable surface: every callable the implementation lists, checked one by one.

The scenarios reach a handful of functions; this test calls every callable the implementation
lists as overridable (``overrides.get_testing_overrides()``), with arguments built from its
signature, under a recording mode, with duck-typed arguments, with a declining and a raising
mode, and inside ``DisableTorchFunction`` (see :mod:`conformance.surface.probe`). Each callable
that diverges fails the rule it breaks, named in the message and in the certificate's surface
table; callables it cannot call are listed there with the reason.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from conformance.adapter import Adapter
from conformance.runstate import state_of
from conformance.sandbox import SandboxedImplementation
from conformance.surface import judge
from conformance.surface.probe import sweep

Record = Callable[[str, object], None]
#: The property under which the test hands the surface table to the certificate.
SURFACE_PROPERTY = "surface"
SWEEP = "conformance.surface.probe:sweep"


def _account(adapter: Adapter) -> Any:
    if isinstance(adapter, SandboxedImplementation):
        return adapter.call(SWEEP, seconds=min(adapter.body_seconds, 300.0),
                            during="the surface sweep")
    return sweep(adapter)


@pytest.mark.rule("TFM_ARGS_001", "TFM_ARGS_002", "TFM_DISABLE_001", "TFM_DISABLE_002",
                  "TFM_ERROR_005", "TFM_NOTIMPL_001", "TFM_ORDER_002", "TFM_REACH_008",
                  "TFM_STACK_010", "TFM_STACK_011", "TFM_TYPES_006")
@pytest.mark.feature("surface")
def test_every_listed_callable_dispatches(adapter: Adapter, record_property: Record,
                                          request: pytest.FixtureRequest) -> None:
    state = state_of(request.config)
    try:
        listed, checked, not_called = judge.read(_account(adapter))
    except judge.SurfaceError as exc:
        record_property("failed_rules", ",".join(judge.RULES))
        pytest.fail(f"the implementation misbehaved during the surface sweep: {exc}", pytrace=False)
    if listed is None:
        pytest.fail("the implementation declares the surface feature but lists no callables",
                    pytrace=False)
    verdict = judge.judge(listed, checked, not_called, adapter.generation,
                          getattr(adapter, "stack_version", None), state.surface_scopes,
                          state.expected)
    record_property(SURFACE_PROPERTY, json.dumps(verdict.table, sort_keys=True))
    rules = sorted({*verdict.failed, *verdict.excused})
    if not rules:
        return
    record_property("failed_rules", ",".join(rules))
    record_property("excused_rules", ",".join(sorted(set(verdict.excused) - set(verdict.failed))))
    record_property("snippet", _snippet(verdict))
    shown = verdict.message() or "\n".join(
        f"{rule}: {len(names)} listed callable(s), excused: {', '.join(names[:6])}"
        for rule, names in sorted(verdict.excused.items()))
    pytest.fail(shown, pytrace=False)


def _snippet(verdict: judge.Verdict) -> str:
    lines = ["# the surface sweep's first divergence of each rule (callable: what was seen)"]
    for rule, first in sorted(verdict.first.items()):
        lines.append(f"# {rule}: {first}")
    return "\n".join(lines)
