"""Runs the implementation under test in a child process, so that a crash or a hang costs one call.

The suite's own process never imports the implementation. :class:`Sandbox` starts a child
(``python -m conformance.sandbox._child``) that loads it and answers requests over a pipe: run this
scenario, run this test body, reset. A child that exits (``os._exit``, ``sys.exit``, a fatal
signal, a stack overflow) or does not answer in time is killed and replaced on the next request;
the request that was in flight raises :class:`ImplementationCrashed` or
:class:`ImplementationHung`, which the suite turns into a failure of that scenario's rules.
Threads the implementation leaves running die with the child.

Nothing the child sends is trusted: the implementation runs there and can write to the pipe.
Requests go down pickled, each with an id; every reply comes up as a frame of plain JSON
(:mod:`conformance.sandbox.wire`) that must carry the id of the request in flight, and its body is
decoded and checked field by field (:mod:`conformance.sandbox.replies`) before anything here uses it.
A frame that is malformed, too large, of the wrong kind or for another request, or a body
that does not check, is the implementation's fault like a crash: the child is killed and the
request raises :class:`ImplementationMisbehaved`. Frames of the previous request that arrive
before any of the current one (a reply the implementation wrote early, then the real one) are
left over: the child is replaced and the request sent again, costing no scenario.
"""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import sys
import time
import weakref
from multiprocessing.connection import Connection
from typing import Any

from ..target.adapter import AdapterError, Generation
from . import processes
from .cputime import process_cpu_seconds
from .faults import (
    ImplementationCrashed,
    ImplementationFault,
    ImplementationHung,
    ImplementationMisbehaved,
    ImplementationTampered,
    RemoteError,
    Tail,
    describe_exit,
)
from .replies import decode_error, decode_metadata, decode_result
from .wire import MAX_ITEMS, Frames, WireError, decode_event, fields, integer, printable, text

__all__ = ["ImplementationCrashed", "ImplementationFault", "ImplementationHung",
           "ImplementationMisbehaved", "ImplementationTampered", "RemoteError", "Sandbox",
           "SandboxedImplementation"]

#: Seconds a child may take to import the implementation (torch takes a few).
STARTUP_SECONDS = 300.0


class _LeftOver(Exception):
    """A frame of the previous request came before any of the current one."""


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
        self._from: int | None = None
        self._frames = Frames()
        self._tail: Tail | None = None
        self._partial: list[Any] = []
        self._last_id = 0
        #: Requests sent and not yet answered, oldest first (see submit and collect).
        self._pending: list[int] = []
        #: what the child's tripwire found changed in the suite's code (None: nothing); once
        #: set, every request of the run fails without a child being started
        self.tampered: str | None = None
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
                [sys.executable, "-m", "conformance.sandbox._child", str(down_r), str(up_w), self.spec,
                 str(os.getpid()), self.origin],
                pass_fds=(down_r, up_w), stdin=subprocess.DEVNULL, stdout=out_w, stderr=out_w,
                env=env, start_new_session=True)
        finally:
            for fd in (down_r, up_w, out_w):
                os.close(fd)
        processes.started(self._proc.pid)
        self._to, self._from, self._frames = Connection(down_w, readable=False), up_r, Frames()
        self._tail = Tail(out_r)
        during = "loading the implementation"
        # A restart may not take longer than the test it happens in (restart_seconds).
        seconds = (self.startup_seconds if self.metadata is None
                   else min(self.startup_seconds, self.restart_seconds))
        kind, body = self._receive(0, seconds, during, ("ready", "load_error"))
        if kind == "load_error":
            self.close()
            try:
                raise AdapterError(printable(text(body, "the load error"), 2000))
            except WireError as exc:
                raise self._misbehaved(exc, during) from None
        try:
            metadata = decode_metadata(body)
        except WireError as exc:
            raise self._misbehaved(exc, during) from None
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
        self._pending = []  # a new child never answers the old one's requests
        if self._to is not None:
            self._to.close()
        if self._from is not None:
            os.close(self._from)
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
        plain = fault in (ImplementationHung, ImplementationMisbehaved)
        detail = what if plain else f"{what}: {describe_exit(code)}"
        last = f" (its last output: {tail!r})" if tail else ""
        found = fault(f"the implementation {detail} while {during}{last}", tuple(self._partial))
        found.cpu_seconds = cpu
        return found

    def _tampered(self, body: Any, during: str) -> None:
        """The child's tripwire went off: the run is over for this implementation."""
        try:
            changes = printable(text(fields(body, "the tripwire", ("changes",))["changes"],
                                     "what changed"), 500)
        except WireError as exc:
            raise self._misbehaved(exc, during) from None
        self.close()
        self.tampered = (f"the implementation changed the suite's own code in its process while "
                         f"{during} ({changes}): nothing it reports can be believed, and no later "
                         f"request of this run is sent")
        raise ImplementationTampered(self.tampered)

    def _misbehaved(self, problem: Exception, during: str) -> ImplementationFault:
        return self._fault(ImplementationMisbehaved, f"broke the sandbox's protocol ({problem})", during)

    def _next(self, deadline: float, during: str) -> tuple[int, str, Any] | None:
        """The next message from the child; ``None`` once ``deadline`` has passed."""
        assert self._from is not None
        while True:
            try:
                message = self._frames.next()
            except WireError as exc:
                raise self._misbehaved(exc, during) from None
            if message is not None:
                return message
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            try:
                ready, _, _ = select.select([self._from], [], [], remaining)
                chunk = os.read(self._from, 1 << 20) if ready else None
            except OSError:
                chunk = b""
            except BaseException:  # a rule timeout or an interrupt: the child may be mid-request
                self.close()
                raise
            if chunk is None:
                return None
            if not chunk:
                raise self._fault(ImplementationCrashed, "crashed", during)
            self._frames.feed(chunk)

    def _receive(self, request: int, seconds: float, during: str,
                 kinds: tuple[str, ...] = ("ok", "raised", "exited")) -> tuple[str, Any]:
        """The kind and body of the reply to ``request``; the events streamed before it are
        decoded into ``_partial``."""
        deadline = time.monotonic() + seconds
        self._partial = []
        seen = False
        while True:
            message = self._next(deadline, during)
            if message is None:
                raise self._fault(ImplementationHung, f"did not answer within {seconds:g} s", during)
            ident, kind, body = message
            if ident != request:
                if not seen and 0 < ident < request:
                    raise _LeftOver()
                raise self._misbehaved(WireError(f"a message for request {ident} while request "
                                                 f"{request} was in flight"), during)
            seen = True
            if kind == "event" and "ok" in kinds:
                if len(self._partial) >= MAX_ITEMS:
                    raise self._misbehaved(WireError(f"more than {MAX_ITEMS} events"), during)
                try:
                    self._partial.append(decode_event(body))
                except WireError as exc:
                    raise self._misbehaved(exc, during) from None
                continue
            if kind not in kinds:
                raise self._misbehaved(WireError(f"an unexpected {kind!r} message"), during)
            return kind, body

    def _left_over(self) -> bool:
        """Whether the child sent anything since the last reply (it should not have)."""
        if self._from is None:
            return False
        if self._frames.buffer:
            return True
        ready, _, _ = select.select([self._from], [], [], 0)
        return bool(ready)

    # -- requests -------------------------------------------------------------------------------

    def call(self, target: str, args: tuple[Any, ...], seconds: float, during: str) -> Any:
        """``target(adapter, *args)`` in the child (``target`` is ``module:function``)."""
        # A stray frame, or a submitted request nobody collects: start afresh.
        if self._proc is not None and (self._pending or self._left_over()):
            self.close()
            self.restarts += 1
        for attempt in (1, 2):
            try:
                return self._request(target, args, seconds, during)
            except _LeftOver:
                if attempt == 2:
                    raise self._misbehaved(WireError("left-over messages again on a new process"),
                                           during) from None
                self.close()
                self.restarts += 1
        raise AssertionError("unreachable")

    def _request(self, target: str, args: tuple[Any, ...], seconds: float, during: str) -> Any:
        return self.collect(self.submit(target, args), target, seconds, during)

    def submit(self, target: str, args: tuple[Any, ...]) -> int:
        """Send a request without waiting for its reply: its id, for :meth:`collect`. The child
        answers requests in the order they are sent, so they are collected in that order; a
        fault while collecting one loses the requests sent after it (the child is replaced)."""
        if self.tampered is not None:
            raise ImplementationTampered(self.tampered)
        self.start()
        assert self._to is not None
        self._last_id += 1
        request = self._last_id
        try:
            self._to.send((request, target, args))
        except (BrokenPipeError, OSError):  # it died between two requests
            raise self._fault(ImplementationCrashed, "crashed", "idle") from None
        self._pending.append(request)
        return request

    def collect(self, request: int, target: str, seconds: float, during: str) -> Any:
        """The reply to ``request`` (the oldest one in flight), decoded and checked."""
        if not self._pending or self._pending[0] != request:
            raise ImplementationCrashed(f"the implementation was replaced before it answered "
                                        f"while {during}")
        try:
            kind, body = self._receive(request, seconds, during,
                                       ("ok", "raised", "exited", "tampered"))
        finally:
            if self._pending and self._pending[0] == request:
                self._pending.pop(0)
        if kind == "tampered":
            self._tampered(body, during)
        try:
            reply = fields(body, "the reply", ("what",) if kind == "exited" else
                           ("value" if kind == "ok" else "error", "threads"))
            if kind == "exited":  # sys.exit() or the like: the child is gone too
                what = printable(text(reply["what"], "what it called"), 200)
                self.close()
                self.restarts += 1
                raise ImplementationCrashed(f"the implementation called {what} while {during}")
            threads = integer(reply["threads"], "threads")
            value = decode_result(target, reply["value"]) if kind == "ok" else decode_error(reply["error"])
        except WireError as exc:
            raise self._misbehaved(exc, during) from None
        if threads:  # the implementation's threads still run: they must not outlive this
            self.close()
        if kind == "raised":
            error = RemoteError(*value)
            error.partial = tuple(self._partial)
            raise error
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
        #: Whether a request has run on the implementation since its state was last reset.
        self._touched = False

    #: Seconds a whole test body run in the sandbox may take (the plugin sets --rule-timeout).
    body_seconds: float = 600.0
    #: --compile: each scenario runs eagerly and inside torch.compile (conformance.judge.compilecheck).
    compile: bool = False

    def call(self, target: str, *args: Any, seconds: float, during: str) -> Any:
        self._touched = True
        return self.sandbox.call(target, args, seconds, during)

    def submit(self, target: str, *args: Any) -> int:
        """Send a request now, collect its reply later (:meth:`Sandbox.submit`)."""
        self._touched = True
        return self.sandbox.submit(target, args)

    def collect(self, request: int, target: str, seconds: float, during: str) -> Any:
        return self.sandbox.collect(request, target, seconds, during)

    def reset(self, restart: bool = True) -> list[str]:
        """Clear any mode the implementation left behind; what was found. ``restart=False``:
        a child that is not running (it crashed or hung) has nothing to reset, so none is
        started (a restart belongs in a test, where its time limit costs that test only), and
        one where nothing has run since the last reset (a test skipped before its body, or a
        teardown after the test's own reset) is not asked again."""
        if not restart and (not self._touched or not self.sandbox.running()):
            return []
        found: list[str] = self.call("conformance.sandbox._child:reset", seconds=30.0,
                                     during="resetting")
        self._touched = False
        return found

    def close(self) -> None:
        self.sandbox.close()
