"""A test that judged nothing compiled under --compile ends by raising NotCompiled with its rules
and why (conformance.session.notcompiled); the plugin makes that an outcome of its own and gives
those rules not_compiled (tests/test_compile.py runs it on torch)."""

from __future__ import annotations

import pytest

from conformance.session.notcompiled import NOT_COMPILED, NotCompiled


def test_the_outcome_names_every_rule_and_the_reason() -> None:
    caught = NotCompiled(("TFM_ORDER_001", "TFM_TYPES_006"), "Dynamo compiled no frame")
    assert caught.rules == ("TFM_ORDER_001", "TFM_TYPES_006")
    assert str(caught) == f"{NOT_COMPILED} TFM_ORDER_001, TFM_TYPES_006: Dynamo compiled no frame"


@pytest.mark.parametrize(("rules", "why"), [
    ((), "Dynamo compiled no frame"),          # no rule: nothing for the verdict to stand for
    (("ORDER",), "Dynamo compiled no frame"),  # an area, not a rule ID
    (("TFM_ORDER_001",), "  "),                 # no reason
])
def test_an_outcome_without_rule_ids_or_reason_is_refused(rules: tuple[str, ...], why: str) -> None:
    with pytest.raises(ValueError, match="needs rule IDs and a reason"):
        NotCompiled(rules, why)
