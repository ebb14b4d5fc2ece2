"""Every mutant is told apart from the model: by generated scenarios, or by a targeted check.

For each mutant a hypothesis search over ``scenarios("2022")`` looks for a scenario on which
the mutant's observed trace differs from the model's prediction while reference_impl's does not
(so the difference is the mutant's bug, not a model/reference disagreement). The number of
generated scenarios it needed is printed in the "mutants" section of the terminal summary.

Four bugs are reached only through the rarer features of the scenario language (a call made
in a new thread, pushing a mode instance, constructing a mode without ``inner=``, the slot
observed after a handler raised and the error was caught). Those mutants also get a targeted
check: a few lines that fail on the mutant and pass on reference_impl, independent of the
generator.
"""

from __future__ import annotations

import importlib
import json
import threading
import time
from collections.abc import Callable
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

import reference_impl
from conformance.adapter import NamespaceAdapter
from conformance.generate.strategies import scenarios
from conformance.judge.compare import differences
from conformance.target.runner import execute
from spec.model import Scenario, Unbounded, Unspecified, predict, scenario_to_dict
from tests.mutants import MUTANTS

from .conftest import SUMMARY_KEY

#: The most generated scenarios a search may try before it gives up.
MAX_EXAMPLES = 5000

SEARCH = settings(
    max_examples=MAX_EXAMPLES,
    deadline=None,
    database=None,
    derandomize=True,
    phases=(Phase.generate,),  # the first difference found; shrinking would only cost time
    suppress_health_check=list(HealthCheck),
)

#: Mutants whose bug generated scenarios cannot reach (each must have a targeted check), and why.
#: None at present: threaded calls, pushing an instance, constructing without inner= and the
#: Settled event brought the last four within reach.
UNREACHABLE: dict[str, str] = {}
SEARCHED = [name for name in MUTANTS if name not in UNREACHABLE]

REFERENCE = NamespaceAdapter(reference_impl)


@cache
def mutant_adapter(name: str) -> NamespaceAdapter:
    return NamespaceAdapter(importlib.import_module(f"tests.mutants.{name}"))


def _differences(scenario: Scenario, expected: Any, adapter: NamespaceAdapter) -> list[str]:
    try:
        observed, naming = execute(scenario, adapter)
        return differences(expected, observed, naming)
    except Exception as exc:  # the runner itself broke on this implementation: also a difference
        return [f"the runner raised {type(exc).__name__}: {exc}"]
    finally:
        adapter.reset()


class _Search:
    """The condition of the search, counting what it looked at until the first difference."""

    def __init__(self, adapter: NamespaceAdapter) -> None:
        self.adapter = adapter
        self.examples = 0  # scenarios generated
        self.executed = 0  # of them, predicted by the model and run on the mutant
        self.disagreements = 0  # the reference differed as well (not the mutant's doing)
        self.hit: tuple[int, int, list[str]] | None = None

    def __call__(self, scenario: Scenario) -> bool:
        if self.hit is not None:  # find() replays the example it found
            return True
        self.examples += 1
        try:
            expected = predict(scenario)
        except (Unbounded, Unspecified):
            return False
        self.executed += 1
        diff = _differences(scenario, expected, self.adapter)
        if not diff:
            return False
        if _differences(scenario, expected, REFERENCE):
            self.disagreements += 1
            return False
        self.hit = (self.examples, self.executed, diff)
        return True


@pytest.mark.parametrize("name", SEARCHED)
def test_generated_scenarios_tell_the_mutant_apart(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    adapter = mutant_adapter(name)
    search = _Search(adapter)
    start = time.perf_counter()
    try:
        scenario = find(scenarios("2022"), search, settings=SEARCH)
    except NoSuchExample:
        record_property(SUMMARY_KEY, f"{name:34} {MUTANTS[name]:16} not found in {MAX_EXAMPLES}")
        pytest.fail(f"{name} ({MUTANTS[name]}): no difference from the model in {search.examples} "
                    f"generated scenarios ({search.executed} run)")
    elapsed = time.perf_counter() - start
    assert search.hit is not None
    examples, executed, diff = search.hit
    # Scenarios on which reference_impl disagrees with the model as well were passed over
    # (test_agreement.py is where such a disagreement fails); they are only counted here.
    skipped = f"  ({search.disagreements} passed over)" if search.disagreements else ""
    record_property(SUMMARY_KEY, f"{name:34} {MUTANTS[name]:16} example {examples:5} "
                                 f"(run {executed:5})  {elapsed:6.2f}s{skipped}")
    record_property("examples_needed", examples)
    print(f"{name}: first difference at generated scenario {examples} ({executed} run), "
          f"{elapsed:.2f}s{skipped}")
    print(json.dumps(scenario_to_dict(scenario)))
    print("\n".join(diff))


def test_the_copy_machinery_alone_changes_nothing() -> None:
    """A copy built with no mutation agrees with the model wherever reference_impl does."""
    from tests.mutants._build import build

    copy = NamespaceAdapter(build("tests.mutants._unmutated"))
    search = _Search(copy)
    with pytest.raises(NoSuchExample):
        find(scenarios("2022"), search, settings=settings(SEARCH, max_examples=300))
    assert search.executed > 100


# -- targeted checks -------------------------------------------------------------------------


def _mode_class(adapter: NamespaceAdapter, log: list[str] | None = None) -> type:
    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        if log is not None:
            log.append(func.__name__)
        return func(*args, **(kwargs or {}))

    meta = type(adapter.TorchFunctionMode)
    return meta("Logger", (adapter.TorchFunctionMode,), {"__torch_function__": handler})


def push_instance(adapter: NamespaceAdapter) -> str | None:
    """TFM_PUSH_005: pushing a mode instance raises the ValueError."""
    instance = adapter.make_mode(_mode_class(adapter))
    try:
        with adapter.push(instance):
            pass
    except ValueError as exc:
        expected = (f"Expected a TorchFunctionMode constructor function, but got an instance of "
                    f"TorchFunctionMode {instance}.  Consider using enable_torch_function_mode "
                    f"instead.")
        return None if str(exc) == expected else f"ValueError with another text: {exc}"
    except Exception as exc:
        return f"raised {type(exc).__name__}: {exc}"
    finally:
        adapter.reset()
    return "pushing an instance did not raise"


def missing_inner(adapter: NamespaceAdapter) -> str | None:
    """TFM_PUSH_007: constructing a mode without inner= raises TypeError."""
    try:
        _mode_class(adapter)()
    except TypeError as exc:
        return None if str(exc).startswith("missing inner keyword argument") else str(exc)
    return "constructing a mode without inner= did not raise"


def other_thread(adapter: NamespaceAdapter) -> str | None:
    """TFM_THREAD_001/002: a thread starts with no mode; its calls never reach another's mode."""
    log: list[str] = []
    seen: list[object] = []

    def in_thread() -> None:
        seen.append(adapter.current_mode())
        adapter.func("neg")(adapter.tensor([1.0]))

    mode = adapter.make_mode(_mode_class(adapter, log))
    try:
        with adapter.enable(mode):
            thread = threading.Thread(target=in_thread)
            thread.start()
            thread.join()
    finally:
        adapter.reset()
    problems = []
    if seen != [None]:
        problems.append(f"a new thread starts with mode {seen}")
    if log:
        problems.append(f"a call in the new thread reached the main thread's mode ({log})")
    return "; ".join(problems) or None


def mode_after_raise(adapter: NamespaceAdapter) -> str | None:
    """TFM_REENTRY_003: after the mode's handler raises, the mode is current again."""

    class Boom(Exception):
        pass

    def handler(self: Any, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        raise Boom

    meta = type(adapter.TorchFunctionMode)
    mode = adapter.make_mode(meta("Raiser", (adapter.TorchFunctionMode,),
                                  {"__torch_function__": handler}))
    try:
        with adapter.enable(mode):
            try:
                adapter.func("neg")(adapter.tensor([1.0]))
            except Boom:
                pass
            current = adapter.current_mode()
    finally:
        adapter.reset()
    return None if current is mode else f"after the handler raised, the current mode is {current!r}"


TARGETED_CHECKS: dict[str, Callable[[NamespaceAdapter], str | None]] = {
    "push_instance_allowed": push_instance,
    "missing_inner_unchecked": missing_inner,
    "global_slot": other_thread,
    "raise_leaves_mode_cleared": mode_after_raise,
}


@pytest.mark.parametrize("name", sorted(TARGETED_CHECKS))
def test_targeted_check_tells_the_mutant_apart(
    name: str, record_property: Callable[[str, object], None]
) -> None:
    check = TARGETED_CHECKS[name]
    assert check(REFERENCE) is None, f"reference_impl fails the check for {name}"
    problem = check(mutant_adapter(name))
    assert problem is not None, f"{name}: the targeted check does not see the bug"
    record_property(SUMMARY_KEY, f"{name:34} {MUTANTS[name]:16} targeted check: {problem}")


def test_every_mutant_is_searched_or_checked() -> None:
    assert set(UNREACHABLE) <= set(TARGETED_CHECKS) <= set(MUTANTS)
    assert len(MUTANTS) >= 20
