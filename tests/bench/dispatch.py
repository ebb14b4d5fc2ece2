"""Per-call time of reference_impl and torch 2.13 side by side, and against nesting depth.

Both implementations get the same work: tiny tensors of two elements, a pass-through mode
(``return func(*args, **(kwargs or {}))``) and a trivial subclass (no handler of its own, so
``Tensor.__torch_function__`` runs). reference_impl's modes are pushed with
``push_torch_function_mode`` (the 2022 design); torch's are entered with ``with Mode():``.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from tests.bench.rst import ratio, section, table, us
from tests.bench.timing import Line, Timing, fit_line, measure

#: (key, what is measured, statement, mode depth); the statement runs in the backend namespace.
CASES: tuple[tuple[str, str, str, int], ...] = (
    ("plain", "native ``add(x, y)``, no mode", "add(x, y)", 0),
    ("mode1", "native ``add(x, y)``, one pass-through mode", "add(x, y)", 1),
    ("mode5", "native ``add(x, y)``, five nested modes", "add(x, y)", 5),
    ("sub", "native ``add(s, y)``, ``s`` a trivial subclass", "add(s, y)", 0),
    ("sub_mode1", "native ``add(s, y)``, subclass under one mode", "add(s, y)", 1),
    ("split0", "Python-path ``split(x, 1)``, no mode", "split(x, 1)", 0),
    ("split1", "Python-path ``split(x, 1)``, one mode", "split(x, 1)", 1),
    ("split5", "Python-path ``split(x, 1)``, five modes", "split(x, 1)", 5),
)
FULL_DEPTHS = tuple(range(1, 33))
#: While torch's own fit over depth is worse than this, the depth sweep goes on (a busy
#: machine bends the line), for at most MORE_DEPTH_ROUNDS extra rounds.
CONTROL_R_SQUARED = 0.995
MORE_DEPTH_ROUNDS = 10
QUICK_DEPTHS = (1, 2, 4, 8, 12, 16, 24, 32)


class Backend:
    """One implementation: its namespace for the statements and how it installs modes."""

    name: str
    namespace: dict[str, Any]

    def modes(self, depth: int) -> contextlib.AbstractContextManager[Any]:
        raise NotImplementedError


class Reference(Backend):
    """reference_impl (the 2022 design): ``push_torch_function_mode(PassThrough)``."""

    name = "reference_impl"

    def __init__(self) -> None:
        import reference_impl as ri
        from reference_impl.overrides import TorchFunctionMode, push_torch_function_mode

        class PassThrough(TorchFunctionMode):
            def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                                   kwargs: Any = None) -> Any:
                return func(*args, **(kwargs or {}))

        class Sub(ri.Tensor):
            pass

        self._push, self._mode = push_torch_function_mode, PassThrough
        x, y = ri.tensor([1.0, 2.0]), ri.tensor([3.0, 4.0])
        self.namespace = {"add": ri.add, "split": ri.split, "x": x, "y": y,
                          "s": x.as_subclass(Sub)}

    @contextlib.contextmanager
    def modes(self, depth: int) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for _ in range(depth):
                stack.enter_context(self._push(self._mode))
            yield


class Torch(Backend):
    """torch (the mode stack): ``with PassThrough():``."""

    name = "torch"

    def __init__(self) -> None:
        import torch
        from torch.overrides import TorchFunctionMode

        class PassThrough(TorchFunctionMode):
            def __torch_function__(self, func: Callable[..., Any], types: Any, args: Any = (),
                                   kwargs: Any = None) -> Any:
                return func(*args, **(kwargs or {}))

        class Sub(torch.Tensor):
            pass

        self.version = str(torch.__version__)
        self._mode = PassThrough
        x, y = torch.tensor([1.0, 2.0]), torch.tensor([3.0, 4.0])
        self.namespace = {"add": torch.add, "split": torch.split, "x": x, "y": y,
                          "s": x.as_subclass(Sub)}
        self.name = f"torch {self.version.split('+')[0]}"

    @contextlib.contextmanager
    def modes(self, depth: int) -> Iterator[None]:
        with contextlib.ExitStack() as stack:
            for _ in range(depth):
                stack.enter_context(self._mode())
            yield


def time_pair(ref: Backend, torch: Backend, stmt: str, depth: int, repeat: int,
              target: float) -> tuple[Timing, Timing]:
    """Time ``stmt`` on both, each under ``depth`` of its own modes, repeats interleaved.

    The two implementations' modes are independent, so both sets are installed at once.
    """
    with ref.modes(depth), torch.modes(depth):
        a, b = measure((stmt, ref.namespace), (stmt, torch.namespace), repeat=repeat,
                       target=target)
    return a, b


@dataclass
class DispatchResult:
    ref: dict[str, Timing] = field(default_factory=dict)
    torch: dict[str, Timing] = field(default_factory=dict)
    depths: tuple[int, ...] = ()
    ref_depth: dict[int, Timing] = field(default_factory=dict)
    torch_depth: dict[int, Timing] = field(default_factory=dict)
    ref_line: Line | None = None
    torch_line: Line | None = None
    torch_name: str = "torch"
    depth_rounds: int = 0


def warm_up(ref: Backend, torch: Backend, seconds: float = 0.3) -> None:
    """Run every case on both for a while first: the first calls of a library are slow."""
    for _, _, stmt, depth in CASES:
        time_pair(ref, torch, stmt, depth, 1, seconds / len(CASES) / 2)


def _better(a: Timing | None, b: Timing) -> Timing:
    return b if a is None or b.best < a.best else a


def run_cases(ref: Backend, torch: Backend, quick: bool,
              result: DispatchResult | None = None) -> DispatchResult:
    """Every case on both, side by side, each case keeping its best over the calls (a later
    call adds a round to ``result``)."""
    repeat, target, rounds = (11, 0.004, 1) if quick else (41, 0.005, 1)
    if result is None:
        warm_up(ref, torch, 0.3 if quick else 2.0)
        result = DispatchResult(torch_name=torch.name)
    for _ in range(rounds):
        for key, _, stmt, depth in CASES:  # the two side by side, case after case
            a, b = time_pair(ref, torch, stmt, depth, repeat, target)
            result.ref[key] = _better(result.ref.get(key), a)
            result.torch[key] = _better(result.torch.get(key), b)
    return result


def run_depths(result: DispatchResult, ref: Backend, torch: Backend, quick: bool) -> None:
    """``add(x, y)`` at every depth on both; the depths are swept ``rounds`` times, each
    keeping its best, so that a slow spell of a shared machine hits one round of a depth
    rather than a run of neighbouring depths."""
    repeat, target, rounds = (5, 0.004, 2) if quick else (5, 0.005, 5)
    result.depths = QUICK_DEPTHS if quick else FULL_DEPTHS
    xs = [float(d) for d in result.depths]
    for done in range(rounds + MORE_DEPTH_ROUNDS):
        for depth in result.depths:
            a, b = time_pair(ref, torch, "add(x, y)", depth, repeat, target)
            result.ref_depth[depth] = _better(result.ref_depth.get(depth), a)
            result.torch_depth[depth] = _better(result.torch_depth.get(depth), b)
        # torch is the control: its time grows on a straight line, so while its fit is poor
        # the machine was busy during some depths, and another round is swept.
        control = fit_line(xs, [result.torch_depth[d].best for d in result.depths])
        result.depth_rounds = done + 1
        if done + 1 >= rounds and control.r_squared >= CONTROL_R_SQUARED:
            break
    result.ref_line = fit_line(xs, [result.ref_depth[d].best for d in result.depths])
    result.torch_line = fit_line(xs, [result.torch_depth[d].best for d in result.depths])


# -- targets and tables ------------------------------------------------------------------------


@dataclass(frozen=True)
class Target:
    what: str
    ref: float
    torch: float
    limit: float

    @property
    def ratio(self) -> float:
        return self.ref / self.torch

    @property
    def met(self) -> bool:
        return self.ratio <= self.limit


def targets(result: DispatchResult) -> list[Target]:
    r, t = result.ref, result.torch
    found = [
        Target("no-mode native call (``add``), whole call", r["plain"].best, t["plain"].best, 3.0),
        Target("cost one mode adds (one mode minus no mode)",
               r["mode1"].best - r["plain"].best, t["mode1"].best - t["plain"].best, 2.0),
        Target("cost of each further mode, from one to five modes ((five - one) / 4)",
               (r["mode5"].best - r["mode1"].best) / 4, (t["mode5"].best - t["mode1"].best) / 4,
               2.0),
    ]
    if result.ref_line is not None and result.torch_line is not None:
        found.append(Target("cost of each further mode, slope of the fit over depth 1 to 32",
                            result.ref_line.slope, result.torch_line.slope, 2.0))
    return found


def largest_step(depths: tuple[int, ...], times: dict[int, Timing]) -> int | None:
    """The depth after which the time jumps most, if that jump is over 4 typical increments."""
    steps = sorted((times[b].best - times[a].best, a) for a, b in itertools.pairwise(depths))
    if len(steps) < 4:
        return None
    typical = steps[len(steps) // 2][0]
    jump, at = steps[-1]
    return at if typical > 0 and jump > 4 * typical else None


def _fits(result: DispatchResult, tn: str) -> list[list[str]]:
    def row(name: str, span: str, xs: list[int], times: dict[int, Timing]) -> list[str]:
        line = fit_line([float(x) for x in xs], [times[x].best for x in xs])
        return [name, span, f"{line.slope * 1e6:.3f}", f"{line.intercept * 1e6:.3f}",
                f"{line.r_squared:.4f}"]

    depths = list(result.depths)
    whole = f"{depths[0]} to {depths[-1]}"
    rows = [row("reference_impl", whole, depths, result.ref_depth),
            row(tn, whole, depths, result.torch_depth)]
    step = largest_step(result.depths, result.ref_depth)
    if step is not None:
        below = [d for d in depths if d <= step]
        above = [d for d in depths if d > step]
        if len(below) >= 3 and len(above) >= 3:
            for name, times in (("reference_impl", result.ref_depth), (tn, result.torch_depth)):
                rows.append(row(name, f"{below[0]} to {below[-1]}", below, times))
                rows.append(row(name, f"{above[0]} to {above[-1]}", above, times))
    return rows


def render(result: DispatchResult) -> str:
    tn = result.torch_name
    parts = [section("Per-call time")]
    parts.append("Microseconds per call on tiny tensors (two elements): the minimum and the "
                 "median of the repeats; the ratio is reference_impl's minimum over "
                 f"{tn}'s. timeit on the calling thread's CPU clock, about 5 ms per repeat, "
                 "41 repeats interleaved with the other implementation's, in rounds before "
                 "and after the depth sweep.\n")
    rows = []
    for key, label, _, _ in CASES:
        rt, tt = result.ref[key], result.torch[key]
        rows.append([label, us(rt.best), us(rt.median), us(tt.best), us(tt.median),
                     ratio(rt.best / tt.best)])
    parts.append(table("Per-call time, µs", ["call", "reference_impl min", "reference_impl median",
                                             f"{tn} min", f"{tn} median", "ratio"],
                       rows, [40, 12, 12, 12, 12, 8]))
    parts.append(section("Dispatch targets"))
    rows = [[t.what, us(t.ref), us(t.torch), ratio(t.ratio), f"≤ {t.limit:g}x",
             "met" if t.met else "NOT met"] for t in targets(result)]
    parts.append(table("Targets (µs; ratio of reference_impl to torch)",
                       ["measure", "reference_impl", tn, "ratio", "target", "verdict"],
                       rows, [40, 12, 12, 8, 8, 8]))
    if result.ref_line is not None and result.torch_line is not None:
        parts.append(section("Cost against nesting depth"))
        depths = result.depths
        listed = (f"every depth from {depths[0]} to {depths[-1]}"
                  if depths == tuple(range(depths[0], depths[-1] + 1))
                  else f"depths {', '.join(str(d) for d in depths)}")
        parts.append(f"``add(x, y)`` under nested pass-through modes, {listed}, each the best "
                     f"of {result.depth_rounds} sweeps (more sweeps run while torch's own line "
                     f"fits with R² under {CONTROL_R_SQUARED}, a sign of a busy machine); "
                     "least-squares lines through the minimum times. Where "
                     "reference_impl's time jumps (see :ref:`perf-depth-step`), lines below and "
                     "above the jump are fitted too.\n")
        parts.append(table("Linear fits of the per-call time over nesting depth",
                           ["implementation", "depths", "slope, µs per mode", "intercept, µs",
                            "R²"], _fits(result, tn)))
        rows = [[str(d), us(result.ref_depth[d].best), us(result.torch_depth[d].best),
                 ratio(result.ref_depth[d].best / result.torch_depth[d].best)]
                for d in result.depths]
        parts.append(table("Per-call time by nesting depth, µs (min)",
                           ["depth", "reference_impl", tn, "ratio"], rows))
    return "\n".join(parts)
