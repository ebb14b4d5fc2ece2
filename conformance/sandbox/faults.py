"""How a request to the sandbox's child can fail, and what the child printed before it did.

:class:`ImplementationFault` and its kinds are the implementation's failures to answer (a crash,
a hang, a broken protocol); :class:`RemoteError` is a request that raised in the child.
:mod:`conformance.sandbox.parent` re-exports them all.
"""

from __future__ import annotations

import os
import signal
import threading
from collections import deque
from typing import Any

#: How much of the child's output is kept to explain a crash.
_TAIL_BYTES = 4096


class ImplementationFault(Exception):
    """The implementation under test did not answer a request: it crashed, hung, or broke the protocol.

    ``partial`` holds the events a scenario had shown before that (see _child._Streamed).
    """

    kind = "fault"
    #: The child's CPU time (user and system, all its threads) when it was killed for a hang;
    #: None when unknown (see conformance.sandbox.timing, which re-runs a time-out before it fails).
    cpu_seconds: float | None = None

    def __init__(self, message: str, partial: tuple[Any, ...] = ()) -> None:
        super().__init__(message)
        self.partial = partial


class ImplementationCrashed(ImplementationFault):
    kind = "crashed"


class ImplementationHung(ImplementationFault):
    kind = "hung"


class ImplementationMisbehaved(ImplementationFault):
    """The child sent what the protocol does not allow (see the module's docstring)."""

    kind = "misbehaved"


class ImplementationTampered(ImplementationFault):
    """The child's tripwire (conformance.sandbox.integrity) found the suite's own code changed in the
    implementation's process: nothing it reports can be believed, for the rest of the run."""

    kind = "tampered"


class RemoteError(Exception):
    """A request raised in the child; ``type_name`` and the message say what."""

    def __init__(self, type_name: str, message: str, extra: dict[str, Any]) -> None:
        super().__init__(message)
        self.type_name, self.message, self.extra = type_name, message, extra
        #: the events a scenario had shown before the request raised
        self.partial: tuple[Any, ...] = ()


def describe_exit(code: int | None) -> str:
    if code is None:
        return "the process did not exit"
    if code < 0:
        try:
            return f"the process was killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"the process was killed by signal {-code}"
    return f"the process exited with status {code}"


class Tail:
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
