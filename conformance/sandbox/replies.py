"""What each request's reply holds: encoded to plain JSON in the child, checked in the suite.

A request names its target (``module:function``); the reply of each of the suite's own
targets has a fixed shape (:func:`encode_result`, :func:`decode_result`), and any other
target's result must be plain JSON data (:func:`plain`). The implementation's description
(:func:`decode_metadata`) and a request's error (:func:`decode_error`) are checked the same way.
See :mod:`conformance.sandbox.wire` for the frames that carry them.
"""

from __future__ import annotations

from typing import Any

from spec.boundary import Boundary

from ..base.safe import text_of
from .tracewire import decode_noise, decode_trace, encode_trace
from .wire import (
    _KEY,
    MAX_DEPTH,
    MAX_ITEMS,
    MAX_TEXT,
    NAME_SHOWN,
    TEXT_LIMIT,
    VERSION_SHOWN,
    WireError,
    choice,
    decode_naming,
    decode_texts,
    encode_naming,
    fields,
    flag,
    integer,
    items,
    optional_text,
    printable,
    rule_ids,
    text,
)

RESET = "conformance.sandbox._child:reset"
SCENARIO = "conformance.sandbox._child:run_scenario"
COMPILED = "conformance.sandbox._child:run_scenario_compiled"
BATCH = "conformance.sandbox._child:run_batch"
BODY = "conformance.sandbox._child:run_body"
#: The property under which run_body hands back the noise warnings a body raised.
NOISE_KEY = "tfmode_noise"
GENERATIONS = ("2022", "stack")
STACK_VERSIONS = ("1.13", "2.x")


def cut(value: str) -> str:
    """``value`` cut in its middle to MAX_TEXT characters (an implementation may raise megabytes)."""
    if len(value) <= MAX_TEXT:
        return value
    half = MAX_TEXT // 2
    return f"{value[:half]}…[{len(value) - MAX_TEXT} characters cut]…{value[-half:]}"


# -- results -----------------------------------------------------------------------------------


def encode_result(target: str, value: Any) -> Any:
    if target == SCENARIO:
        trace, naming, leaked = value
        return {"trace": encode_trace(trace), "naming": encode_naming(naming), "leaked": list(leaked)}
    if target == BATCH:
        return [encode_result(SCENARIO, one) for one in value]
    if target == COMPILED:
        eager, eager_naming, compiled, naming, compilation, leaked = value
        return {"eager": encode_trace(eager), "eager_naming": encode_naming(eager_naming),
                "compiled": encode_trace(compiled), "naming": encode_naming(naming),
                "compilation": compilation.as_dict(), "leaked": list(leaked)}
    if target == BODY:
        return encode_properties(value)
    return plain(value)


def decode_result(target: str, body: Any) -> Any:
    """The result of a request to ``target`` from its encoded ``body``; WireError if malformed."""
    if target == RESET:
        return decode_texts(body, "the state found by reset")
    if target == SCENARIO:
        r = fields(body, "the result", ("trace", "naming", "leaked"))
        return (decode_trace(r["trace"]), decode_naming(r["naming"]),
                decode_texts(r["leaked"], "the state left behind"))
    if target == BATCH:
        return [decode_result(SCENARIO, one) for one in items(body, "the batch's results")]
    if target == COMPILED:
        from ..target.compiled import Compilation

        r = fields(body, "the result", ("eager", "eager_naming", "compiled", "naming", "compilation",
                                        "leaked"))
        c = fields(r["compilation"], "the compilation", ("fullgraph", "breaks", "frames", "reason",
                                                          "crashed", "graphs", "ran", "boundary",
                                                          "ran_frames", "fell_back"))
        compilation = Compilation(flag(c["fullgraph"], "fullgraph"), integer(c["breaks"], "breaks"),
                                  integer(c["frames"], "frames"), text(c["reason"], "reason"),
                                  flag(c["crashed"], "crashed"), integer(c["graphs"], "graphs"),
                                  integer(c["ran"], "ran"), decode_boundary(c["boundary"]),
                                  tuple(decode_texts(c["ran_frames"], "ran_frames", 100)),
                                  integer(c["fell_back"], "fell_back"))
        return (decode_trace(r["eager"], "the eager trace"), decode_naming(r["eager_naming"]),
                decode_trace(r["compiled"], "the compiled trace"), decode_naming(r["naming"]),
                compilation, decode_texts(r["leaked"], "the state left behind"))
    if target == BODY:
        return decode_properties(body, "the properties")
    return decode_plain(body, "the result")


def plain(value: Any, depth: int = 0) -> Any:
    """``value`` as plain JSON data (tuples become lists); WireError if it holds anything else."""
    if depth > MAX_DEPTH:
        raise WireError(f"a result nested more than {MAX_DEPTH} deep")
    if value is None or type(value) in (bool, int, float):
        return value
    if type(value) is str:
        return cut(value)
    if type(value) in (list, tuple):
        return [plain(v, depth + 1) for v in value]
    if type(value) is dict and all(type(k) is str for k in value):
        return {k: plain(v, depth + 1) for k, v in value.items()}
    raise WireError(f"a result of type {type(value).__name__} is not plain data")


def decode_plain(value: Any, where: str, depth: int = 0) -> Any:
    if depth > MAX_DEPTH:
        raise WireError(f"{where}: nested more than {MAX_DEPTH} deep")
    if value is None or isinstance(value, (bool, int, float)):
        return value
    if isinstance(value, str):
        return text(value, where)
    if isinstance(value, list):
        return [decode_plain(v, where, depth + 1) for v in items(value, where)]
    if len(value) > MAX_ITEMS:
        raise WireError(f"{where}: an object of {len(value)} fields")
    return {text(k, where): decode_plain(v, where, depth + 1) for k, v in value.items()}


# -- a test body's recorded properties -------------------------------------------------------


def encode_properties(properties: list[tuple[str, object]]) -> list[list[Any]]:
    out: list[list[Any]] = []
    for key, value in properties:
        if key == NOISE_KEY:
            out.append([key, [[cut(text_of(c)), cut(text_of(t))] for c, t in value]])  # type: ignore[attr-defined]
        elif value is None or type(value) in (bool, int, float):
            out.append([cut(text_of(key)), value])
        else:
            out.append([cut(text_of(key)), cut(value if type(value) is str else text_of(value))])
    return out


def decode_properties(value: Any, where: str) -> list[tuple[str, Any]]:
    """``(key, value)`` pairs: keys of a plain form, values a scalar or a bounded text (the
    noise property: ``[category, text]`` pairs)."""
    out: list[tuple[str, Any]] = []
    for i, pair in enumerate(items(value, where, 10_000)):
        if not isinstance(pair, list) or len(pair) != 2:
            raise WireError(f"{where}[{i}]: expected [key, value]")
        key, got = text(pair[0], f"{where}[{i}]", 100), pair[1]
        if not _KEY.fullmatch(key):
            raise WireError(f"{where}[{i}]: {key!r} is not a property name")
        if key == NOISE_KEY:
            out.append((key, list(decode_noise(got, f"{where}[{i}]"))))
        elif got is None or isinstance(got, (bool, int, float)):
            out.append((key, got))
        else:
            out.append((key, text(got, f"{where}[{i}]")))
    return out


# -- errors ----------------------------------------------------------------------------------


def encode_error(type_name: str, message: str, rules: tuple[str, ...] | None = None,
                 properties: list[tuple[str, object]] | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": cut(type_name), "message": cut(message)}
    if rules is not None:
        body["rules"] = list(rules)
    if properties is not None:
        body["properties"] = encode_properties(properties)
    return body


def decode_error(body: Any) -> tuple[str, str, dict[str, Any]]:
    """``(type name, message, extra)``: ``extra`` may hold the ``rules`` a check of the suite
    named (their form checked; which the suite accepts is the suite's decision) and the
    ``properties`` a test body recorded."""
    e = fields(body, "the error", ("type", "message"), ("rules", "properties"))
    extra: dict[str, Any] = {}
    if "rules" in e:
        extra["rules"] = rule_ids(e["rules"], "the error's rules")
    if "properties" in e:
        extra["properties"] = decode_properties(e["properties"], "the error's properties")
    return printable(text(e["type"], "the error's type"), 200), text(e["message"], "the error"), extra


# -- the implementation's description ---------------------------------------------------------


def encode_metadata(adapter: Any) -> dict[str, Any]:
    def shown(value: Any) -> Any:
        return None if value is None else cut(text_of(value))

    return {"name": shown(adapter.name), "version": shown(adapter.version),
            "generation": shown(adapter.generation),
            "features": sorted(shown(f) for f in list(adapter.features)[:1000]),
            "stack_version": shown(getattr(adapter, "stack_version", None)),
            "release": shown(getattr(adapter, "release", None))}


def decode_metadata(body: Any) -> dict[str, Any]:
    """The implementation's description, checked: its name and version (and release) shown
    escaped and cut (:func:`~conformance.sandbox.wire.printable`), its generation, features and
    stack_version among the values they may take."""
    from ..target.adapter import FEATURES

    m = fields(body, "the description", ("name", "version", "generation", "features",
                                         "stack_version", "release"))
    release = optional_text(m["release"], "the release")
    stack_version = m["stack_version"]
    return {"name": printable(text(m["name"], "the name"), NAME_SHOWN),
            "version": printable(text(m["version"], "the version"), VERSION_SHOWN),
            "generation": choice(m["generation"], "the generation", GENERATIONS),
            "features": sorted({choice(f, "a feature", FEATURES)
                                for f in items(m["features"], "the features", len(FEATURES))}),
            "stack_version": None if stack_version is None
            else choice(stack_version, "the stack_version", STACK_VERSIONS),
            "release": None if release is None else printable(release, VERSION_SHOWN)}


__all__ = ["BODY", "COMPILED", "NOISE_KEY", "RESET", "SCENARIO", "TEXT_LIMIT", "cut", "decode_error",
           "decode_metadata", "decode_result", "encode_error", "encode_metadata", "encode_result"]


def decode_boundary(value: Any, where: str = "the compilation's boundary") -> Boundary:
    """Where the compiled run put the boundary of compilation (``spec.boundary``), as it says."""
    b = fields(value, where, ("outside", "graph_break", "made_inside"))
    brk = b["graph_break"]
    return Boundary(integer(b["outside"], f"{where}.outside", high=MAX_ITEMS),
                    None if brk is None else integer(brk, f"{where}.graph_break", high=MAX_ITEMS),
                    flag(b["made_inside"], f"{where}.made_inside"))
