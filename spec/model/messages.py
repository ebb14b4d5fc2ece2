"""Exact texts of the errors and warnings the rules specify, as message templates."""

from __future__ import annotations

from .trace import Message, Ref

PLAIN_METHOD_NATIVE = (
    "Defining your `__torch_function__` as a plain method is deprecated and will be an error "
    "in future, please define it as a classmethod."
)
# The Python path's text really lacks the closing backtick after __torch_function__.
PLAIN_METHOD_PYTHON = (
    "Defining your `__torch_function__ as a plain method is deprecated and will be an error "
    "in future, please define it as a classmethod."
)
MISSING_INNER = (
    "missing inner keyword argument; instead of constructing a TorchFunctionMode directly, "
    "pass the constructor to push_torch_function_mode"
)
ENABLE_NEEDS_HANDLER = (
    "The argument passed to enable_torch_function_mode must implement __torch_function__"
)
PUSH_MUST_RETURN_MODE = (
    "The callable passed to push_torch_function_mode must return a TorchFunctionMode"
)
EMPTY_STACK = "trying to pop from empty mode stack"
CLASSMETHOD_MODE_2X = (
    "Defining your mode's `__torch_function__` as a classmethod is not supported, please make it "
    "a plain method"
)
CLASSMETHOD_MODE_113 = (
    "TorchFunctionMode's torch_function function should be a normal method not a class method"
)
HELP_PUSH = "Use push_torch_function_mode instead."
HELP_IGNORE = (
    "If you intended to completely override the preexisting mode, pass "
    "ignore_preexisting=True.  This can result in unexpected behavior; please consider "
    "rewriting your mode to be a subclass of TorchFunctionMode to make it compositional!"
)


def _types_list(types: tuple[str, ...]) -> list[str | Ref]:
    parts: list[str | Ref] = ["["]
    for i, name in enumerate(types):
        if i:
            parts.append(", ")
        parts.append(Ref("type", name))
    parts.append("]")
    return parts


def no_implementation(func: str, types: tuple[str, ...], mode: str | None, *, python: bool) -> Message:
    """TFM_ERROR_001..004: the TypeError raised when every handler declined (each part tagged
    with the rule that decides it: the text, the types by repr, the mode suffix)."""
    parts: list[str | Ref] = ["no implementation found for '", Ref("func", func), "' on types that "]
    parts.append("implement __torch_function__: ")
    rules = [("TFM_ERROR_003",) if python else ("TFM_ERROR_001",)] * len(parts)
    listed = _types_list(types)
    parts.extend(listed)
    rules += [("TFM_ERROR_004",)] * len(listed)
    if mode is not None:
        if python:
            parts.extend([" nor in mode ", Ref("mode", mode)])
        else:
            parts.extend([" nor was it found on the currently active mode ", Ref("mode", mode)])
        rules += [("TFM_ERROR_003",) if python else ("TFM_ERROR_002",)] * 2
    return Message(tuple(parts), tuple(rules))


def multiple_dispatch_failed(func: str, types: tuple[str, ...], mode: str | None) -> Message:
    """TFM_STACK_012: torch 2.x's text when every handler of a native call declined."""
    parts: list[str | Ref] = ["Multiple dispatch failed for '", Ref("func", func),
                              "'; all __torch_function__ handlers returned NotImplemented:\n\n"]
    if mode is not None:
        parts += ["  - mode object ", Ref("mode", mode), "\n"]
    for name in types:
        parts += ["  - tensor subclass ", Ref("type", name), "\n"]
    parts.append("\nFor more information, try re-running with TORCH_LOGS=not_implemented")
    return Message(tuple(parts))


def already_active(old: str, *, target_is_mode: bool) -> Message:
    """TFM_ENABLE_003/004."""
    help_text = HELP_PUSH if target_is_mode else HELP_IGNORE
    return Message((
        "Attempted to enable_torch_function_mode, but there is already an active mode ",
        Ref("mode", old),
        ".  " + help_text,
    ))


def push_instance(mode: str) -> Message:
    """TFM_PUSH_005."""
    return Message((
        "Expected a TorchFunctionMode constructor function, but got an instance of TorchFunctionMode ",
        Ref("mode", mode),
        ".  Consider using enable_torch_function_mode instead.",
    ))


def enable_bad_type(target: str) -> Message:
    """TFM_ENABLE_008: ``target`` is ``@class:M`` (a mode class) or ``@object``."""
    shown = Ref("type", "@meta" if target.startswith("@class:") else "@object")
    return Message((
        "expected to get TorchFunctionMode, Tensor-like class, or None as argument, got ",
        shown,
        " instead",
    ))


def plain(text: str) -> Message:
    return Message((text,))
