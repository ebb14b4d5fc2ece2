"""--compile: the compiled run, what it counts, and the three-way verdict, on the installed torch.

Where torch (with torch.compile) is not installed this module defines only the tests that need
no torch (tox -e conformance-compile runs it with torch 2.13.0).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import pytest

from conformance.report.verdicts import TestOutcome, aggregate, level_reached
from conformance.target.compiled import Compilation, summarise, tally
from spec.catalogue import load_catalogue
from spec.model.codec import scenario_from_dict

TORCH = importlib.util.find_spec("torch") is not None

#: A mode that forwards, a subclass with a plain-method handler (Dynamo is handed it without a
#: source), a mode constructed in the set-up: the recording must not break the graph.
RECORDED = scenario_from_dict({
    "generation": "stack",
    "classes": [{"name": "P", "handler": "plain", "behaviour": {"return": 7}}],
    "modes": [{"name": "M", "behaviour": "forward"}, {"name": "N", "behaviour": "forward"}],
    "setup": [{"enter": "M"}, {"construct": "N"}],
    "call": {"func": "add", "args": ["plain", "P"]},
})
#: The call made in a new thread: starting a thread is a graph break of Dynamo's own.
THREADED = scenario_from_dict({
    "generation": "stack",
    "modes": [{"name": "M", "behaviour": "forward"}],
    "setup": [{"enter": "M"}],
    "call": {"func": "neg", "args": ["plain"], "thread": True},
})

#: An operator: Dynamo hands the mode Tensor.neg as an object it made without a source, whose
#: id() under tracing is a compile-time value of its own.
OPERATOR = scenario_from_dict({
    "generation": "stack",
    "modes": [{"name": "M", "behaviour": {"return": 7}}],
    "setup": [{"enter": "M"}],
    "call": {"func": "-x", "args": ["plain"]},
})


def test_a_scenario_compiled_nothing_of_is_not_compiled_and_counted_apart() -> None:
    nothing = Compilation(False, breaks=2, frames=0, reason="Unsupported: x")
    whole = Compilation(True)
    broken = Compilation(False, breaks=3, frames=4, reason="Unsupported: y", graphs=2, ran=2,
                         ran_frames=("inner_code", "_enter (resumed)"), fell_back=2)
    crashed = Compilation(False, frames=0, reason="InternalTorchDynamoError: z", crashed=True)
    assert not nothing.compiled and whole.compiled and broken.compiled and crashed.compiled
    # Dynamo's frames["ok"] decides nothing: frames it converted and then ran eagerly count there
    skipped = Compilation(False, breaks=1, frames=3, reason="Unsupported: w", graphs=1, ran=0,
                          fell_back=2)
    assert not skipped.compiled and "none ran in the call's thread" in skipped.describe()
    assert "2 frame(s) fell back to eager" in skipped.describe()
    assert "from inner_code, _enter (resumed), 2 frame(s) fell back" in broken.describe()
    counts = tally([nothing, whole, broken, crashed], seconds=2.0)
    assert counts == {"scenarios": 4, "fullgraph": 1, "graph_broken": 1, "not_compiled": 1,
                      "dynamo_errors": 1, "graph_breaks": 5, "frames_compiled": 2,
                      "frames_fell_back": 2, "milliseconds": 2000}
    entry = summarise([counts, tally([whole], seconds=1.0)])
    assert entry["scenarios"] == 5 and entry["fullgraph"] == 2
    assert entry["fullgraph_fraction"] == 0.4 and entry["scenarios_per_minute"] == 100.0


def test_a_rule_whose_tests_were_all_not_compiled_is_not_compiled_never_a_pass() -> None:
    catalogue = load_catalogue()
    outcomes = [TestOutcome("t::a", ("TFM_ORDER_001",), status="not_compiled"),
                TestOutcome("t::b", ("TFM_ORDER_001", "TFM_ORDER_002"), status="not_compiled"),
                TestOutcome("t::c", ("TFM_ORDER_002",), status="passed")]
    verdicts = aggregate(catalogue, "stack", outcomes, {}, "2.x")
    assert verdicts["TFM_ORDER_001"].verdict == "not_compiled"
    assert verdicts["TFM_ORDER_002"].verdict == "pass"  # another test ran it compiled
    assert level_reached(verdicts, (), {})["reached"] == "none"
    back = TestOutcome.from_json(TestOutcome("t::d", (), status="passed",
                                             compilation={"scenarios": 3}).to_json())
    assert back.compilation == {"scenarios": 3}


def test_a_rule_no_compiled_scenario_of_a_passing_test_exercised_is_not_compiled() -> None:
    """A generated chunk passes (or fails other rules) with some scenarios compiled: each of its
    rules counts as run compiled only if a compiled scenario exercised it (a thread's call never
    runs compiled, so the THREAD rules of a chunk whose thread scenarios all ran eagerly are
    not compiled, never a pass)."""
    catalogue = load_catalogue()
    rules = ("TFM_ORDER_001", "TFM_THREAD_001", "TFM_ARGS_002")
    chunk = TestOutcome("t::chunk", rules, status="failed", failed_rules=("TFM_ARGS_002",),
                        compiled_rules=("TFM_ORDER_001", "TFM_ARGS_002"))
    assert [chunk.status_for(r) for r in rules] == ["passed", "not_compiled", "failed"]
    verdicts = aggregate(catalogue, "stack", [chunk], {}, "2.x")
    assert [verdicts[r].verdict for r in rules] == ["pass", "not_compiled", "fail"]
    # the same test without the property (an eager run, or a test that does not tell): as before
    eager = TestOutcome.from_json(TestOutcome("t::chunk", rules, status="passed").to_json())
    assert eager.compiled_rules is None and eager.status_for("TFM_THREAD_001") == "passed"
    back = TestOutcome.from_json(chunk.to_json())
    assert back.compiled_rules == ("TFM_ORDER_001", "TFM_ARGS_002")


if TORCH:  # the rest needs torch.compile
    import torch

    from conformance.adapter import NamespaceAdapter
    from conformance.judge.check import check
    from conformance.target.compiled import run_compiled
    from conformance.target.runner import execute
    from spec.boundary import Boundary
    from spec.examples import load_examples
    from spec.model.trace import HandlerRun, Returned

    ADAPTER = NamespaceAdapter(torch)
    EXAMPLES = {e.name: e for e in load_examples()}

    def test_the_recording_itself_is_traced_whole() -> None:
        trace, _, compilation = run_compiled(RECORDED, ADAPTER)
        assert compilation.fullgraph and compilation.compiled, compilation
        # P's handler answers 7: no tensor operation, no graph; traced whole all the same
        assert compilation.graphs == 0 and "traced whole" in compilation.describe(), compilation
        eager, _ = execute(RECORDED, ADAPTER)
        assert [type(e).__name__ for e in trace.events] == [type(e).__name__ for e in eager.events]
        assert ADAPTER.reset() == []

    @pytest.mark.rule("TFM_THREAD_001")
    def test_a_call_in_a_new_thread_is_not_compiled() -> None:
        """Starting the thread is a graph break; the thread's code runs eagerly (Dynamo's frame
        hook is per thread), so no graph runs in the call's thread, whatever Dynamo counts in
        frames["ok"]."""
        trace, _, compilation = run_compiled(THREADED, ADAPTER)
        assert not compilation.fullgraph and not compilation.compiled, compilation
        assert compilation.breaks > 0 and compilation.reason.startswith("Unsupported")
        assert compilation.ran == 0 and compilation.frames > 0, compilation
        assert trace.outcome == execute(THREADED, ADAPTER)[0].outcome

    def test_labels_are_measured_from_what_ran() -> None:
        """Known outcomes on torch 2.13.0: an example Dynamo cannot trace whole but whose
        graph runs (compiled), and one whose frames Dynamo converts and then runs eagerly,
        producing no graph (not compiled, though frames["ok"] counts them)."""
        ran = run_compiled(EXAMPLES["python_disable_subclass_stack"].scenario, ADAPTER)[2]
        assert not ran.fullgraph and ran.compiled and ran.graphs >= 1 and ran.ran >= 1, ran
        fell_back = run_compiled(EXAMPLES["mode_back_on_top_after_raise"].scenario, ADAPTER)[2]
        assert not fell_back.compiled and fell_back.graphs == 0 and fell_back.frames > 0, fell_back
        assert fell_back.describe().startswith("compiled nothing"), fell_back.describe()

    def test_frames_that_ran_compiled_and_frames_that_fell_back_are_reported() -> None:
        """Per scenario, the frames whose graphs ran in the call's thread are named (the
        frame Dynamo made each graph from) and the frames it converted without a graph are
        counted: the graph-broken example ran a graph of a frame of the run's user code, and
        every frame Dynamo converted of the fell-back one ran eagerly."""
        ran = run_compiled(EXAMPLES["python_disable_subclass_stack"].scenario, ADAPTER)[2]
        assert ran.ran_frames and "?" not in ran.ran_frames, ran
        assert f"from {', '.join(ran.ran_frames)}" in ran.describe(), ran.describe()
        assert ran.fell_back == ran.frames - ran.graphs, ran
        fell_back = run_compiled(EXAMPLES["mode_back_on_top_after_raise"].scenario, ADAPTER)[2]
        assert fell_back.ran_frames == () and fell_back.fell_back == fell_back.frames > 0, fell_back
        whole = run_compiled(OPERATOR, ADAPTER)[2]
        assert whole.fullgraph and whole.fell_back == 0, whole

    def test_a_callable_an_operator_hands_the_handler_is_named_compiled_too() -> None:
        """Compiled, -x reaches the mode with Tensor.neg (as in eager): the run names it by
        identity where its id() is Dynamo's own (else the handler passes it through unseen)."""
        trace, _, compilation = run_compiled(OPERATOR, ADAPTER)
        assert compilation.fullgraph, compilation
        runs = [e for e in trace.events if isinstance(e, HandlerRun)]
        assert [(r.who, r.func) for r in runs] == [("M", "Tensor.neg")], trace.events
        assert isinstance(trace.outcome, Returned) and trace.outcome.value == 7, trace.outcome

    def test_each_scenario_starts_from_a_reset_dynamo() -> None:
        first = run_compiled(THREADED, ADAPTER)[2]
        run_compiled(RECORDED, ADAPTER)
        assert run_compiled(THREADED, ADAPTER)[2] == first

    @pytest.mark.rule("TFM_STACK_002")
    def test_a_divergence_from_eager_fails_its_rule_and_agreement_passes() -> None:
        ADAPTER.compile = True  # type: ignore[attr-defined]
        try:
            diverging = check(EXAMPLES["text_classmethod_mode"].scenario, ADAPTER)
            agreeing = check(EXAMPLES["mode_types_ignore_plain_tensors_and_ints"].scenario, ADAPTER)
        finally:
            ADAPTER.compile = False  # type: ignore[attr-defined]
        assert diverging is not None and "TFM_STACK_002" in diverging.rules
        assert diverging.differences[0].startswith("compiled differs from eager")
        assert agreeing is not None and agreeing.rules == () and agreeing.compilation.fullgraph

    #: A mode entered, then DisableTorchFunctionSubclass, then a call: three boundaries.
    LAYERED = scenario_from_dict({
        "generation": "stack", "modes": [{"name": "M", "behaviour": "forward"}],
        "setup": [{"enter": "M"}, {"disable": "subclass"}],
        "call": {"func": "neg", "args": ["plain"]}})

    def test_set_up_steps_entered_outside_the_compiled_function_run_around_it() -> None:
        eager, _ = execute(LAYERED, ADAPTER)
        ADAPTER.reset()
        for outside in (0, 1, 2, 9):
            trace, _, compilation = run_compiled(LAYERED, ADAPTER, boundary=Boundary(outside))
            ADAPTER.reset()
            assert compilation.outside == min(outside, 2) and compilation.compiled, compilation
            # the same steps are entered in the same order, wherever the boundary lies
            kinds = [type(e).__name__ for e in trace.events]
            assert kinds == [type(e).__name__ for e in eager.events], (outside, trace.events)

    def test_a_forced_graph_break_splits_the_compiled_function() -> None:
        """A boundary with a graph break is never traced whole: Dynamo breaks the graph where
        the break is forced, and what follows the break runs compiled in a frame resumed after
        it; the events are eager's, in eager's order."""
        eager, _ = execute(LAYERED, ADAPTER)
        ADAPTER.reset()
        for brk in (0, 1, 2):
            trace, _, compilation = run_compiled(LAYERED, ADAPTER, boundary=Boundary(0, brk))
            ADAPTER.reset()
            assert compilation.boundary == Boundary(0, brk), compilation
            assert not compilation.fullgraph and compilation.breaks >= 1, compilation
            assert compilation.compiled and any("resumed" in f for f in compilation.ran_frames), (
                brk, compilation)
            kinds = [type(e).__name__ for e in trace.events]
            assert kinds == [type(e).__name__ for e in eager.events], (brk, trace.events)

    #: Two subclass instances whose handler forwards (disabled), a mode, and a call on both.
    SUBCLASSED = scenario_from_dict({
        "generation": "stack",
        "classes": [{"name": "A", "kind": "tensor", "behaviour": "forward_disabled"}],
        "modes": [{"name": "M", "behaviour": "forward"}], "setup": [{"enter": "M"}],
        "call": {"func": "add", "args": ["A", "A"]}})

    def test_the_calls_tensors_can_be_made_inside_the_compiled_function() -> None:
        """made_inside: the subclass instances are made by the compiled function (its first
        act) rather than passed in; with a break forced after the mode is entered they are made
        before the break and used after it. The handlers run in eager's order with eager's
        types, and are handed the instances by the names eager's are (x0, x1); the result is
        eager's. (What they are handed as kwargs differs compiled: a cause of its own.)"""
        def seen(trace: Any) -> list[Any]:
            return [(e.who, e.func, e.types, e.args) if isinstance(e, HandlerRun)
                    else type(e).__name__ for e in trace.events]

        eager, _ = execute(SUBCLASSED, ADAPTER)
        ADAPTER.reset()
        assert [e[3] for e in seen(eager) if isinstance(e, tuple)] == [
            (("obj", "x0"), ("obj", "x1"))] * 2
        for boundary in (Boundary(0, None, True), Boundary(0, 1, True), Boundary(0, 0, True)):
            trace, _, compilation = run_compiled(SUBCLASSED, ADAPTER, boundary=boundary)
            ADAPTER.reset()
            assert compilation.boundary == boundary and compilation.compiled, compilation
            assert compilation.fullgraph == (boundary.graph_break is None), compilation
            assert seen(trace) == seen(eager), (boundary, trace.events)
            assert trace.outcome == eager.outcome, (boundary, trace.outcome)

    def test_the_boundary_travels_through_the_sandbox() -> None:
        from conformance.judge.compilecheck import check_compiled
        from conformance.sandbox.parent import SandboxedImplementation

        target = SandboxedImplementation("torch")
        try:
            checked = check_compiled(LAYERED, target, seconds=300, boundary=Boundary(1),
                                     excused=frozenset({"TFM_ARGS_002", "TFM_ARGS_003"}))
            broken = check_compiled(SUBCLASSED, target, seconds=300, boundary=Boundary(0, 1, True),
                                    excused=frozenset({"TFM_ARGS_002", "TFM_ARGS_003"}))
        finally:
            target.close()
        assert checked is not None and checked.compilation is not None
        assert checked.compilation.outside == 1, checked.compilation
        assert broken is not None and broken.compilation is not None
        assert broken.compilation.boundary == Boundary(0, 1, True), broken.compilation

    #: A mode whose handler adds 100 to the value it forwards, entered before the call.
    #: The example the certification runs with its mode entered outside (compile_outside = 1).
    ADDING_EXAMPLE = EXAMPLES["a_mode_that_adds_to_what_it_forwards_answers_once"]
    ADDING = ADDING_EXAMPLE.scenario

    @pytest.mark.rule("TFM_ORDER_002")
    def test_a_mode_entered_outside_the_compiled_function_is_applied_again() -> None:
        """Named case (the cause mode-outside-applied-again): entered inside the compiled
        function the mode's answer is the result, as eagerly; entered outside it (active when
        the compiled function is called) the addition is applied again, and the mode's answer
        is not the call's result (TFM_ORDER_002). torch 2.13.0's compiled expected failures
        excuse it there only ("outside compile")."""
        from conformance.judge.compilecheck import check_compiled
        from conformance.judge.excusal import Excusals
        from conformance.session.expectations import load_scopes

        # kwargs {} for None, and Dynamo's read of the graph's sizes handed to the mode entered
        # outside (Tensor.shape.__get__): causes of their own
        kwargs = frozenset({"TFM_ARGS_002", "TFM_ARGS_003", "TFM_REACH_010"})
        ADAPTER.compile = True  # type: ignore[attr-defined]
        try:
            inside = check_compiled(ADDING, ADAPTER, 300, kwargs, boundary=Boundary(0))
            ADAPTER.reset()
            outside = check_compiled(ADDING, ADAPTER, 300, kwargs, boundary=Boundary(1))
            ADAPTER.reset()
            scopes = load_scopes(Path(__file__).parent.parent / "conformance" / "expected_failures"
                                 / "torch-2.13.0-compiled.toml", load_catalogue().ids())
            excused = check_compiled(ADDING, ADAPTER, 300, Excusals(scopes), boundary=Boundary(1))
        finally:
            ADAPTER.compile = False  # type: ignore[attr-defined]
            ADAPTER.reset()
        assert inside is not None and "TFM_ORDER_002" not in inside.rules, inside.differences
        assert outside is not None and "TFM_ORDER_002" in outside.rules, outside.differences
        assert "observed: TensorValue(cls='Tensor', data=(299.0, 303.0))" in "\n".join(
            outside.differences)
        assert excused is not None and "TFM_ORDER_002" in excused.excused, excused
        assert set(excused.rules) <= set(excused.excused), excused.differences

    @pytest.mark.rule("TFM_ORDER_002")
    def test_the_certification_runs_the_example_with_its_mode_entered_outside(tmp_path: Path) -> None:
        """The suite's explicit examples honour compile_outside: under --compile the example's
        mode is entered before the compiled function is called, and the certificate fails
        TFM_ORDER_002 in that example's test (the kwargs {} and the mode handed Dynamo's read of
        the graph's sizes, which come first, causes of their own, excused)."""
        import json
        import subprocess
        import sys

        assert ADDING_EXAMPLE.compile_boundary == Boundary(1)
        reports, kwargs = tmp_path / "reports", tmp_path / "kwargs.toml"
        kwargs.write_text('[TFM_ARGS_002]\nreason = "kwargs {}"\n[TFM_ARGS_003]\nreason = "kwargs {}"\n'
                          '[TFM_REACH_010]\nreason = "the graph sizes read"\n'
                          'functions = ["Tensor.shape.__get__"]\n', encoding="utf-8")
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "conformance.suite",
             "--impl", "torch", "--compile", "-k", ADDING_EXAMPLE.name, f"--reports-dir={reports}",
             f"--expected-failures={kwargs}"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False)
        certificate = json.loads((reports / "certificate.json").read_text(encoding="utf-8"))
        failures = certificate["rules"]["TFM_ORDER_002"]["failures"]
        assert [f["test"].rsplit("[", 1)[-1] for f in failures] == [ADDING_EXAMPLE.name + "]"], (
            done.stdout[-3000:])
        assert "data=(299.0, 303.0)" in failures[0]["message"]

    @pytest.mark.rule("TFM_STACK_001", "TFM_THREAD_001")
    def test_a_test_that_compiled_nothing_is_the_plugins_own_outcome(tmp_path: Path) -> None:
        """Not compiled is an outcome the plugin owns, on two workers as in one process: a thread
        example (its call never runs compiled) ends at its call, a test that runs no user code
        compiled ends at its set-up; the terminal counts both apart ("not compiled", never
        passed or skipped), the JUnit file shows them skipped with their rules and reason, and
        the certificate gives each rule they stand for not_compiled."""
        import json
        import subprocess
        import sys
        import xml.etree.ElementTree as ET

        reports = tmp_path / "reports"
        done = subprocess.run(
            [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "conformance.suite",
             "--impl", "torch", "--compile", "-n", "2", "-rs", f"--reports-dir={reports}",
             f"--junitxml={tmp_path / 'junit.xml'}",
             "-k", "new_thread_has_empty_stack or test_entering_a_mode_binds_the_mode"],
            capture_output=True, text=True, cwd=tmp_path, timeout=600, check=False)
        shown = done.stdout[-3000:]
        assert "2 not compiled" in done.stdout.splitlines()[-1], shown
        assert " passed" not in done.stdout.splitlines()[-1], shown
        skipped = [case.find("skipped") for case in ET.parse(tmp_path / "junit.xml").iter("testcase")]
        messages = sorted(s.get("message", "") for s in skipped if s is not None)
        assert len(messages) == 2 and all(m.startswith("not compiled: TFM_") for m in messages), messages
        assert any("TFM_STACK_001: this test runs no user code" in m for m in messages), messages
        verdicts = json.loads((reports / "certificate.json").read_text(encoding="utf-8"))["rules"]
        assert verdicts["TFM_STACK_001"]["verdict"] == "not_compiled", shown
        assert verdicts["TFM_THREAD_001"]["verdict"] == "not_compiled", shown


def _untraceable_on_older_dynamo(tree: Any) -> list[str]:
    import ast
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
            continue
        if node.func.id == "next" and len(node.args) > 1:
            found.append(f"line {node.lineno}: next() with a default")
        strict = [k for k in node.keywords if k.arg == "strict"]
        if node.func.id == "zip" and strict:
            found.append(f"line {node.lineno}: zip(..., strict=...)")
    return found


def test_the_code_handlers_run_under_compile_uses_nothing_older_dynamo_breaks_on() -> None:
    """The runner's handlers and builders run inside the compiled function: a construct an older
    Dynamo cannot trace breaks the graph there, so the handler runs eagerly and hides what the
    compiled run would hand it. Dynamo up to 2.8 traces next() with one argument only (the
    kwargs divergences of 2.7.1 and 2.8.0 went unseen), and 2.5 to 2.9 fail on zip(strict=)."""
    import ast
    target = Path(__file__).resolve().parents[1] / "conformance" / "target"
    found = {path.name: _untraceable_on_older_dynamo(ast.parse(path.read_text(encoding="utf-8")))
             for path in sorted(target.glob("*.py"))}
    assert len(found) >= 5 and {k: v for k, v in found.items() if v} == {}
    # and the check finds what it looks for
    assert len(_untraceable_on_older_dynamo(ast.parse(
        "next((a for a in b), None)\nzip(a, b, strict=False)\nnext(c)"))) == 2
