"""What no scenario observes: the object ``with mode as m`` binds, the base mode's keywords, and
bad input to the protocol's functions (non-sequences, generators, hostile objects).

Each test names the rule it checks and runs in the implementation's sandbox; a failure names
the value that differs and comes with a script that reproduces it through the adapter.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from conformance.adapter import Adapter
from conformance.judge.failure import adapter_script, fail
from conformance.session import badinput
from conformance.session.bodies import sandboxed

Record = Callable[[str, object], None]

_BINDS = '''
Bound = type(ad.TorchFunctionMode)("Bound", (ad.TorchFunctionMode,), {})
mode = ad.make_mode(Bound)
with ad.enter(mode) as bound:
    print("`with mode as m` binds the mode itself:", bound is mode, "- it binds:", bound)
    print("the top of the mode stack is the mode:", ad.mode_stack()[-1] is mode)
'''


@pytest.mark.rule("TFM_STACK_001")
@pytest.mark.generation("stack")
@sandboxed
def test_entering_a_mode_binds_the_mode(adapter: Adapter, impl_spec: str,
                                        record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_entering_a_mode_binds_the_mode", _BINDS)
    mode = adapter.make_mode(type(adapter.TorchFunctionMode)(
        "Bound", (adapter.TorchFunctionMode,), {}))
    with adapter.enter(mode) as bound:
        stack = adapter.mode_stack()
    if bound is not mode:
        fail(record_property, ("TFM_STACK_001",), "the object `with mode as m` binds",
             f"the mode itself, {mode!r}", bound, script)
    if not stack or stack[-1] is not mode:
        fail(record_property, ("TFM_STACK_001",), "the mode stack inside `with mode`, bottom first",
             f"[..., {mode!r}]", stack, script)


_KEYWORDS = '''
x, y = ad.tensor([1.0, 2.0]), ad.tensor([3.0, 5.0])
add = ad.func("add")
mode = ad.make_mode(ad.BaseTorchFunctionMode)
with (ad.enter(mode) if ad.generation == "stack" else ad.enable(mode)):
    print("add(x, y, alpha=2):", ad.data(add(x, y, alpha=2)), "- expected [7.0, 12.0]")
    print("add(x, y):", ad.data(add(x, y)), "- expected [4.0, 7.0]")
'''


def _checked_add(adapter: Adapter, keywords: bool, script: str, record_property: Record) -> None:
    x, y = adapter.tensor([1.0, 2.0]), adapter.tensor([3.0, 5.0])
    add = adapter.func("add")
    got = adapter.data(add(x, y, alpha=2) if keywords else add(x, y))
    want = [7.0, 12.0] if keywords else [4.0, 7.0]
    if got != want:
        fail(record_property, ("TFM_PUSH_009",),
             f"the value of add(x, y{', alpha=2' if keywords else ''}) with x = [1.0, 2.0], "
             "y = [3.0, 5.0] through BaseTorchFunctionMode", want, got, script)


@pytest.mark.rule("TFM_PUSH_009")
@sandboxed
def test_the_base_mode_passes_keywords_through(adapter: Adapter, impl_spec: str,
                                               record_property: Record) -> None:
    script = adapter_script(impl_spec, "test_the_base_mode_passes_keywords_through", _KEYWORDS)
    mode = adapter.make_mode(adapter.BaseTorchFunctionMode)
    installed = adapter.enter(mode) if adapter.generation == "stack" else adapter.enable(mode)
    with installed:
        _checked_add(adapter, True, script, record_property)
        _checked_add(adapter, False, script, record_property)


@pytest.mark.rule("TFM_REACH_008")
@sandboxed
def test_bad_input_to_the_protocol_functions(adapter: Adapter, impl_spec: str,
                                             record_property: Record) -> None:
    """has_torch_function and friends on non-sequences, generators and hostile objects: the
    answer or the exception the rule allows, and never a crash (the sandbox reports a child
    that dies here as this test's failure, naming the case it was trying)."""
    wrong = badinput.try_all(adapter)
    if wrong:
        case, under_mode, allowed, got = wrong[0]
        where = "under a mode answering 'mode'" if under_mode else "without a mode"
        script = adapter_script(impl_spec, "test_bad_input_to_the_protocol_functions",
                                badinput.script_body(case.call, case.same_as, under_mode))
        notes = [f"(what {case.same_as} gives: the same elements in a tuple)"] if case.same_as else []
        if len(wrong) > 1:
            notes.append(f"{len(wrong) - 1} more case(s) wrong: " + "; ".join(
                f"{c.call} ({'mode' if m else 'no mode'}): {g}" for c, m, _, g in wrong[1:6]))
        fail(record_property, (badinput.RULE,), f"the outcome of {case.call} {where}",
             badinput.Said(" or ".join(allowed)), badinput.Said(got), script, tuple(notes))
