"""A scenario's user code run inside ``torch.compile(..., backend="eager")``.

The run is :class:`conformance.runner.Run`'s own: the same classes, handlers and recording,
with the scenario's user code (its set-up blocks and the call, with everything the handlers
do) handed to ``torch.compile`` instead of being called as it is. Dynamo traces it first with
``fullgraph=True``; where that fails (a graph break), a fresh run traces it with
``fullgraph=False`` and counts the graph breaks. Dynamo's caches and counters are reset before
each attempt, so one scenario's compilations never decide another's.

What the recording needs is what Dynamo can trace: events appended to a list the run owns, the
handlers finding their behaviour through the run (never a spec object in their closure), and,
for a function the scenario defines, its kernel computed with tensor operations under
``DisableTorchFunction`` rather than by reading the tensors' values back as Python floats.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, replace
from typing import Any

from spec.model.scenario import Scenario
from spec.model.trace import Message, Raised, Trace

from .runner import Run

#: The backend: Dynamo's tracing with no code generation after it, so that what differs from
#: eager is Dynamo's doing.
BACKEND = "eager"


class CompileUnavailable(Exception):
    """The implementation has no ``torch.compile``; the message is one line."""


class _NotTraceable(BaseException):
    """``fullgraph=True`` could not trace the scenario (raised past Run.execute's handler)."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(str(error))
        self.error = error


@dataclass(frozen=True)
class Compilation:
    """How much of one scenario Dynamo traced.

    ``fullgraph``: traced whole with ``fullgraph=True`` (no graph break); otherwise
    ``breaks`` counts the graph breaks of the ``fullgraph=False`` run, ``frames`` the frames
    Dynamo converted there (0: it compiled nothing, the scenario ran as eager code), and
    ``reason`` says why ``fullgraph=True`` failed (its first line).
    """

    fullgraph: bool
    breaks: int = 0
    frames: int = 0
    reason: str = ""
    #: the compiled call raised one of Dynamo's own errors (Dynamo failed where eager code
    #: runs: that is a divergence, not "not compiled")
    crashed: bool = False

    @property
    def compiled(self) -> bool:
        """Whether Dynamo traced any of the scenario (a scenario that compiled nothing is
        not a pass of anything)."""
        return self.fullgraph or self.frames > 0 or self.crashed

    def describe(self) -> str:
        """One line: how much was traced."""
        if self.fullgraph:
            return "traced whole (fullgraph=True)"
        if self.crashed:
            return f"Dynamo raised its own error ({self.reason})"
        if not self.compiled:
            return f"compiled nothing ({self.reason})"
        return f"{self.breaks} graph break(s), {self.frames} frame(s) compiled ({self.reason})"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _torch(adapter: Any) -> Any:
    ns = getattr(adapter, "ns", None)
    if ns is None or not callable(getattr(ns, "compile", None)):
        raise CompileUnavailable(f"{getattr(adapter, 'name', adapter)!s} has no torch.compile: "
                                 "--compile certifies torch 2.x under torch.compile")
    return ns


def check_available(adapter: Any) -> None:
    """Raise :class:`CompileUnavailable` unless ``adapter`` is a torch with ``torch.compile``."""
    _torch(adapter)
    if getattr(adapter, "generation", None) != "stack":
        raise CompileUnavailable(f"{adapter.name} is of generation {adapter.generation}: "
                                 "torch.compile came with the stack generation (torch 2.x)")


class CompiledRun(Run):
    """A run whose recording Dynamo can trace (see the module's docstring)."""

    def _pyfunc_kernel(self, values: list[Any]) -> Any:
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        tensors: list[Any] = [x for x in flat if isinstance(x, self.ad.Tensor)]
        if not tensors:
            return None
        with self.ad.disable():
            # The model's kernel: the tensors added up, as long as the shortest of them.
            n = min(t.numel() for t in tensors)
            total = tensors[0].reshape(-1)[:n].clone()
            for t in tensors[1:]:
                total = total + t.reshape(-1)[:n]
        return total


def _counters(torch: Any) -> Any:
    return torch._dynamo.utils.counters


def _fresh(torch: Any, adapter: Any) -> None:
    adapter.reset()
    torch._dynamo.reset()
    _counters(torch).clear()


def _wrap(torch: Any, fullgraph: bool) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    dynamo_error = torch._dynamo.exc.TorchDynamoException

    def wrap(body: Callable[..., Any]) -> Callable[..., Any]:
        compiled = torch.compile(body, backend=BACKEND, fullgraph=fullgraph)

        def run(*args: Any) -> Any:
            try:
                return compiled(*args)
            except dynamo_error as exc:
                if fullgraph:
                    raise _NotTraceable(exc) from exc
                raise

        return run

    return wrap


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def run_compiled(scenario: Scenario, adapter: Any,
                 events: Callable[[], list[Any]] | None = None
                 ) -> tuple[Trace, dict[tuple[str, str], str], Compilation]:
    """Run ``scenario``'s user code compiled: the observed trace, how its objects print, and
    how much Dynamo traced. ``events`` makes each run's event list (default: a list)."""
    torch = _torch(adapter)
    _fresh(torch, adapter)
    run = CompiledRun(scenario, adapter)
    if events is not None:
        run.events = events()
    try:
        trace = run.execute(wrap=_wrap(torch, fullgraph=True))
        return trace, run.naming(), Compilation(True)
    except _NotTraceable as failed:
        reason = _first_line(failed.error)
    _fresh(torch, adapter)
    run = CompiledRun(scenario, adapter)
    if events is not None:
        run.events = events()
    trace = run.execute(wrap=_wrap(torch, fullgraph=False))
    counters = _counters(torch)
    breaks = sum(counters["graph_break"].values())
    frames = counters["frames"]["ok"]
    torch._dynamo.reset()
    outcome = trace.outcome
    crashed = isinstance(outcome, Raised) and outcome.exc_type in _dynamo_errors(torch)
    if crashed and isinstance(outcome, Raised):  # its first line: the rest is Dynamo's
        # diagnostic (with this machine's file paths)
        text = outcome.message.render().strip().splitlines()
        trace = replace(trace, outcome=replace(outcome, message=Message((text[0] if text else "",))))
    return trace, run.naming(), Compilation(False, breaks, frames, reason, crashed)


def _dynamo_errors(torch: Any) -> frozenset[str]:
    """The names of Dynamo's own exception classes."""
    exc = torch._dynamo.exc
    return frozenset(name for name, obj in vars(exc).items()
                     if isinstance(obj, type) and issubclass(obj, exc.TorchDynamoException))


def tally(compilations: list[Compilation], seconds: float = 0.0) -> dict[str, int]:
    """Counts of a test's compiled scenarios, as the certificate's ``run.compile`` adds them up:
    how many were traced whole, with graph breaks, not at all, or ended in Dynamo's own error;
    the graph breaks; and the milliseconds the test spent on them."""
    return {
        "scenarios": len(compilations),
        "fullgraph": sum(c.fullgraph for c in compilations),
        "graph_broken": sum(not c.fullgraph and c.compiled and not c.crashed for c in compilations),
        "not_compiled": sum(not c.compiled for c in compilations),
        "dynamo_errors": sum(c.crashed for c in compilations),
        "graph_breaks": sum(c.breaks for c in compilations),
        "milliseconds": round(seconds * 1000),
    }


def summarise(tallies: list[dict[str, int]]) -> dict[str, Any]:
    """The certificate's ``run.compile``: the tests' tallies added up, the fraction of the
    scenarios traced without a graph break, and the scenarios checked per minute."""
    keys = ("scenarios", "fullgraph", "graph_broken", "not_compiled", "dynamo_errors",
            "graph_breaks", "milliseconds")
    total = {k: sum(int(t.get(k, 0)) for t in tallies) for k in keys}
    minutes = total.pop("milliseconds") / 60000
    scenarios = total["scenarios"]
    return {"backend": BACKEND, **total,
            "fullgraph_fraction": round(total["fullgraph"] / scenarios, 4) if scenarios else 0.0,
            "scenarios_per_minute": round(scenarios / minutes, 1) if minutes else 0.0}
