"""A scenario's user code run inside ``torch.compile(..., backend="eager")``.

The run is :class:`conformance.target.runner.Run`'s own: the same classes, handlers and recording,
with the scenario's user code (its set-up blocks and the call, with everything the handlers
do) handed to ``torch.compile`` instead of being called as it is. Dynamo traces it first with
``fullgraph=True``; where that fails (a graph break), a fresh run traces it with
``fullgraph=False`` and counts the graph breaks. Dynamo's caches and counters are reset before
each attempt, so one scenario's compilations never decide another's.

What counts as compiled is measured from what ran, not from Dynamo's ``frames["ok"]`` counter
(which also counts frames Dynamo converted, found no tensor operation in, and then ran as plain
eager code). The backend is Dynamo's ``eager`` one (the graph's own ``forward``) with a count
around it: of the graphs Dynamo handed it, and of those graphs' runs in the thread that makes
the scenario's call. A scenario traced whole is compiled; otherwise it is compiled only when a
graph ran in the call's thread. A call made in a new thread therefore never counts as compiled:
Dynamo's frame hook is per thread, and code run by a thread started from compiled code runs
eagerly.

What the recording needs is what Dynamo can trace: events appended to a list the run owns, the
handlers finding their behaviour through the run (never a spec object in their closure), and,
for a function the scenario defines, its kernel computed with tensor operations under
``DisableTorchFunction`` rather than by reading the tensors' values back as Python floats.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.model.scenario import Scenario
from spec.model.trace import Message, Raised, Trace

from .runner import CALL_THREAD, Run

#: The backend: Dynamo's tracing with no code generation after it, so that what differs from
#: eager is Dynamo's doing (:class:`CountingBackend` is Dynamo's ``eager`` with a count).
BACKEND = "eager"


@dataclass
class CountingBackend:
    """A ``torch.compile`` backend that runs each graph as Dynamo's ``eager`` backend does
    (its ``forward``) and records, for each graph it was handed, the frame Dynamo made it from
    and, per thread name, which graphs ran there."""

    #: the frame of each graph, in the order Dynamo handed them over (see :func:`frame_of`)
    frames: list[str] = field(default_factory=list)
    #: thread name -> the indices of the graphs that ran in it, in order
    runs: dict[str, list[int]] = field(default_factory=dict)
    #: how many graphs are running right now (a handler called meanwhile is called by one)
    running: int = 0

    @property
    def graphs(self) -> int:
        return len(self.frames)

    def __call__(self, graph: Any, example_inputs: Any) -> Callable[..., Any]:
        index = len(self.frames)
        self.frames.append(frame_of(graph))
        forward = graph.forward
        runs = self.runs

        def run(*args: Any) -> Any:
            runs.setdefault(threading.current_thread().name, []).append(index)
            self.running += 1
            try:
                return forward(*args)
            finally:
                self.running -= 1

        return run

    def ran_in(self, thread: str) -> int:
        """How many times a graph ran in the thread named ``thread``."""
        return len(self.runs.get(thread, ()))

    def frames_ran_in(self, thread: str) -> tuple[str, ...]:
        """The frames whose graphs ran in the thread named ``thread``, each once, in order."""
        return tuple(dict.fromkeys(self.frames[i] for i in self.runs.get(thread, ())))


_RESUMED = re.compile(r"torch_dynamo_resume_in_(.+)_at_[0-9]+")


def frame_of(graph: Any) -> str:
    """The function whose frame Dynamo made ``graph`` from: the outermost entry of the stack
    Dynamo says it compiled the graph at, a frame resumed after a graph break named for the
    function it resumes ("_enter (resumed)"); "?" where the graph does not say."""
    reason = getattr(graph, "compile_subgraph_reason", None)
    stack = getattr(reason, "user_stack", None) or ()
    name = getattr(stack[0], "name", None) if stack else None
    if not isinstance(name, str) or not name:
        return "?"
    resumed = _RESUMED.fullmatch(name)
    return f"{resumed.group(1)} (resumed)" if resumed else name


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
    Dynamo reports converted there (its ``frames["ok"]``, kept as reported: it also counts
    frames that then ran as eager code, so it decides nothing), and ``reason`` says why
    ``fullgraph=True`` failed (its first line). ``graphs`` counts the graphs Dynamo produced
    in the run that decided the label, ``ran`` their runs in the call's thread, and
    ``ran_frames`` names the frames those graphs came from (see :func:`frame_of`).
    ``fell_back`` counts the frames of a graph-broken run that Dynamo converted and then ran as
    plain eager code, having made no graph of them (its ``frames["ok"]`` less the graphs).
    ``boundary`` is where the user code met the compiled function (``spec.boundary``): the
    set-up's first steps entered around it, a graph break forced inside it, the call's tensors
    made inside it.
    """

    fullgraph: bool
    breaks: int = 0
    frames: int = 0
    reason: str = ""
    #: the compiled call raised one of Dynamo's own errors (Dynamo failed where eager code
    #: runs: that is a divergence, not "not compiled")
    crashed: bool = False
    graphs: int = 0
    ran: int = 0
    boundary: Boundary = EVERYTHING_INSIDE
    ran_frames: tuple[str, ...] = ()
    fell_back: int = 0

    @property
    def compiled(self) -> bool:
        """Whether the scenario's call ran compiled: traced whole, or a graph Dynamo produced
        ran in the call's thread (a scenario that compiled nothing is not a pass of anything)."""
        return self.fullgraph or self.ran > 0 or self.crashed

    def describe(self) -> str:
        """One line: how much was traced, and what of it ran."""
        if self.fullgraph:
            return f"traced whole (fullgraph=True), {self.graphs} graph(s){self._frames()}"
        if self.crashed:
            return f"Dynamo raised its own error ({self.reason})"
        if not self.compiled:
            return (f"compiled nothing: {self.graphs} graph(s), none ran in the call's thread, "
                    f"{self.fell_back} frame(s) fell back to eager, "
                    f"{self.breaks} graph break(s) ({self.reason})")
        return (f"{self.breaks} graph break(s), {self.graphs} graph(s), {self.ran} run(s) in the "
                f"call's thread{self._frames()}, {self.fell_back} frame(s) fell back to eager "
                f"({self.reason})")

    def _frames(self) -> str:
        return f" from {', '.join(self.ran_frames)}" if self.ran_frames else ""

    @property
    def outside(self) -> int:
        """How many of the set-up's first steps were entered around the compiled function."""
        return self.boundary.outside

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

    #: A callable an operator hands a handler has, under Dynamo, no id the run knows.
    by_identity = True
    #: The backend the run's compiled function uses (it knows when one of its graphs runs).
    backend: CountingBackend | None = None

    def made_in_graph(self) -> str | None:
        """What made a call handed while one of the run's graphs runs: the graph, that is the
        program's code as Dynamo traced it (the suite's own kernel among it, whose marker,
        an attribute set in traced code, Dynamo writes back only once the graph has run)."""
        if self.backend is not None and self.backend.running:
            return "a call in a compiled graph as it ran: the program's code, as Dynamo traced it"
        return None

    def graph_break(self) -> None:
        """The graph break the boundary forces (``torch._dynamo.graph_break``)."""
        _torch(self.ad)._dynamo.graph_break()

    def _pyfunc_kernel(self, values: list[Any]) -> Any:
        flat = [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
        tensors: list[Any] = [x for x in flat if isinstance(x, self.ad.Tensor)]
        if not tensors:
            return None
        making, self.making = self.making, "the suite's kernel of a Python function of the scenario"
        try:
            with self.ad.disable():
                # The model's kernel: the tensors added up, as long as the shortest of them.
                n = min(t.numel() for t in tensors)
                total = tensors[0].reshape(-1)[:n].clone()
                for t in tensors[1:]:
                    total = total + t.reshape(-1)[:n]
        finally:
            self.making = making
        return total


def _counters(torch: Any) -> Any:
    return torch._dynamo.utils.counters


def _fresh(torch: Any, adapter: Any) -> None:
    adapter.reset()
    torch._dynamo.reset()
    _counters(torch).clear()


def _wrap(torch: Any, fullgraph: bool, backend: CountingBackend
          ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    dynamo_error = torch._dynamo.exc.TorchDynamoException

    def wrap(body: Callable[..., Any]) -> Callable[..., Any]:
        compiled = torch.compile(body, backend=backend, fullgraph=fullgraph)

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
                 events: Callable[[], list[Any]] | None = None,
                 boundary: Boundary = EVERYTHING_INSIDE
                 ) -> tuple[Trace, dict[tuple[str, str], str], Compilation]:
    """Run ``scenario``'s user code compiled: the observed trace, how its objects print, and
    how much Dynamo traced. ``events`` makes each run's event list (default: a list);
    ``boundary`` says where the user code meets the compiled function (``spec.boundary``:
    the set-up's first steps entered around it, active while it runs, a graph break forced
    inside it, the call's tensors made inside it)."""
    torch = _torch(adapter)
    call_thread = (CALL_THREAD if scenario.call is not None and scenario.call.thread
                   else threading.current_thread().name)
    _fresh(torch, adapter)
    run = CompiledRun(scenario, adapter)
    if events is not None:
        run.events = events()
    backend = run.backend = CountingBackend()
    try:
        trace = run.execute(wrap=_wrap(torch, True, backend), boundary=boundary)
        return trace, run.naming(), Compilation(True, graphs=backend.graphs,
                                                 ran=backend.ran_in(call_thread),
                                                 boundary=run.boundary,
                                                 ran_frames=backend.frames_ran_in(call_thread))
    except _NotTraceable as failed:
        reason = _first_line(failed.error)
    _fresh(torch, adapter)
    run = CompiledRun(scenario, adapter)
    if events is not None:
        run.events = events()
    backend = run.backend = CountingBackend()
    trace = run.execute(wrap=_wrap(torch, False, backend), boundary=boundary)
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
    return trace, run.naming(), Compilation(False, breaks, frames, reason, crashed,
                                            backend.graphs, backend.ran_in(call_thread),
                                            run.boundary, backend.frames_ran_in(call_thread),
                                            max(0, frames - backend.graphs))


def _dynamo_errors(torch: Any) -> frozenset[str]:
    """The names of Dynamo's own exception classes."""
    exc = torch._dynamo.exc
    return frozenset(name for name, obj in vars(exc).items()
                     if isinstance(obj, type) and issubclass(obj, exc.TorchDynamoException))


def tally(compilations: list[Compilation], seconds: float = 0.0) -> dict[str, int]:
    """Counts of a test's compiled scenarios, as the certificate's ``run.compile`` adds them up:
    how many were traced whole, with graph breaks, not at all, or ended in Dynamo's own error;
    the graph breaks; the frames whose graphs ran in the call's thread and the frames that fell
    back to eager; and the milliseconds the test spent on them."""
    return {
        "scenarios": len(compilations),
        "fullgraph": sum(c.fullgraph for c in compilations),
        "graph_broken": sum(not c.fullgraph and c.compiled and not c.crashed for c in compilations),
        "not_compiled": sum(not c.compiled for c in compilations),
        "dynamo_errors": sum(c.crashed for c in compilations),
        "graph_breaks": sum(c.breaks for c in compilations),
        "frames_compiled": sum(len(c.ran_frames) for c in compilations),
        "frames_fell_back": sum(c.fell_back for c in compilations),
        "milliseconds": round(seconds * 1000),
    }


def summarise(tallies: list[dict[str, int]]) -> dict[str, Any]:
    """The certificate's ``run.compile``: the tests' tallies added up, the fraction of the
    scenarios traced without a graph break, and the scenarios checked per minute."""
    keys = ("scenarios", "fullgraph", "graph_broken", "not_compiled", "dynamo_errors",
            "graph_breaks", "frames_compiled", "frames_fell_back", "milliseconds")
    total = {k: sum(int(t.get(k, 0)) for t in tallies) for k in keys}
    minutes = total.pop("milliseconds") / 60000
    scenarios = total["scenarios"]
    return {"backend": BACKEND, **total,
            "fullgraph_fraction": round(total["fullgraph"] / scenarios, 4) if scenarios else 0.0,
            "scenarios_per_minute": round(scenarios / minutes, 1) if minutes else 0.0}
