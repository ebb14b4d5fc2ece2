"""Failure messages an implementer can act on, and stateful runs turned into reproductions.

The pieces, in this process: the character-level diff of two texts (conformance.base.textdiff),
the description of a scenario's differences (conformance.judge.divergence), the scenario a
stateful run's steps amount to (conformance.generate.steps) and the script that replays them
(conformance.snippet.steps). tests/test_suite_failures.py runs the whole suite.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import re
import warnings

import pytest

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.base.textdiff import MAX_SHOWN, first_difference, shorten, text_diff
from conformance.generate.steps import Op, as_scenario, why_not
from conformance.judge.check import check
from conformance.judge.divergence import describe_differences, text_offsets
from conformance.judge.failure import fail, shown
from conformance.snippet import steps_snippet
from conformance.suite.test_stateful import SCENARIO, replace_generation
from conformance.target.runner import execute
from spec.model import predict, scenario_from_dict
from spec.model.scenario import Call, Enable, Enter, Push, TensorArg
from spec.model.trace import Message, Raised, Ref, Trace
from tests.mutants._build import Mutation, build


def _caret(lines: list[str]) -> tuple[str, str, int]:
    """The expected and observed windows of a diff and the column of its caret."""
    exp = next(line for line in lines if line.lstrip().startswith("expected: "))
    obs = next(line for line in lines if line.lstrip().startswith("observed: "))
    caret = next(line for line in lines if line.strip() == "^")
    return exp, obs, caret.index("^")


# -- the character-level diff ------------------------------------------------------------


def test_two_spaces_against_one_are_pointed_at() -> None:
    expected, observed = "mode <M>.  Use push", "mode <M>. Use push"
    lines = text_diff(expected, observed)
    assert "first difference at character 10: expected ' ' (U+0020 SPACE), observed 'U' " \
           "(U+0055 LATIN CAPITAL LETTER U)" in lines[0]
    exp, obs, col = _caret(lines)
    assert exp[col] == " " and exp[col - 1] == " " and obs[col] == "U" and obs[col - 1] == " "


@pytest.mark.parametrize("invisible, name", [("\xa0", "NO-BREAK SPACE"),
                                            ("\u200b", "ZERO WIDTH SPACE"), ("\t", "")])
def test_invisible_characters_are_escaped_and_named(invisible: str, name: str) -> None:
    lines = text_diff("a b c", f"a{invisible}b c")
    shown = repr(invisible)[1:-1]
    assert f"observed '{shown}' (U+{ord(invisible):04X}{' ' + name if name else ''})" in lines[0]
    exp, obs, col = _caret(lines)
    assert obs[col:col + len(shown)] == shown and exp[col] == " "


def test_a_longer_text_differs_at_the_end_of_the_shorter() -> None:
    assert first_difference("abc", "abcd") == 3
    assert "expected the end of the text, observed 'd'" in text_diff("abc", "abcd")[0]
    assert first_difference("same", "same") is None and text_diff("same", "same") == []


def test_a_long_text_is_shortened_around_its_first_difference_and_says_so() -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(5 * MAX_SHOWN))
    at = 3 * MAX_SHOWN + 7
    shown, note = shorten(text, at)
    assert text[at - 100:at + 100] in shown and len(shown) <= MAX_SHOWN + 2
    assert f"of {len(text)} shown" in note and "around the first difference" in note
    assert shorten("short", 2) == ("short", "")


def test_addresses_are_blanked_in_the_windows_so_the_caret_stays_put() -> None:
    expected, observed = "<M object at 0x7f00aa>.  Use", "<M object at 0x7f00bb12ff>. Use"
    exp, obs, col = _caret(text_diff(expected, observed, 24, 28))
    assert "0x…" in exp and "0x…" in obs
    assert exp[col] == " " and obs[col] == "U"


# -- the differences of a scenario ----------------------------------------------------


def test_an_error_text_difference_is_located_past_an_object_of_unknown_repr() -> None:
    message = Message(("already an active mode ", Ref("mode", "M"), ".  Use push"))
    observed = "already an active mode <scenario.M object at 0x7f0012345678>. Use push"
    exp_at, obs_at = text_offsets(message, observed, {})
    assert message.render({})[exp_at - 2:exp_at + 1] == ".  " and observed[obs_at] == "U"
    assert text_offsets(message, observed[:-1], {}) == (exp_at, obs_at)


def test_each_difference_names_its_rules_its_field_and_both_values_in_full() -> None:
    spaced = build("msg_unit_spacing", (Mutation(
        "overrides.py", 'f"{old}.  {help_text}"', 'f"{old}. {help_text}"'),))
    scenario = scenario_from_dict({"modes": [{"name": "M", "behaviour": "forward"}],
                                   "setup": [{"push": "M"}, {"enable": "M", "replace": "M"}]})
    checked = check(scenario, NamespaceAdapter(spaced))
    assert checked is not None and checked.rules == ("TFM_TEXT_005",)
    text = "\n".join(checked.differences)
    assert "the outcome, the error text [TFM_TEXT_005]:" in text
    assert re.search(r"expected: ValueError\('Attempted to enable_torch_function_mode, but there "
                     r"is already an active mode <mode M>\.  Use push_torch_function_mode "
                     r"instead\.'\)", text)
    assert re.search(r"observed: ValueError\('Attempted .*<scenario\.M object at 0x\w+>\. Use "
                     r"push_torch_function_mode instead\.'\)", text)
    exp, obs, col = _caret(list(checked.differences[-4:]))
    assert exp[col - 1:col + 1] == "  " and obs[col - 1:col + 1] == " U"


def test_a_handler_run_difference_shows_the_field_and_both_events() -> None:
    mutant = importlib.import_module("tests.mutants.mode_type_in_types")
    scenario = scenario_from_dict({"classes": [{"name": "A", "behaviour": "notimpl"}],
                                   "modes": [{"name": "M", "behaviour": "forward"}],
                                   "setup": [{"push": "M"}], "call": {"func": "add", "args": ["A", "A"]}})
    expected = predict(scenario)
    checked = check(scenario, NamespaceAdapter(mutant))
    assert checked is not None and "TFM_TYPES_002" in checked.rules
    first = checked.differences[0]
    assert first.startswith("event ") and "a handler run, its field 'types' [TFM_TYPES_002" in first
    assert checked.differences[1] == "  expected: ('A',)"
    assert checked.differences[2] == "  observed: ('A', 'M')"
    assert any(line.startswith("  expected event: handler M (mode) for add") for line in checked.differences)
    reference = NamespaceAdapter(reference_impl)
    try:
        observed, naming = execute(scenario, reference)
    finally:
        reference.reset()
    assert describe_differences(expected, observed, naming) == []


def test_an_unexpected_end_of_the_events_is_said_so() -> None:
    scenario = scenario_from_dict({"modes": [{"name": "M", "behaviour": "forward"}],
                                   "setup": [{"push": "M"}], "call": {"func": "neg", "args": ["plain"]}})
    expected = predict(scenario)
    cut = Trace(expected.events[:1], Raised("RuntimeError", Message(("boom",))), expected.after)
    lines = describe_differences(expected, cut, {})
    assert re.match(r"event 1, a (handler run|set-up step entered), is missing \[", lines[0])
    assert lines[2] == "  observed: nothing"


# -- stateful steps as a scenario, or a script --------------------------------------------


PUSH_M = Op("enter", "push M", Push("M"), opened=True)
ENABLE_N = Op("enter", "enable N (replace=M, ignore_preexisting=False)", Enable("N", "M"), opened=True)


def test_steps_that_end_in_a_call_are_the_scenario_of_the_open_blocks() -> None:
    steps = (PUSH_M, Op("call", "call sub", func="sub"), ENABLE_N,
             Op("exit", "exit of open block 1", index=1), Op("call", "call add", func="add"))
    scenario = as_scenario(SCENARIO, steps)
    assert scenario is not None and scenario.setup == (Push("M"),)
    assert scenario.call == Call("add", (TensorArg(), TensorArg()))
    assert scenario.modes == SCENARIO.modes and scenario.classes == SCENARIO.classes


def test_a_step_that_raises_is_the_last_set_up_step() -> None:
    failing = Op("enter", "enable M (replace=None, ignore_preexisting=False)", Enable("M"))
    scenario = as_scenario(SCENARIO, (PUSH_M, failing))
    assert scenario is not None and scenario.setup == (Push("M"), Enable("M")) and scenario.call is None
    stack = replace_generation(SCENARIO)
    entered = as_scenario(stack, (Op("enter", "with M", Enter("M")),))
    assert entered is not None and entered.generation == "stack" and entered.setup == (Enter("M"),)


def test_what_a_scenario_cannot_express_is_said() -> None:
    out_of_order = (PUSH_M, ENABLE_N, Op("exit", "exit of open block 0, push M", index=0))
    assert as_scenario(SCENARIO, out_of_order) is None
    assert "innermost first" in (why_not(out_of_order) or "")
    unentered = (Op("exit_unentered", "exit of M, never entered", mode="M"),)
    assert "never entered" in (why_not(unentered) or "")
    assert why_not(()) is not None


def _run(code: str) -> list[str]:
    out = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(out):
        exec(compile(code, "<steps>", "exec"), {"__name__": "steps"})
    return [re.sub(r"0x[0-9a-f]+", "0x?", line) for line in out.getvalue().splitlines()]


def test_the_replay_script_shows_the_divergence_the_reference_does_not() -> None:
    # enable_same_mode_raises: enabling the current mode again raises instead of doing nothing.
    broken = build("msg_unit_same_mode", (Mutation(
        "overrides.py", "    if old is mode:\n        return _UNCHANGED\n",
        "    if old is mode:\n        raise ValueError('already current')\n"),))
    steps = (Op("enter", "enable M (replace=None, ignore_preexisting=False)", Enable("M"), opened=True),
             Op("enter", "enable M (replace=None, ignore_preexisting=False)", Enable("M")))
    lines = ["breaks TFM_ENABLE_002 at step 2 (enable M):", "whether entering raises [TFM_ENABLE_002]:"]
    outputs = {}
    for name, module in (("reference_impl", reference_impl), ("msg_unit_same_mode", broken)):
        code = steps_snippet(SCENARIO, ("M", "N", "P"), steps, name, "2022", "a test", lines)
        assert "#   whether entering raises [TFM_ENABLE_002]:" in code
        try:
            outputs[name] = _run(code)
        finally:
            NamespaceAdapter(module).reset()
    good, bad = outputs["reference_impl"], outputs["msg_unit_same_mode"]
    assert good[:-3] == bad[:-3]
    assert good[-3:] == ["step 2: enable M (replace=None, ignore_preexisting=False)", "  entered",
                         "  current mode: mode_M"]
    assert bad[-3:] == ["step 2: enable M (replace=None, ignore_preexisting=False)",
                        "  raised ValueError: already current", "  current mode: mode_M"]


def test_stack_replay_scripts_are_python_for_a_namespace_and_an_adapter() -> None:
    stack = replace_generation(SCENARIO)
    steps = (Op("enter", "with M", Enter("M"), opened=True), Op("enter", "with N()", Push("N"), opened=True),
             Op("exit", "exit of open block 0, with M", index=0), Op("call", "call ones", func="ones"),
             Op("exit_unentered", "exit of P, never entered", mode="P"))
    for impl in ("torch", "my_pkg.adapters:TorchAdapter"):
        code = steps_snippet(stack, ("M", "N", "P"), steps, impl, "stack", "a test", ["x"])
        compile(code, "<steps>", "exec")
        assert "leave_unentered('step 5: exit of P, never entered', mode_P)" in code
        assert ("ad.mode_stack()" in code) == impl.endswith("Adapter")


# -- the hand-written tests' failures -----------------------------------------------------------


def test_a_hand_written_failure_records_its_rule_and_shows_both_values() -> None:
    recorded: list[tuple[str, object]] = []
    with pytest.raises(pytest.fail.Exception) as failed:
        fail(lambda k, v: recorded.append((k, v)), ("TFM_TEXT_005",), "the error text",
             "mode M.  Use push", "mode M. Use push", snippet="print('repro')")
    assert recorded == [("failed_rules", "TFM_TEXT_005"), ("snippet", "print('repro')")]
    lines = str(failed.value.msg).splitlines()
    assert lines[:4] == ["breaks TFM_TEXT_005:", "the error text [TFM_TEXT_005]:",
                         "  expected: 'mode M.  Use push'", "  observed: 'mode M. Use push'"]
    exp, obs, col = _caret(lines[5:])
    assert exp[col] == " " and obs[col] == "U"
    assert shown("x" * 5000).endswith(f"(the first {MAX_SHOWN} of 5002 characters)")
