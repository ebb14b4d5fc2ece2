"""Test bodies that run in the implementation's sandbox: the ``@sandboxed`` decorator.

A test of the suite (or a user's own test) whose checks need the real adapter runs its body in
the sandbox's child (:mod:`conformance.sandbox.parent`); this module sends the body there, replays the
properties it recorded (but none the suite records itself) and fails the test with the body's
text. The rules a failing check in the child names are data from an untrusted process: they
count only where the test may fail them (see :func:`may_name` and recording._concerned). It
imports the sandbox; the sandbox does not import it.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any, overload

import pytest

from ..sandbox.faults import ImplementationFault, RemoteError
from ..sandbox.parent import SandboxedImplementation
from ..sandbox.replies import NOISE_KEY
from .observed import snapshot

__all__ = ["APPLICABLE", "RESERVED_PROPERTIES", "may_name", "sandboxed"]


#: ``sandboxed(names=APPLICABLE)``: the body's checks may name any rule that applies to the
#: implementation (the stateful tests: the model in the child names the step's rules).
APPLICABLE = "applicable"
#: What a body in the child may not record: the properties the suite's process records itself.
RESERVED_PROPERTIES = frozenset({"excused_rules", "compilation", "compiled_rules", "examples",
                                 "scenarios", "excused_scenarios", "cut_short_scenarios",
                                 "surface"})


Body = Callable[..., None]


@overload
def sandboxed(function: Body, *, names: tuple[str, ...] | str = ()) -> Body: ...
@overload
def sandboxed(function: None = None, *, names: tuple[str, ...] | str = ()) -> Callable[[Body], Body]: ...


def sandboxed(function: Body | None = None, *, names: tuple[str, ...] | str = ()) -> Any:
    """Run a test body in the implementation's sandbox, with the real adapter.

    The test keeps its signature (pytest injects the same fixtures); when ``adapter`` is a
    :class:`SandboxedImplementation`, the body runs in the child, where a crash or a thread
    left looping cannot reach the suite's process. ``record_property`` calls made there are
    replayed here (but none of the suite's own properties); a failure there fails the test here
    with the same text. The rules a failing check there named count only where the test may
    fail them: its own rule marks and ``names`` (rules its checks name beyond its marks, or
    :data:`APPLICABLE`); see recording._concerned. Use as ``@sandboxed`` or
    ``@sandboxed(names=(...))``.
    """
    if function is None:
        return functools.partial(sandboxed, names=names)
    body = function

    @functools.wraps(body)
    def wrapper(**kwargs: Any) -> None:
        target = kwargs.get("adapter")
        if not isinstance(target, SandboxedImplementation):
            body(**kwargs)
            return
        record = kwargs.get("record_property")
        passed = {k: v for k, v in kwargs.items() if k not in ("adapter", "record_property")}
        try:
            properties = target.call(
                "conformance.sandbox._child:run_body", f"{body.__module__}:{body.__qualname__}",
                passed, snapshot(), list(sys.path), seconds=target.body_seconds,
                during=f"running {body.__name__}")
        except RemoteError as exc:
            recorded = _noted(list(exc.extra.get("properties", ())))
            rules = exc.extra.get("rules")
            if rules and not any(key == "failed_rules" for key, _ in recorded):
                recorded.append(("failed_rules", ",".join(rules)))
            for key, value in recorded:
                if record is not None:
                    record(key, value)
            message = exc.message if exc.type_name == "Failed" else f"{exc.type_name}: {exc.message}"
            # from None: the report shows the body's failure once, not chained to its carrier
            raise pytest.fail.Exception(message, pytrace=False) from None
        except ImplementationFault as exc:
            raise pytest.fail.Exception(str(exc), pytrace=False) from None
        for key, value in _noted(properties):
            if record is not None:
                record(key, value)

    wrapper.__tfmode_sandboxed__ = names  # type: ignore[attr-defined]  # recording._concerned
    return wrapper


def may_name(function: object) -> tuple[str, ...] | str | None:
    """The rules beyond its marks a ``@sandboxed`` test may fail (None: not sandboxed)."""
    names = getattr(function, "__tfmode_sandboxed__", None)
    return names if isinstance(names, (tuple, str)) else None


def _noted(properties: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``properties`` without the body's noise warnings, which are counted for the run, and
    without any the suite's process records itself."""
    from ..target import noise

    for key, value in properties:
        if key == NOISE_KEY:
            noise.note(value)
    return [(k, v) for k, v in properties
            if k != NOISE_KEY and not k.startswith("tfmode") and k not in RESERVED_PROPERTIES]
