"""The sandbox's child process: loads the implementation and answers the suite's requests.

Started by :class:`conformance.sandbox.parent.Sandbox` as
``python -m conformance.sandbox._child READ_FD WRITE_FD SPEC PARENT_PID ORIGIN``. Each request comes
pickled from the suite (which is trusted), ``(id, target, args)``. Everything this process
sends back is a frame of plain JSON (:mod:`conformance.sandbox.wire`) carrying the request's id:
``event`` frames while a scenario runs, then one of ``ok`` (the result, encoded by
:func:`conformance.sandbox.replies.encode_result`, and how many of the implementation's threads still
run), ``raised`` (the error: its type's name, its text, and for a test body the properties it
recorded) or ``exited``. First of all it sends ``ready`` (the implementation's description) or
``load_error``, with id 0. The implementation runs in this process and can write to the same
pipe, so the suite decodes and checks every frame and trusts none of it: see
:mod:`conformance.sandbox.parent`.
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

from conformance.base.safe import name_of, text_of
from conformance.sandbox.integrity import Snapshot
from conformance.sandbox.replies import NOISE_KEY, cut, encode_error, encode_metadata, encode_result
from conformance.sandbox.wire import MAX_TEXT, encode_event, frame


def _one_line(text: object) -> str:
    return " ".join(text_of(text).split())


class _Out:
    """The pipe to the suite: whole frames, one at a time (the scenario's thread may send)."""

    def __init__(self, fd: int) -> None:
        self.fd, self.lock = fd, threading.Lock()

    def send(self, request: int, kind: str, body: Any) -> None:
        data = frame(request, kind, body)
        if len(data) > MAX_TEXT:  # only then can a text in it be longer than MAX_TEXT
            data = frame(request, kind, _bounded(body))
        view = memoryview(data)
        with self.lock:
            while view:
                view = view[os.write(self.fd, view):]


def _bounded(value: Any) -> Any:
    """``value`` (plain JSON data) with every text cut to MAX_TEXT."""
    if isinstance(value, str):
        return cut(value)
    if isinstance(value, list):
        return [_bounded(v) for v in value]
    if isinstance(value, dict):
        return {k: _bounded(v) for k, v in value.items()}
    return value


def _watch_parent(parent: int) -> None:
    """Exit when the suite's process is gone (even while the main thread loops in Python)."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            os._exit(0)


#: The suite's modules every request may use, imported before the implementation is (so that
#: the tripwire guards them, and the implementation cannot put its own in their place first).
PRELOADED = ("conformance.adapter", "conformance.target.adapter", "conformance.target.compiled",
             "conformance.target.noise", "conformance.target.runner", "conformance.base.safe",
             "spec.model.trace")

#: The tripwire (set by serve() before the implementation is imported).
_TRIPWIRE: Snapshot | None = None


class _Planted(Exception):
    """A module of the suite that the suite never imported was found in ``sys.modules``."""


def _resolve(target: str) -> Any:
    module_name, _, name = target.partition(":")
    tripwire = _TRIPWIRE
    if tripwire is not None and tripwire.guards(module_name) and not tripwire.knows(module_name) \
            and module_name in sys.modules:
        raise _Planted(f"sys.modules[{module_name!r}] put in place before the suite imported it")
    obj: Any = importlib.import_module(module_name)
    if tripwire is not None:
        tripwire.extend()
    for part in name.split("."):
        obj = getattr(obj, part)
    return obj


# -- the requests -------------------------------------------------------------------------


def reset(adapter: Any) -> list[str]:
    try:
        found = list(adapter.reset())
    except Exception as exc:
        return [f"adapter.reset() raised {name_of(type(exc))}: {_one_line(exc)}"]
    return [cut(text_of(x)) for x in found]


class _Streamed(list[Any]):
    """A run's event list that sends each event to the suite as it happens: if the
    implementation then crashes or hangs, the suite knows how far the scenario got."""

    def append(self, event: Any) -> None:
        super().append(event)
        if _OUT is not None:
            _OUT.send(_REQUEST, "event", encode_event(event))


#: The pipe to the suite's process (set by serve()), and the id of the request being answered.
_OUT: _Out | None = None
_REQUEST = 0


def run_scenario(adapter: Any, scenario: Any) -> tuple[Any, Any, list[str]]:
    """The observed trace, how its objects print, and what the scenario left behind."""
    from conformance.target.runner import Run

    try:
        run = Run(scenario, adapter)
        run.events = _Streamed()
        trace, naming = run.execute(), run.naming()
    finally:
        leaked = reset(adapter)
    return trace, naming, leaked


def run_batch(adapter: Any, scenarios: Any) -> list[tuple[Any, Any, list[str]]]:
    """Each scenario's observed trace, naming and leftovers, run one after the other with the
    implementation reset after each. The events are not streamed: if the implementation crashes
    or hangs, the suite runs the batch again one scenario at a time (conformance.exhaustive)."""
    from conformance.target.runner import Run

    results = []
    for scenario in scenarios:
        try:
            run = Run(scenario, adapter)
            trace, naming = run.execute(), run.naming()
        finally:
            leaked = reset(adapter)
        results.append((trace, naming, leaked))
    return results


def run_scenario_compiled(adapter: Any, scenario: Any, boundary: Any) -> tuple[Any, ...]:
    """The scenario run eagerly, then inside torch.compile (its user code meeting the compiled
    function at ``boundary``, a ``spec.boundary.Boundary``), in
    this process: each run's trace and naming, how much Dynamo traced, and what the compiled
    run left behind."""
    from conformance.target.compiled import run_compiled
    from conformance.target.runner import Run

    try:
        run = Run(scenario, adapter)
        run.events = _Streamed()
        eager, eager_naming = run.execute(), run.naming()
    finally:
        reset(adapter)
    # The compiled run records into a plain list: sending each event as it comes (_Streamed)
    # is a call Dynamo cannot trace, and would break the very graph it records.
    try:
        compiled, naming, compilation = run_compiled(scenario, adapter, boundary=boundary)
    finally:
        leaked = reset(adapter)
    return eager, eager_naming, compiled, naming, compilation, leaked


class BodyFailed(Exception):
    """A test body run here failed (with ``error``); the parent fails the test with the same
    text, after replaying the properties the body recorded."""

    def __init__(self, error: BaseException, properties: list[tuple[str, object]]) -> None:
        super().__init__(text_of(error))
        self.error, self.properties = error, properties


def _apply(snapshot: dict[str, Any]) -> None:
    """The suite process's hypothesis settings, here (see observed.snapshot)."""
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


def _noise(caught: list[warnings.WarningMessage]) -> list[tuple[str, str]]:
    from conformance.target.noise import first_line, is_protocol_warning

    texts = [(name_of(w.category), text_of(w.message)) for w in caught]
    return [(category, first_line(text)) for category, text in texts if not is_protocol_warning(text)]


# -- the loop -------------------------------------------------------------------------------


def _raised(exc: BaseException) -> dict[str, Any]:
    """The error as it travels (conformance.sandbox.replies.encode_error).

    Rules travel only from a divergence the suite's lockstep raised (its own class, exactly):
    an attribute of any other exception is the implementation's data. The suite accepts even
    those only among the rules the test may fail (recording._concerned).
    """
    properties = None
    if isinstance(exc, BodyFailed):
        properties, exc = exc.properties, exc.error
    message = text_of(exc)
    if not message.strip():
        try:
            frames = traceback.extract_tb(exc.__traceback__)
        except Exception:
            frames = traceback.StackSummary()
        if frames:
            message = f"{frames[-1].line} (at {os.path.basename(frames[-1].filename)}:{frames[-1].lineno})"
    rules = None
    replay = sys.modules.get("conformance.search.replay")
    if replay is not None and type(exc) is replay.Divergence:
        rules = tuple(r for r in exc.rules if type(r) is str)  # type: ignore[attr-defined]
    return encode_error(name_of(type(exc)), message, rules, properties)


def _exit_name(exc: BaseException) -> str:
    from conformance.base.safe import repr_of

    return f"sys.exit({repr_of(exc.code)})" if isinstance(exc, SystemExit) else name_of(type(exc))


def serve(conn_in: Connection, out: _Out, spec: str, origin: str) -> int:
    global _OUT, _REQUEST, _TRIPWIRE
    for module in PRELOADED:
        importlib.import_module(module)
    from conformance.target.adapter import load_adapter

    tripwire = Snapshot()
    _OUT, _TRIPWIRE = out, tripwire
    try:
        adapter = load_adapter(spec, origin)
        metadata = encode_metadata(adapter)
    except BaseException as exc:
        out.send(0, "load_error", _one_line(exc))
        return 2
    changed = tripwire.changes()
    if changed:
        out.send(0, "load_error", f"the implementation changed the suite's own code in its process "
                                  f"while it was imported ({'; '.join(changed)}): nothing it "
                                  f"reports could be believed")
        return 4
    out.send(0, "ready", metadata)
    baseline = set(threading.enumerate())
    while True:
        try:
            _REQUEST, target, args = conn_in.recv()
        except EOFError:
            return 0
        try:
            kind, body = "ok", encode_result(target, _resolve(target)(adapter, *args))
        except (SystemExit, KeyboardInterrupt) as exc:
            out.send(_REQUEST, "exited", {"what": _exit_name(exc)})
            return 3
        except BodyFailed as exc:
            if isinstance(exc.error, (SystemExit, KeyboardInterrupt)):
                out.send(_REQUEST, "exited", {"what": _exit_name(exc.error)})
                return 3
            kind, body = "raised", _raised(exc)
        except _Planted as exc:
            out.send(_REQUEST, "tampered", {"changes": str(exc)})
            return 4
        except BaseException as exc:  # pytest.fail() raises a BaseException too
            kind, body = "raised", _raised(exc)
        changed = tripwire.changes()
        if changed:  # the reply could be the implementation's forgery: none is sent
            out.send(_REQUEST, "tampered", {"changes": "; ".join(changed)})
            return 4
        left = [t for t in threading.enumerate() if t not in baseline and t.is_alive()]
        try:
            out.send(_REQUEST, kind, {"value" if kind == "ok" else "error": body, "threads": len(left)})
        except Exception as exc:  # a result that does not encode
            out.send(_REQUEST, "raised", {"error": encode_error("UnencodableResult", _one_line(exc)),
                                          "threads": len(left)})


def main(argv: list[str]) -> int:
    try:
        read_fd, write_fd, spec, parent, origin = int(argv[0]), int(argv[1]), argv[2], int(argv[3]), argv[4]
    except (IndexError, ValueError):
        print("python -m conformance.sandbox._child is started by the suite's sandbox with the ends of its "
              "pipes, not by hand; run the suite: pytest --pyargs conformance.suite --impl MODULE",
              file=sys.stderr)
        return 2
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the suite's process decides when to stop
    threading.Thread(target=_watch_parent, args=(parent,), daemon=True,
                     name="tfmode-sandbox-watch").start()
    return serve(Connection(read_fd, writable=False), _Out(write_fd), spec, origin)


if __name__ == "__main__":
    # `python -m` put the working folder first on sys.path; the suite's process passed its own
    # sys.path, in its order, as PYTHONPATH (--impl-path first): that order decides, so that a
    # same-named package in the working folder cannot shadow the one --impl-path names.
    if sys.path and sys.path[0] in ("", os.getcwd()):
        del sys.path[0]
    # Run the module under its own name: requests name its functions as conformance.sandbox._child:...,
    # and those must share this run's globals (the connection) and classes (BodyFailed).
    from conformance.sandbox import _child

    code = _child.main(sys.argv[1:])
    sys.stdout.flush()
    os._exit(code)  # no interpreter shutdown: the implementation's threads must not hold it up
