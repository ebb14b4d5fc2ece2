"""Runs the implementation under test in a child process, so that a crash or a hang costs one call.

The suite's own process never imports the implementation. :class:`Sandbox` starts a child
(``python -m conformance._child``) that loads it and answers requests over a pipe: run this
scenario, run this test body, reset. A child that exits (``os._exit``, ``sys.exit``, a fatal
signal, a stack overflow) or does not answer in time is killed and replaced on the next request;
the request that was in flight raises :class:`ImplementationCrashed` or
:class:`ImplementationHung`, which the suite turns into a failure of that scenario's rules.
Threads the implementation leaves running die with the child.
"""

from __future__ import annotations

import atexit
import functools
import os
import signal
import subprocess
import sys
import threading
import time
import weakref
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from typing import Any

import pytest

from . import processes
from .adapter import AdapterError, Generation
from .cputime import process_cpu_seconds

__all__ = ["ImplementationCrashed", "ImplementationFault", "ImplementationHung", "RemoteError",
           "Sandbox", "SandboxedImplementation", "sandboxed"]

#: Seconds a child may take to import the implementation (torch takes a few).
STARTUP_SECONDS = 300.0
#: How much of the child's output is kept to explain a crash.
_TAIL_BYTES = 4096


class ImplementationFault(Exception):
    """The implementation under test did not answer a request: it crashed or it hung.

    ``partial`` holds the events a scenario had shown before that (see _child._Streamed).
    """

    kind = "fault"
    #: The child's CPU time (user and system, all its threads) when it was killed for a hang;
    #: None when unknown (see conformance.timing, which re-runs a time-out before it fails).
    cpu_seconds: float | None = None

    def __init__(self, message: str, partial: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.partial = partial


class ImplementationCrashed(ImplementationFault):
    kind = "crashed"


class ImplementationHung(ImplementationFault):
    kind = "hung"


class RemoteError(Exception):
    """A request raised in the child; ``type_name`` and the message say what."""

    def __init__(self, type_name: str, message: str, extra: dict[str, Any]) -> None:
        super().__init__(message)
        self.type_name, self.message, self.extra = type_name, message, extra


def _describe_exit(code: int | None) -> str:
    if code is None:
        return "the process did not exit"
    if code < 0:
        try:
            return f"the process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the process was killed by signal {-code}"
    return f"the process exited with status {code}"


class _Tail:
    """Drains a pipe in a thread and keeps the last bytes (bounded memory, whatever is written)."""

    def __init__(self, fd: int) -> None:
        self._chunks: deque[bytes] = deque()
        self._size = 0
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._drain, args=(fd,), daemon=True,
                                        name="tfmode-sandbox-output")
        self._thread.start()

    def _drain(self, fd: int) -> None:
        with os.fdopen(fd, "rb", buffering=0) as stream:
            while chunk := stream.read(65536):
                with self._lock:
                    self._chunks.append(chunk)
                    self._size += len(chunk)
                    while self._size - len(self._chunks[0]) >= _TAIL_BYTES:
                        self._size -= len(self._chunks.popleft())

    def last_line(self, wait: float = 1.0) -> str:
        self._thread.join(wait)
        with self._lock:
            text = b"".join(self._chunks)[-_TAIL_BYTES:].decode("utf-8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return lines[-1][:300] if lines else ""


class Sandbox:
    """One child process holding the implementation; started on first use, replaced after a fault."""

    def __init__(self, spec: str, startup_seconds: float = STARTUP_SECONDS,
                 origin: str | None = None) -> None:
        self.spec = spec
        self.origin = origin or f"--impl {spec!r}"
        self.startup_seconds = startup_seconds
        #: seconds a restart after a fault may take (the plugin makes it a test's time limit)
        self.restart_seconds = startup_seconds
        self.metadata: dict[str, Any] | None = None
        #: how many times the child was replaced after a fault, and how many of those were hangs
        self.restarts = 0
        self.hangs = 0
        self._proc: subprocess.Popen[bytes] | None = None
        self._to: Connection | None = None
        self._from: Connection | None = None
        self._tail: _Tail | None = None
        self._partial: list[Any] = []
        _LIVE.add(self)

    # -- the child's life ---------------------------------------------------------------------

    def start(self) -> dict[str, Any]:
        """Start the child (if it is not running) and return the implementation's metadata."""
        if self._proc is not None:
            assert self.metadata is not None
            return self.metadata
        down_r, down_w = os.pipe()
        up_r, up_w = os.pipe()
        out_r, out_w = os.pipe()
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(p or os.getcwd() for p in sys.path)
        env["PYTHONUNBUFFERED"] = "1"
        processes.child_env(env)
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "conformance._child", str(down_r), str(up_w), self.spec,
                 str(os.getpid()), self.origin],
                pass_fds=(down_r, up_w), stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                env=env, start_new_session=True)
        finally:
            for fd in (down_r, up_w, out_w):
                os.close(fd)
        processes.started(self._proc.pid)
        self._to, self._from = Connection(down_w, readable=False), Connection(up_r, writable=False)
        self._tail = _Tail(out_r)
        # A restart may not take longer than the test it happens in (restart_seconds).
        reply = self._receive(self.startup_seconds if self.metadata is None
                              else min(self.startup_seconds, self.restart_seconds),
                              "loading the implementation")
        if reply[0] == "load_error":
            self.close()
            raise AdapterError(str(reply[1]))
        assert reply[0] == "ready", reply
        metadata: dict[str, Any] = reply[1]
        if self.metadata is not None and metadata != self.metadata:
            self.close()
            raise ImplementationCrashed(f"the restarted implementation describes itself "
                                        f"differently: {metadata} != {self.metadata}")
        self.metadata = metadata
        return metadata

    def running(self) -> bool:
        """Whether a child is started (it may have died since, unnoticed)."""
        return self._proc is not None

    def close(self) -> None:
        """Kill the child (it may be looping or have threads of its own) and forget it."""
        proc, self._proc = self._proc, None
        for conn in (self._to, self._from):
            if conn is not None:
                conn.close()
        self._to = self._from = None
        if proc is not None:
            processes.sweep(proc.pid)  # every process the implementation started, and the child
            if proc.poll() is None:
                proc.kill()
            proc.wait()
            processes.forget(proc.pid)

    def cpu_seconds(self) -> float | None:
        """The CPU time the running child has used since it started (None: none runs, or unknown)."""
        return None if self._proc is None else process_cpu_seconds(self._proc.pid)

    def _fault(self, fault: type[ImplementationFault], what: str, during: str) -> ImplementationFault:
        proc = self._proc
        cpu = self.cpu_seconds() if fault is ImplementationHung else None  # read before the kill
        if proc is not None and proc.poll() is None:
            proc.kill()
        code = None if proc is None else proc.wait()
        tail = "" if self._tail is None else self._tail.last_line()
        self.close()
        self.restarts += 1
        self.hangs += fault is ImplementationHung
        detail = what if fault is ImplementationHung else f"{what}: {_describe_exit(code)}"
        last = f" (its last output: {tail!r})" if tail else ""
        found = fault(f"the implementation {detail} while {during}{last}", tuple(self._partial))
        found.cpu_seconds = cpu
        return found

    def _receive(self, seconds: float, during: str) -> tuple[Any, ...]:
        """The request's reply; the events streamed before it are kept in ``_partial``."""
        assert self._from is not None
        deadline = time.monotonic() + seconds
        self._partial = []
        while True:
            try:
                ready = self._from.poll(max(deadline - time.monotonic(), 0.0))
            except BaseException:  # a rule timeout or an interrupt: the child may be mid-request
                self.close()
                raise
            if not ready:
                raise self._fault(ImplementationHung, f"did not answer within {seconds:g} s", during)
            try:
                reply: tuple[Any, ...] = self._from.recv()
            except (EOFError, OSError):
                raise self._fault(ImplementationCrashed, "crashed", during) from None
            if reply[0] != "event":
                return reply
            self._partial.append(reply[1])

    # -- requests -------------------------------------------------------------------------------

    def call(self, target: str, args: tuple[Any, ...], seconds: float, during: str) -> Any:
        """``target(adapter, *args)`` in the child (``target`` is ``module:function``)."""
        self.start()
        assert self._to is not None
        try:
            self._to.send((target, args))
        except (BrokenPipeError, OSError):  # it died between two requests
            raise self._fault(ImplementationCrashed, "crashed", "idle") from None
        reply = self._receive(seconds, during)
        if reply[0] == "exited":  # sys.exit() or the like: the child is gone too
            self.close()
            self.restarts += 1
            raise ImplementationCrashed(f"the implementation called {reply[1]} while {during}")
        kind, value, threads_left = reply
        if threads_left:  # the implementation's threads still run: they must not outlive this
            self.close()
        if kind == "raised":
            raise RemoteError(*value)
        assert kind == "ok", reply
        return value


_LIVE: weakref.WeakSet[Sandbox] = weakref.WeakSet()


@atexit.register
def _close_all() -> None:
    for sandbox in list(_LIVE):
        sandbox.close()


class SandboxedImplementation:
    """The implementation under test as the suite's own process sees it: its description, and
    requests that run in a :class:`Sandbox`."""

    def __init__(self, spec: str, startup_seconds: float = STARTUP_SECONDS,
                 origin: str | None = None) -> None:
        self.sandbox = Sandbox(spec, startup_seconds, origin)
        meta = self.sandbox.start()
        self.spec = spec
        self.name: str = meta["name"]
        self.version: str = meta["version"]
        self.generation: Generation = meta["generation"]
        self.features: frozenset[str] = frozenset(meta["features"])
        self.stack_version: str | None = meta["stack_version"]
        #: The release whose texts it shows (None: it reports none); see Adapter.release.
        self.release: str | None = meta.get("release")

    #: Seconds a whole test body run in the sandbox may take (the plugin sets --rule-timeout).
    body_seconds: float = 600.0
    #: --compile: each scenario runs eagerly and inside torch.compile (conformance.compilecheck).
    compile: bool = False

    def call(self, target: str, *args: Any, seconds: float, during: str) -> Any:
        return self.sandbox.call(target, args, seconds, during)

    def reset(self, restart: bool = True) -> list[str]:
        """Clear any mode the implementation left behind; what was found. ``restart=False``:
        a child that is not running (it crashed or hung) has nothing to reset, so none is
        started (a restart belongs in a test, where its time limit costs that test only)."""
        if not restart and not self.sandbox.running():
            return []
        found: list[str] = self.call("conformance._child:reset", seconds=30.0, during="resetting")
        return found

    def close(self) -> None:
        self.sandbox.close()


def hypothesis_snapshot() -> dict[str, Any]:
    """The active hypothesis settings that matter to a test body, to apply in the child."""
    from hypothesis import core, settings

    current = settings()
    return {"settings": {"max_examples": current.max_examples, "derandomize": current.derandomize,
                         "deadline": current.deadline, "phases": tuple(current.phases),
                         "suppress_health_check": tuple(current.suppress_health_check),
                         "print_blob": current.print_blob},
            "database": current.database is not None, "seed": core.global_force_seed}


def sandboxed(function: Callable[..., None]) -> Callable[..., None]:
    """Run a test body in the implementation's sandbox, with the real adapter.

    The test keeps its signature (pytest injects the same fixtures); when ``adapter`` is a
    :class:`SandboxedImplementation`, the body runs in the child, where a crash or a thread
    left looping cannot reach the suite's process. ``record_property`` calls made there are
    replayed here; a failure there fails the test here with the same text (and the rules
    the failing check named, if it named any).
    """

    @functools.wraps(function)
    def wrapper(**kwargs: Any) -> None:
        target = kwargs.get("adapter")
        if not isinstance(target, SandboxedImplementation):
            function(**kwargs)
            return
        record = kwargs.get("record_property")
        passed = {k: v for k, v in kwargs.items() if k not in ("adapter", "record_property")}
        try:
            properties = target.call(
                "conformance._child:run_body", f"{function.__module__}:{function.__qualname__}",
                passed, hypothesis_snapshot(), list(sys.path), seconds=target.body_seconds,
                during=f"running {function.__name__}")
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

    return wrapper


def _noted(properties: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """``properties`` without the body's noise warnings, which are counted for the run."""
    from . import noise
    from ._child import NOISE_KEY

    for key, value in properties:
        if key == NOISE_KEY:
            noise.note((str(c), str(t)) for c, t in value)
    return [(k, v) for k, v in properties if k != NOISE_KEY]
