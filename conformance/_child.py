"""The sandbox's child process: loads the implementation and answers the suite's requests.

Started by :class:`conformance.sandbox.Sandbox` as
``python -m conformance._child READ_FD WRITE_FD SPEC PARENT_PID ORIGIN``. Each request is
``(target, args)``; the reply is ``("ok", result, threads_left)``,
``("raised", (type_name, message, extra), threads_left)`` or ``("exited", what)``.
"""

from __future__ import annotations

import importlib
import inspect
import os
import signal
import sys
import threading
import time
import traceback
import warnings
from multiprocessing.connection import Connection
from typing import Any

#: Texts longer than this are cut before they travel back (an implementation may raise megabytes).
MAX_TEXT = 20000


def _one_line(text: object) -> str:
    return " ".join(str(text).split())


def _cut(text: str) -> str:
    if len(text) <= MAX_TEXT:
        return text
    half = MAX_TEXT // 2
    return f"{text[:half]}…[{len(text) - MAX_TEXT} characters cut]…{text[-half:]}"


def _watch_parent(parent: int) -> None:
    """Exit when the suite's process is gone (even while the main thread loops in Python)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


def _resolve(target: str) -> Any:
    module_name, _, name = target.partition(":")
    obj: Any = importlib.import_module(module_name)
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# -- the requests -------------------------------------------------------------------------


def reset(adapter: Any) -> list[str]:
    return [_cut(str(x)) for x in adapter.reset()]


class _Streamed(list[Any]):
    """A run's event list that sends each event to the suite as it happens: if the
    implementation then crashes or hangs, the suite knows how far the scenario got."""

    def append(self, event: Any) -> None:
        super().append(event)
        if _OUT is not None:
            _OUT.send(("event", _trimmed_event(event)))


#: The connection to the suite's process (set by serve()).
_OUT: Connection | None = None


def run_scenario(adapter: Any, scenario: Any) -> tuple[Any, Any, list[str]]:
    """The observed trace, how its objects print, and what the scenario left behind."""
    from conformance.runner import Run

    try:
        run = Run(scenario, adapter)
        run.events = _Streamed()
        trace, naming = run.execute(), run.naming()
    finally:
        leaked = reset(adapter)
    return _trimmed(trace), naming, leaked


def run_scenario_compiled(adapter: Any, scenario: Any) -> tuple[Any, ...]:
    """The scenario run eagerly, then inside torch.compile, in this process: each run's trace
    and naming, how much Dynamo traced, and what the compiled run left behind."""
    from conformance.compiled import run_compiled
    from conformance.runner import Run

    try:
        run = Run(scenario, adapter)
        run.events = _Streamed()
        eager, eager_naming = run.execute(), run.naming()
    finally:
        reset(adapter)
    # The compiled run records into a plain list: sending each event as it comes (_Streamed)
    # is a call Dynamo cannot trace, and would break the very graph it records.
    try:
        compiled, naming, compilation = run_compiled(scenario, adapter)
    finally:
        leaked = reset(adapter)
    return _trimmed(eager), eager_naming, _trimmed(compiled), naming, compilation, leaked


def _short(message: Any) -> Any:
    from spec.model.trace import Message

    text = message.render()
    return message if len(text) <= MAX_TEXT else Message((_cut(text),))


def _trimmed_event(event: Any) -> Any:
    from dataclasses import replace

    from spec.model.trace import WarningEmitted

    return replace(event, message=_short(event.message)) if isinstance(event, WarningEmitted) else event


def _trimmed(trace: Any) -> Any:
    """The trace with every text cut to MAX_TEXT (an implementation may raise megabytes)."""
    from dataclasses import replace

    from spec.model.trace import Raised

    outcome = trace.outcome
    if isinstance(outcome, Raised):
        outcome = replace(outcome, message=_short(outcome.message))
    return replace(trace, events=tuple(_trimmed_event(e) for e in trace.events), outcome=outcome)


class BodyFailed(Exception):
    """A test body run here failed (with ``error``); the parent fails the test with the same
    text, after replaying the properties the body recorded."""

    def __init__(self, error: BaseException, properties: list[tuple[str, object]]) -> None:
        super().__init__(str(error))
        self.error, self.properties = error, properties


def _apply(snapshot: dict[str, Any]) -> None:
    """The suite process's hypothesis settings, here (see sandbox.hypothesis_snapshot)."""
    from hypothesis import core, settings

    values = dict(snapshot["settings"])
    if not snapshot["database"]:
        values["database"] = None
    settings.register_profile("tfmode-sandbox", **values)
    settings.load_profile("tfmode-sandbox")
    core.global_force_seed = snapshot["seed"]


def run_body(adapter: Any, target: str, kwargs: dict[str, Any], snapshot: dict[str, Any],
             path: list[str]) -> list[tuple[str, object]]:
    """Run a test body (the function a ``@sandboxed`` test wraps); its recorded properties.

    ``path`` is the suite process's ``sys.path`` now: pytest adds test folders to it while
    collecting, after this process started.
    """
    _apply(snapshot)
    sys.path[:] = path + [p for p in sys.path if p not in path]
    function = _resolve(target)
    function = getattr(function, "__wrapped__", function)
    properties: list[tuple[str, object]] = []
    wanted = inspect.signature(function).parameters
    given = dict(kwargs)
    if "adapter" in wanted:
        given["adapter"] = adapter
    if "record_property" in wanted:
        given["record_property"] = lambda key, value: properties.append((key, value))
    # The implementation's own warnings (its noise) are counted as a scenario's are.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            function(**{k: v for k, v in given.items() if k in wanted})
        except BaseException as exc:
            properties.append((NOISE_KEY, _noise(caught)))
            raise BodyFailed(exc, properties) from exc
    properties.append((NOISE_KEY, _noise(caught)))
    return properties


#: The property under which run_body hands back the noise warnings a body raised.
NOISE_KEY = "tfmode_noise"


def _noise(caught: list[warnings.WarningMessage]) -> list[tuple[str, str]]:
    from conformance.noise import first_line, is_protocol_warning

    return [(w.category.__name__, first_line(str(w.message))) for w in caught
            if not is_protocol_warning(str(w.message))]


# -- the loop -------------------------------------------------------------------------------


def _raised(exc: BaseException) -> tuple[str, str, dict[str, Any]]:
    extra: dict[str, Any] = {}
    if isinstance(exc, BodyFailed):
        extra["properties"] = exc.properties
        exc = exc.error
    message = str(exc)
    if not message.strip():
        frames = traceback.extract_tb(exc.__traceback__)
        if frames:
            message = f"{frames[-1].line} (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"
    rules = getattr(exc, "rules", None)
    if isinstance(rules, (tuple, list)) and all(isinstance(r, str) for r in rules):
        extra["rules"] = tuple(rules)
    return type(exc).__name__, _cut(message), extra


def _exit_name(exc: BaseException) -> str:
    return f"sys.exit({exc.code!r})" if isinstance(exc, SystemExit) else type(exc).__name__


def serve(conn_in: Connection, conn_out: Connection, spec: str, origin: str) -> int:
    global _OUT
    from conformance.adapter import load_adapter

    _OUT = conn_out
    try:
        adapter = load_adapter(spec, origin)
    except BaseException as exc:
        conn_out.send(("load_error", _one_line(exc)))
        return 2
    conn_out.send(("ready", {
        "name": str(adapter.name), "version": str(adapter.version),
        "generation": adapter.generation, "features": sorted(adapter.features),
        "stack_version": getattr(adapter, "stack_version", None),
        "release": getattr(adapter, "release", None),
    }))
    baseline = set(threading.enumerate())
    while True:
        try:
            target, args = conn_in.recv()
        except EOFError:
            return 0
        try:
            reply: tuple[Any, ...] = ("ok", _resolve(target)(adapter, *args))
        except (SystemExit, KeyboardInterrupt) as exc:
            conn_out.send(("exited", _exit_name(exc)))
            return 3
        except BodyFailed as exc:
            if isinstance(exc.error, (SystemExit, KeyboardInterrupt)):
                conn_out.send(("exited", _exit_name(exc.error)))
                return 3
            reply = ("raised", _raised(exc))
        except BaseException as exc:  # pytest.fail() raises a BaseException too
            reply = ("raised", _raised(exc))
        left = [t for t in threading.enumerate() if t not in baseline and t.is_alive()]
        try:
            conn_out.send((*reply, len(left)))
        except Exception as exc:  # a result that does not pickle
            conn_out.send(("raised", ("UnpicklableResult", _one_line(exc), {}), len(left)))


def main(argv: list[str]) -> int:
    try:
        read_fd, write_fd, spec, parent, origin = int(argv[0]), int(argv[1]), argv[2], int(argv[3]), argv[4]
    except (IndexError, ValueError):
        print("python -m conformance._child is started by the suite's sandbox with the ends of its "
              "pipes, not by hand; run the suite: pytest --pyargs conformance.suite --impl MODULE",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the suite's process decides when to stop
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="tfmode-sandbox-watch").start()
    conn_in, conn_out = Connection(read_fd, writable=False), Connection(write_fd, readable=False)
    return serve(conn_in, conn_out, spec, origin)


if __name__ == "__main__":
    # `python -m` put the working folder first on sys.path; the suite's process passed its own
    # sys.path, in its order, as PYTHONPATH (--impl-path first): that order decides, so that a
    # same-named package in the working folder cannot shadow the one --impl-path names.
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    # Run the module under its own name: requests name its functions as conformance._child:...,
    # and those must share this run's globals (the connection) and classes (BodyFailed).
    from conformance import _child

    code = _child.main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # no interpreter shutdown: the implementation's threads must not hold it up
