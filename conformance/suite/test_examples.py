"""The spec's explicit examples, each run on the implementation and compared with the model.

Each example names the rules it demonstrates (PyTorch's own PR-era tests are
kept here under their names); a divergence fails the rules it is attributed to, which
need not be the example's own.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable

import pytest

from conformance.adapter import features_needed
from conformance.judge.check import Target, check
from conformance.judge.excusal import Excusals
from conformance.session.notcompiled import NotCompiled
from conformance.session.recording import COMPILATION_PROPERTY
from conformance.target.compiled import tally
from spec.examples import Example, load_examples
from spec.model import scenario_to_dict

EXAMPLES = [
    pytest.param(example, id=example.name,
                 marks=[pytest.mark.rule(*example.rules),
                        pytest.mark.generation(example.scenario.generation),
                        pytest.mark.feature(*sorted(features_needed(example.scenario)))])
    for example in load_examples()
]


@pytest.mark.compiles
@pytest.mark.parametrize("example", EXAMPLES)
def test_example(example: Example, adapter: Target, excused: Excusals,
                 record_property: Callable[[str, object], None]) -> None:
    if example.version is not None and example.version != adapter.stack_version:
        pytest.skip(reason=f"not applicable: the example shows torch {example.version}, "
                    f"the implementation follows {adapter.stack_version}")
    start = time.monotonic()
    checked = check(example.scenario, adapter, excused=excused,
                    boundary=example.compile_boundary)
    assert checked is not None, f"the model does not specify example {example.name}"
    if checked.compilation is not None:  # --compile
        record_property(COMPILATION_PROPERTY, json.dumps(
            tally([checked.compilation], time.monotonic() - start)))
        if checked.not_compiled:
            raise NotCompiled(example.rules, checked.compilation.describe())
    if not checked.differences:
        return
    # The rules the divergence is attributed to, whichever the example is about: a mode the
    # implementation leaves current fails the rule about restoring it, not the example's own.
    concerned = list(checked.rules) or list(example.rules)
    if checked.rules:
        record_property("failed_rules", ",".join(checked.rules))
        record_property("excused_rules", ",".join(checked.excused))
    record_property("scenario", json.dumps(scenario_to_dict(example.scenario), sort_keys=True))
    try:
        from conformance.snippet import snippet

        record_property("snippet", snippet(example.scenario, adapter.name, adapter.generation,
                                           checked.expected))
    except Exception as exc:  # a snippet is a courtesy; the verdict stands without it
        record_property("snippet", f"# no snippet: {type(exc).__name__}: {exc}")
    pytest.fail(f"{example.name} ({example.title}) breaks {checked.breaks(tuple(concerned))}:\n"
                + "\n".join(checked.differences), pytrace=False)
