"""What the sandbox's child sends back: plain JSON frames that the suite validates before use.

Requests go down the pipe pickled, ``(id, target, args)``: the suite's process is trusted.
Everything that comes up is untrusted, since the implementation runs in the child and can write
to its end of the pipe. So a reply is a *frame*: a 4-byte big-endian length, then that many
bytes (at most :data:`MAX_FRAME`) of JSON text, an object ``{"id": ID, "kind": KIND, "body":
BODY}``. Nothing in it can run code when it is read. ``id`` is the id of the request it answers
(0 while loading); ``kind`` is one of

``ready`` / ``load_error``
    the implementation's description (:func:`decode_metadata`), or why it cannot be loaded;
``event``
    one event of the scenario being run, sent as it happens (to blame a crash or a hang);
``ok`` / ``raised``
    the request's result, or the error it raised (:func:`decode_error`), with ``threads``:
    how many of the implementation's threads still run;
``exited``
    the implementation called ``sys.exit()`` (or the like) while answering.

The child encodes each value with this module (``encode_*``); the suite decodes it
(``decode_*``), checking every field's type, every text's length and every name against what
it may be, and raises :class:`WireError` for anything else. Traces are encoded field by field
from :mod:`spec.model.trace` (events here, a whole trace in :mod:`conformance.sandbox.tracewire`): an
observed trace carries no rules, so none travel.
"""

from __future__ import annotations

import json
import re
import struct
from typing import Any

from spec.catalogue import RULE_ID
from spec.model.trace import (
    ARG_TAGS,
    SEQUENCE_TAGS,
    ArgSeen,
    Constructed,
    Event,
    HandlerRun,
    Installed,
    Message,
    Ref,
    Settled,
    TensorValue,
    Value,
    WarningEmitted,
)

#: The largest frame the suite reads (a trace's texts are cut to MAX_TEXT each).
MAX_FRAME = 32 * 1024 * 1024
#: Texts longer than this are cut in the child before they travel (see _child._cut).
MAX_TEXT = 20000
#: The longest text a frame may hold: a cut text, with the note that says how much was cut.
TEXT_LIMIT = MAX_TEXT + 100
#: The most items of any one list (events, naming entries, properties, leaks).
MAX_ITEMS = 100_000
#: How deep a value (tuples of tuples) may nest.
MAX_DEPTH = 32
#: How much of the implementation's name and version (and release) the suite shows.
NAME_SHOWN, VERSION_SHOWN = 100, 64
#: What ends a shown text that was cut.
CUT = "…[cut]"

_HEADER = struct.Struct(">I")
KINDS = frozenset({"ready", "load_error", "event", "ok", "raised", "exited", "tampered"})
_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_.-]{0,99}")
_ROLES = ("mode", "subclass", "submode")
_REF_KINDS = ("type", "mode", "func", "text")
_NAMING_KINDS = ("type", "mode", "func")


class WireError(ValueError):
    """A message of the child breaks the protocol; the text (one line) says where and how."""


# -- frames ------------------------------------------------------------------------------------


def frame(request: int, kind: str, body: Any) -> bytes:
    """One frame: what the child writes (``body`` already encoded to plain JSON values)."""
    data = json.dumps({"id": request, "kind": kind, "body": body}, separators=(",", ":"),
                      ensure_ascii=True).encode("ascii")
    return _HEADER.pack(len(data)) + data


class Frames:
    """The suite's end: bytes read from the pipe in, messages ``(id, kind, body)`` out."""

    def __init__(self) -> None:
        self.buffer = bytearray()

    def feed(self, data: bytes) -> None:
        self.buffer += data

    def next(self) -> tuple[int, str, Any] | None:
        """The next whole message, or ``None`` until more bytes come; WireError if malformed."""
        if len(self.buffer) < _HEADER.size:
            return None
        (size,) = _HEADER.unpack_from(self.buffer)
        if size > MAX_FRAME:
            raise WireError(f"a frame of {size} bytes (more than {MAX_FRAME})")
        end = _HEADER.size + size
        if len(self.buffer) < end:
            return None
        payload = bytes(self.buffer[_HEADER.size:end])
        del self.buffer[:end]
        return parse(payload)


def parse(payload: bytes) -> tuple[int, str, Any]:
    try:
        message = json.loads(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WireError(f"a frame that is not JSON ({type(exc).__name__})") from None
    fields(message, "the message", ("id", "kind", "body"))
    ident = integer(message["id"], "the message's id", 0, 2**62)
    return ident, choice(message["kind"], "the message's kind", KINDS), message["body"]


# -- checking plain values ---------------------------------------------------------------------


def text(value: Any, where: str, limit: int = TEXT_LIMIT) -> str:
    if not isinstance(value, str):
        raise WireError(f"{where}: expected a string, got {type(value).__name__}")
    if len(value) > limit:
        raise WireError(f"{where}: a string of {len(value)} characters (at most {limit})")
    return value


def optional_text(value: Any, where: str, limit: int = TEXT_LIMIT) -> str | None:
    return None if value is None else text(value, where, limit)


def integer(value: Any, where: str, low: int = 0, high: int = 2**31) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise WireError(f"{where}: expected an integer from {low} to {high}, got {value!r:.40}")
    return value


def flag(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise WireError(f"{where}: expected true or false, got {type(value).__name__}")
    return value


def items(value: Any, where: str, limit: int = MAX_ITEMS) -> list[Any]:
    if not isinstance(value, list):
        raise WireError(f"{where}: expected a list, got {type(value).__name__}")
    if len(value) > limit:
        raise WireError(f"{where}: a list of {len(value)} items (at most {limit})")
    return value


def fields(value: Any, where: str, keys: tuple[str, ...], optional: tuple[str, ...] = ()) -> dict[str, Any]:
    """``value`` is an object with every key of ``keys``, maybe some of ``optional``, no other."""
    if type(value) is dict and len(value) == len(keys) and all(k in value for k in keys):
        return value  # the common case: exactly ``keys``
    if not isinstance(value, dict):
        raise WireError(f"{where}: expected an object, got {type(value).__name__}")
    missing = [k for k in keys if k not in value]
    unknown = [k for k in value if k not in keys and k not in optional]
    if missing or unknown:
        problem = f"no {missing[0]!r}" if missing else f"an unknown field {str(unknown[0])!r:.60}"
        raise WireError(f"{where}: {problem}")
    return value


def choice(value: Any, where: str, allowed: tuple[str, ...] | frozenset[str]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise WireError(f"{where}: {str(value)!r:.60} is not one of {', '.join(sorted(allowed))}")
    return value


def rule_ids(value: Any, where: str) -> tuple[str, ...]:
    """A list of rule IDs (their form only: the suite decides which it accepts)."""
    ids = tuple(text(r, where, 40) for r in items(value, where, 1000))
    bad = [r for r in ids if not RULE_ID.fullmatch(r)]
    if bad:
        raise WireError(f"{where}: {bad[0]!r} is not a rule ID")
    return ids


def printable(value: str, limit: int) -> str:
    """``value`` fit for a terminal line and a certificate: every character that does not print
    (controls, ANSI escapes, newlines, direction marks) and the backslash shown as its escape,
    and cut at ``limit`` characters, ending with CUT when it was cut."""
    out: list[str] = []
    size = 0
    for ch in value:
        piece = ch if ch.isprintable() and ch != "\\" else ch.encode("unicode_escape").decode("ascii")
        if size + len(piece) > limit:
            return "".join(out) + CUT
        out.append(piece)
        size += len(piece)
    return "".join(out)


# -- traces: encoded in the child, decoded here ------------------------------------------------


def encode_message(message: Message) -> list[Any]:
    return [p if isinstance(p, str) else {"ref": p.kind, "name": p.name} for p in message.parts]


def decode_message(value: Any, where: str) -> Message:
    parts: list[str | Ref] = []
    for i, part in enumerate(items(value, where, 1000)):
        if isinstance(part, str):
            parts.append(text(part, f"{where}[{i}]"))
        else:
            ref = fields(part, f"{where}[{i}]", ("ref", "name"))
            parts.append(Ref(choice(ref["ref"], f"{where}[{i}].ref", _REF_KINDS),  # type: ignore[arg-type]
                             text(ref["name"], f"{where}[{i}].name")))
    return Message(tuple(parts))


def encode_value(value: Value) -> Any:
    if isinstance(value, TensorValue):
        return {"tensor": value.cls, "data": list(value.data)}
    if isinstance(value, tuple):
        return [encode_value(v) for v in value]
    return value


def decode_value(value: Any, where: str, depth: int = 0) -> Value:
    if depth > MAX_DEPTH:
        raise WireError(f"{where}: nested more than {MAX_DEPTH} deep")
    if value is None or isinstance(value, (bool, int)):
        return value
    if isinstance(value, str):  # "?type": a result of no type the runner knows
        return text(value, where)  # type: ignore[return-value]
    if isinstance(value, list):
        return tuple(decode_value(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(items(value, where)))
    t = fields(value, where, ("tensor", "data"))
    data = items(t["data"], f"{where}.data")
    if not all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in data):
        raise WireError(f"{where}.data: expected numbers")
    return TensorValue(text(t["tensor"], f"{where}.tensor"), tuple(float(x) for x in data))


def encode_arg(arg: ArgSeen) -> list[Any]:
    tag, value = arg
    if tag in SEQUENCE_TAGS:
        assert isinstance(value, tuple)
        return [tag, [encode_arg(v) for v in value]]
    return [tag, value]


def decode_arg(value: Any, where: str, depth: int = 0) -> ArgSeen:
    """One described argument (:data:`spec.model.trace.ArgSeen`): ``[tag, payload]``."""
    if depth > MAX_DEPTH or not isinstance(value, list) or len(value) != 2:
        raise WireError(f"{where}: expected [tag, value] (nested at most {MAX_DEPTH} deep)")
    tag = choice(value[0], f"{where}[0]", tuple(ARG_TAGS))
    payload = value[1]
    if tag in SEQUENCE_TAGS:
        got = items(payload, where, 1000)
        if tag == "slice" and len(got) != 3:
            raise WireError(f"{where}: expected a slice's start, stop and step")
        return (tag, tuple(decode_arg(v, f"{where}[{i}]", depth + 1) for i, v in enumerate(got)))
    if tag in ("obj", "str", "other") or tag == "int":
        return (tag, text(payload, where, 1000) if tag != "int" else integer(payload, where, -(2**62), 2**62))
    if type(payload) not in ARG_TAGS[tag]:  # bool: true/false; float: a JSON number with a point
        raise WireError(f"{where}: expected a {tag}, got {type(payload).__name__}")
    return (tag, payload)


def _kwvalues(value: Any) -> tuple[tuple[str, ArgSeen], ...]:
    pairs = items(value, ".kwvalues", 1000)
    if not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
        raise WireError(".kwvalues: expected [key, value] pairs")
    return tuple((text(k, f".kwvalues[{i}]", 1000), decode_arg(v, f".kwvalues[{i}]"))
                 for i, (k, v) in enumerate(pairs))


def encode_event(event: Event) -> dict[str, Any]:
    if isinstance(event, HandlerRun):
        return {"t": "handler", "who": event.who, "role": event.role, "func": event.func,
                "types": list(event.types), "current": event.current, "bound": event.bound,
                "kwargs": None if event.kwargs is None else list(event.kwargs),
                "args": None if event.args is None else [encode_arg(a) for a in event.args],
                "kwvalues": None if event.kwvalues is None
                else [[k, encode_arg(v)] for k, v in event.kwvalues]}
    if isinstance(event, Constructed):
        return {"t": "constructed", "who": event.who, "inner": event.inner, "nargs": event.nargs}
    if isinstance(event, WarningEmitted):
        return {"t": "warning", "category": event.category, "message": encode_message(event.message)}
    if isinstance(event, Installed):
        return {"t": "installed", "index": event.index, "current": event.current}
    return {"t": "settled", "current": event.current}


_EVENT_FIELDS = {
    "handler": ("t", "who", "role", "func", "types", "current", "bound", "kwargs", "args",
                "kwvalues"),
    "constructed": ("t", "who", "inner", "nargs"),
    "warning": ("t", "category", "message"),
    "installed": ("t", "index", "current"),
    "settled": ("t", "current"),
}


def decode_event(value: Any, where: str = "the event") -> Event:
    try:
        return _event(value)
    except WireError as exc:
        raise WireError(f"{where}{exc}") from None


def _event(value: Any) -> Event:
    kind = choice(value.get("t") if isinstance(value, dict) else None, ".t", tuple(_EVENT_FIELDS))
    e = fields(value, "", _EVENT_FIELDS[kind])
    if kind == "handler":
        kwargs = e["kwargs"]
        return HandlerRun(text(e["who"], ".who"), choice(e["role"], ".role", _ROLES),  # type: ignore[arg-type]
                          text(e["func"], ".func"),
                          tuple(text(t, ".types") for t in items(e["types"], ".types")),
                          None if kwargs is None else tuple(
                              text(k, ".kwargs") for k in items(kwargs, ".kwargs")),
                          optional_text(e["current"], ".current"), optional_text(e["bound"], ".bound"),
                          args=None if e["args"] is None else tuple(
                              decode_arg(a, f".args[{i}]") for i, a in enumerate(items(e["args"], ".args"))),
                          kwvalues=None if e["kwvalues"] is None else _kwvalues(e["kwvalues"]))
    if kind == "constructed":
        return Constructed(text(e["who"], ".who"), optional_text(e["inner"], ".inner"),
                           integer(e["nargs"], ".nargs"))
    if kind == "warning":
        return WarningEmitted(text(e["category"], ".category"), decode_message(e["message"], ".message"))
    if kind == "installed":
        return Installed(integer(e["index"], ".index"), optional_text(e["current"], ".current"))
    return Settled(optional_text(e["current"], ".current"))


def encode_naming(naming: dict[tuple[str, str], str]) -> list[list[str]]:
    return [[kind, name, shown] for (kind, name), shown in naming.items()]


def decode_naming(value: Any, where: str = "the naming") -> dict[tuple[str, str], str]:
    naming: dict[tuple[str, str], str] = {}
    for i, entry in enumerate(items(value, where, 10_000)):
        if (type(entry) is list and len(entry) == 3 and entry[0] in _NAMING_KINDS
                and type(entry[1]) is str and type(entry[2]) is str
                and len(entry[1]) <= TEXT_LIMIT and len(entry[2]) <= TEXT_LIMIT):
            naming[(entry[0], entry[1])] = entry[2]  # the common case, checked at once
            continue
        if not isinstance(entry, list) or len(entry) != 3:
            raise WireError(f"{where}[{i}]: expected [kind, name, text]")
        key = (choice(entry[0], f"{where}[{i}]", _NAMING_KINDS), text(entry[1], f"{where}[{i}]"))
        naming[key] = text(entry[2], f"{where}[{i}]")
    return naming


def decode_texts(value: Any, where: str, limit: int = 1000) -> list[str]:
    return [text(x, where) for x in items(value, where, limit)]
