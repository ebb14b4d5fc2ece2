"""What every ``wire_*`` implementation shares: reference_impl's ``mean`` replaced by one that
raises (so that no run of them can honestly pass), and the child's end of the reply pipe."""

from __future__ import annotations

import json
import os
import struct
import sys

from tests.faults import MEAN
from tests.mutants._build import Mutation

#: The line of reference_impl's ``add`` that the attacks in add replace.
ADD = '    return dispatch(add, "reference_impl.add", add_kernel, args, kwargs)\n'
#: How a mutated function of the copy reaches this module (the copy is built from source).
CALL = '    __import__("tests.hostile._base", fromlist=["_"]).{}()\n'


def mean_raises(before: str = "", raised: str = 'ValueError("mean is broken")') -> Mutation:
    """``mean`` runs ``before`` (source lines, indented by four), then raises ``raised``."""
    return Mutation("_functions.py", MEAN, f"{before}    raise {raised}\n")


def in_child() -> bool:
    """Whether this import runs in the sandbox's child (not in a test that imports the module)."""
    return sys.argv[0].endswith("_child.py")


def _reply_fd() -> int:
    return int(sys.argv[2])  # the child's command line: READ_FD WRITE_FD SPEC PARENT_PID ORIGIN


def garbage() -> None:
    """Eight bytes that are no reply: a frame of four bytes, ``junk``."""
    if in_child():
        os.write(_reply_fd(), b"\x00\x00\x00\x04junk")


def extra_reply() -> None:
    """A second, well-formed reply to the request in flight (its id read from the child's
    globals, written in the sandbox's own frame format), before the real one."""
    if in_child():
        child = sys.modules.get("conformance.sandbox._child")
        data = json.dumps({"id": getattr(child, "_REQUEST", 1), "kind": "ok",
                           "body": {"value": None, "threads": 0}}).encode()
        os.write(_reply_fd(), struct.pack(">I", len(data)) + data)


def blame_elsewhere() -> None:
    """Inside the suite's keyword check only, raise an exception that names another rule."""
    frame = sys._getframe(1)
    while frame is not None:
        if frame.f_code.co_name == "_checked_add":
            exc = ValueError("add is broken where the suite checks it")
            exc.rules = ("TFM_STACK_001",)  # type: ignore[attr-defined]
            raise exc
        frame = frame.f_back  # type: ignore[assignment]


class Unprintable(Exception):
    """An exception that cannot be printed: its ``__str__`` and ``__repr__`` raise."""

    def __str__(self) -> str:
        raise RuntimeError("no text for you")

    def __repr__(self) -> str:
        raise RuntimeError("no repr either")


Unprintable.__name__ = Unprintable.__qualname__ = "ValueError"  # as wire_plain's mean raises
