"""The generated device-context plans of conformance/suite/test_ownmodes.py: what each predicts,
and that the adapter script replaying any plan is valid Python."""

from __future__ import annotations

from hypothesis import given

from conformance.failure import adapter_script
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
