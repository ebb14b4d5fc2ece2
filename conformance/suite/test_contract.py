"""What no scenario observes: the object ``with mode as m`` binds, and the base mode's keywords.

Each test names the rule it checks and runs in the implementation's sandbox.
"""

from __future__ import annotations

import pytest

from conformance.adapter import Adapter
from conformance.sandbox import sandboxed


@pytest.mark.rule("TFM_STACK_001")
@pytest.mark.generation("stack")
@sandboxed
def test_entering_a_mode_binds_the_mode(adapter: Adapter) -> None:
    mode = adapter.make_mode(type(adapter.TorchFunctionMode)(
        "Bound", (adapter.TorchFunctionMode,), {}))
    with adapter.enter(mode) as bound:
        assert bound is mode, f"`with mode as m` bound {bound!r}, not the mode"
        assert adapter.mode_stack()[-1] is mode


def _checked_add(adapter: Adapter, keywords: bool) -> None:
    x, y = adapter.tensor([1.0, 2.0]), adapter.tensor([3.0, 5.0])
    add = adapter.func("add")
    got = adapter.data(add(x, y, alpha=2) if keywords else add(x, y))
    want = [7.0, 12.0] if keywords else [4.0, 7.0]
    assert got == want, (f"add(x, y{', alpha=2' if keywords else ''}) through "
                         f"BaseTorchFunctionMode gave {got}, not {want}")


@pytest.mark.rule("TFM_PUSH_009")
@sandboxed
def test_the_base_mode_passes_keywords_through(adapter: Adapter) -> None:
    mode = adapter.make_mode(adapter.BaseTorchFunctionMode)
    installed = adapter.enter(mode) if adapter.generation == "stack" else adapter.enable(mode)
    with installed:
        _checked_add(adapter, keywords=True)
        _checked_add(adapter, keywords=False)
