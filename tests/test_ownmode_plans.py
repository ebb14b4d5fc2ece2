"""The generated device-context plans of conformance/suite/test_ownmodes.py: what each predicts,
and that the adapter script replaying any plan is valid Python."""

from __future__ import annotations

from hypothesis import given

from conformance.judge.failure import adapter_script
from conformance.suite._ownmode_plans import INITIAL, Plan, plans, script_body


@given(plans())
def test_every_plan_replays_as_a_script(plan: Plan) -> None:
    source = adapter_script("torch", "a plan", script_body(plan))
    compile(source, "<plan>", "exec")
    assert "ad.device_context" in source or not plan.blocks


def test_the_predictions_of_one_plan() -> None:
    plan = Plan(default="meta", below=1, set_in_modes="cpu", blocks=("meta", "cpu"), above=1,
                explicit=False)
    assert plan.setting == "cpu"
    assert plan.base_stack() == ["device:cpu", "B0"]
    assert plan.full_stack() == ["device:cpu", "B0", "device:meta", "device:cpu", "A0"]
    assert [plan.factory_device(d) for d in range(3)] == ["cpu", "meta", "cpu"]
    assert (plan.seen_above(), plan.seen_below()) == ({}, {"device": "cpu"})
    bare = Plan(default=None, below=0, set_in_modes=None, blocks=(), above=0, explicit=True)
    assert bare.base_stack() == [] and bare.probe_device() == INITIAL
    assert bare.seen_above() == bare.seen_below() == {"device": "cpu"}


def test_every_plan_failure_of_an_exception_group_counts() -> None:
    # Hypothesis raises an exception group when it finds distinct failures: an excused rule's
    # failure must not hide another rule's (seen on torch 2.3.1: OWNMODE_005 and OWNMODE_003).
    import sys

    from conformance.suite.test_ownmodes import _Broken, _broken_in

    if sys.version_info >= (3, 11):
        group_type: type = ExceptionGroup  # noqa: F821 - a builtin from 3.11
    else:  # Python 3.10: the backport hypothesis uses
        from exceptiongroup import ExceptionGroup as group_type
    first = _Broken(("TFM_OWNMODE_005",), "get_default_device()", "cpu", "AttributeError")
    second = _Broken(("TFM_OWNMODE_003",), "the stack", ["B0", "device:cpu"], ["device:cpu", "B0"])
    group = group_type("two bugs", [first, group_type("nested", [second, ValueError("other")])])
    assert _broken_in(group) == [first, second]
    assert _broken_in(first) == [first]
    assert _broken_in(ValueError("not a plan failure")) == []
