"""One checked scenario: predict, run on the implementation in isolation, compare, attribute."""

from __future__ import annotations

from dataclasses import dataclass

from spec.model import Unbounded, Unspecified, predict
from spec.model.scenario import Scenario
from spec.model.trace import Message, Raised, Trace

from .adapter import Adapter
from .attribution import attribute
from .compare import Naming, differences
from .isolation import ScenarioTimeout, time_limit
from .runner import execute
from .sandbox import ImplementationFault, ImplementationHung, RemoteError, SandboxedImplementation

#: Seconds one scenario may take on the implementation before it counts as hung.
SCENARIO_SECONDS = 5.0

#: What the suite can drive: an adapter in this process, or one in a sandbox process.
Target = Adapter | SandboxedImplementation


@dataclass(frozen=True)
class Checked:
    """A scenario's prediction, observation, and where they part (``rules`` empty: they agree).

    ``fault`` is ``"crashed"`` or ``"hung"`` when the implementation did not finish the
    scenario; ``observed`` is then empty and ``rules`` are every rule the scenario exercises.
    """

    scenario: Scenario
    expected: Trace
    observed: Trace
    naming: Naming
    rules: tuple[str, ...]
    differences: tuple[str, ...]
    leaked: tuple[str, ...]
    fault: str | None = None


def observe(scenario: Scenario, target: Target,
            seconds: float = SCENARIO_SECONDS) -> tuple[Trace, Naming, tuple[str, ...]]:
    """Run ``scenario``: the observed trace, how its objects print, and what it left behind.

    Raises :class:`~conformance.sandbox.ImplementationFault` when the implementation crashes
    or runs past ``seconds``.
    """
    if isinstance(target, SandboxedImplementation):
        try:
            trace, naming, leaked = target.call("conformance._child:run_scenario", scenario,
                                                seconds=seconds, during="running a scenario")
        except RemoteError as exc:  # the runner itself failed: report it as the suite's problem
            raise RuntimeError(f"{exc.type_name}: {exc.message}") from None
        return trace, naming, tuple(leaked)
    try:
        with time_limit(seconds):
            trace, naming = execute(scenario, target)
    except ScenarioTimeout as exc:
        raise ImplementationHung(f"the implementation hung: {exc}") from None
    finally:
        leaked = tuple(target.reset())
    return trace, naming, leaked


def check(scenario: Scenario, adapter: Target, seconds: float = SCENARIO_SECONDS) -> Checked | None:
    """``None`` when no rule specifies what the scenario does (the model bounds it)."""
    try:
        expected = predict(scenario, getattr(adapter, "stack_version", None))
    except (Unbounded, Unspecified):
        return None
    try:
        observed, naming, leaked = observe(scenario, adapter, seconds)
    except ImplementationFault as fault:
        nothing = Trace((), Raised(type(fault).__name__, Message((str(fault),))), None)
        return Checked(scenario, expected, nothing, {}, tuple(sorted(expected.rules_exercised())),
                       (str(fault),), (), fault.kind)
    diff = tuple(differences(expected, observed, naming))
    rules = attribute(scenario, expected, observed, naming) if diff else ()
    if leaked:
        diff += tuple(f"state left behind after the scenario: {x}" for x in leaked)
        rules = rules or expected.after_rules
    return Checked(scenario, expected, observed, naming, rules, diff, leaked)
