"""Time limits that blame the implementation, not the machine: a time-out is confirmed before it fails.

A scenario's time limit is wall-clock time, and a loaded machine can spend it for a correct
implementation (two cores at a load of nine give each process a fifth of one). So a scenario
that does not answer within its limit fails no rule yet: it is run again, once, on a fresh
process, with :data:`RERUN_FACTOR` times the limit, and judged by that run when it answers.
Only a scenario that runs out of both limits is a hang (a *confirmed* hang): its failure says
so, "did not answer within 2 s, nor within 8 s when re-run on a fresh process", with the CPU
time the implementation used in each.

Each confirmed hang costs both limits. Once the implementation has hung
:data:`HANGS_BEFORE_SHORTER` times (confirmed) in one process, it is known to hang: later
scenarios get a quarter of the limit, and a time-out is re-run only when the child was not
computing for at least :data:`STARVED_SHARE` of the limit (it was starved of the CPU, or
blocked; a blocked call and a starved one look alike in CPU time, so both are re-run). A known
hanger that loops therefore costs what it cost before the re-runs existed (0.5 s a scenario);
one that blocks, or one on a starved machine, costs the quarter limit and its re-run (0.5 s
plus 2 s).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import TypeVar

from .parent import ImplementationHung, Sandbox, SandboxedImplementation

__all__ = ["HANGS_BEFORE_SHORTER", "RERUN_FACTOR", "STARVED_SHARE", "confirmed",
           "confirmed_hangs", "limit"]

#: A time-out is re-run once with this many times the limit before it counts as a hang.
RERUN_FACTOR = 4.0
#: Once the implementation has hung (confirmed) this many times in one process, later scenarios
#: get a quarter of their limit: it is known to hang, and each hang costs its whole limit.
HANGS_BEFORE_SHORTER = 3
#: A known hanger's time-out is re-run when its child used less CPU than this share of the
#: limit (it waited: blocked, or starved by a loaded machine), else it is a hang at once.
STARVED_SHARE = 0.5

T = TypeVar("T")

_CONFIRMED: weakref.WeakKeyDictionary[Sandbox, int] = weakref.WeakKeyDictionary()


def _sandbox(target: object) -> Sandbox | None:
    return target.sandbox if isinstance(target, SandboxedImplementation) else None


def confirmed_hangs(target: object) -> int:
    """How many confirmed hangs ``target`` (a sandboxed implementation) has had; 0 otherwise."""
    sandbox = _sandbox(target)
    return 0 if sandbox is None else _CONFIRMED.get(sandbox, 0)


def limit(target: object, seconds: float) -> float:
    """The time limit ``seconds`` as it applies to ``target``: a quarter of it once ``target``
    is known to hang."""
    return seconds if confirmed_hangs(target) < HANGS_BEFORE_SHORTER else seconds / 4


def _cpu_before(sandbox: Sandbox | None) -> float | None:
    """The child's CPU time before a request (started first, so its start-up is not counted)."""
    if sandbox is None:
        return None
    sandbox.start()
    return sandbox.cpu_seconds()


def _used(fault: ImplementationHung, before: float | None) -> float | None:
    if fault.cpu_seconds is None or before is None:
        return None
    return max(fault.cpu_seconds - before, 0.0)


def _cpu_text(used: list[float | None]) -> str:
    if any(u is None for u in used):
        return ""
    shown = ", then ".join(f"{u:.2f} s" for u in used if u is not None)
    return f" (CPU time it used: {shown})"


def confirmed(attempt: Callable[[float], T], target: object, seconds: float, during: str,
              factor: float = RERUN_FACTOR) -> T:
    """``attempt(seconds)``; when it raises :class:`ImplementationHung`, ``attempt`` once more
    with ``factor`` times ``seconds`` (the sandbox replaced the hung process, so it runs on a
    fresh one), and its result.

    Raises :class:`ImplementationHung` for a confirmed hang only: the re-run ran out of time too,
    or ``target`` is known to hang and its child computed through ``seconds`` (see the module's
    docstring). ``attempt`` must be repeatable (a scenario is).
    """
    sandbox = _sandbox(target)
    known = confirmed_hangs(target) >= HANGS_BEFORE_SHORTER
    before = _cpu_before(sandbox)
    try:
        return attempt(seconds)
    except ImplementationHung as first:
        used = [_used(first, before)]
        if known and used[0] is not None and used[0] >= STARVED_SHARE * seconds:
            raise _hang(sandbox, first, f"the implementation did not answer within {seconds:g} s "
                        f"while {during}{_cpu_text(used)}; not re-run: it computed all along, "
                        f"and had hung {confirmed_hangs(target)} times already") from None
    longer = seconds * factor
    before = _cpu_before(sandbox)
    try:
        return attempt(longer)
    except ImplementationHung as second:
        used.append(_used(second, before))
        raise _hang(sandbox, second, f"the implementation did not answer within {seconds:g} s "
                    f"while {during}, nor within {longer:g} s when re-run on a fresh process"
                    f"{_cpu_text(used)}") from None


def _hang(sandbox: Sandbox | None, fault: ImplementationHung, message: str) -> ImplementationHung:
    if sandbox is not None:
        _CONFIRMED[sandbox] = _CONFIRMED.get(sandbox, 0) + 1
    hang = ImplementationHung(message, fault.partial)
    hang.cpu_seconds = fault.cpu_seconds
    return hang
