"""A test that judged nothing compiled under --compile ends with a skip that names its rules
and why (conformance.session.recording.skip_not_compiled); the plugin gives those rules not_compiled."""

from __future__ import annotations

import pytest

from conformance.session.recording import NOT_COMPILED, skip_not_compiled


def test_the_skip_names_every_rule_and_the_reason() -> None:
    with pytest.raises(pytest.skip.Exception) as caught:
        skip_not_compiled(("TFM_ORDER_001", "TFM_TYPES_006"), "Dynamo compiled no frame")
    assert str(caught.value) == f"{NOT_COMPILED} TFM_ORDER_001, TFM_TYPES_006: Dynamo compiled no frame"


@pytest.mark.parametrize(("rules", "why"), [
    ((), "Dynamo compiled no frame"),          # no rule: nothing for the verdict to stand for
    (("ORDER",), "Dynamo compiled no frame"),  # an area, not a rule ID
    (("TFM_ORDER_001",), "  "),                 # no reason
])
def test_a_skip_without_rule_ids_or_reason_is_refused(rules: tuple[str, ...], why: str) -> None:
    with pytest.raises(ValueError, match="needs rule IDs and a reason"):
        skip_not_compiled(rules, why)
