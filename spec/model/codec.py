"""Scenario files: TOML or JSON to :class:`Scenario` and back, with one-line errors."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from .functions import FORMS, FUNCS, HANDED
from .scenario import (
    GENERATIONS,
    Action,
    Arg,
    Behaviour,
    Call,
    ClassDecl,
    Const,
    Construct,
    Default,
    DeferToTypes,
    Disable,
    Enable,
    EnableInside,
    Enter,
    Forward,
    ForwardAdd,
    ListArg,
    ModeDecl,
    NotImpl,
    Push,
    PushInside,
    PyFuncDecl,
    Raise,
    Redispatch,
    Return,
    Scenario,
    SetRaw,
    Step,
    TensorArg,
)
from .validate import ScenarioError, validate

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib


_WORD_ACTIONS: dict[str, Action] = {
    "notimpl": NotImpl(),
    "forward": Forward(),
    "forward_disabled": Forward(disable=True),
    "default": Default(),
    "defer_to_types": DeferToTypes(),
}
_NONE = "None"


def load_scenario(path: Path) -> Scenario:
    """Read a ``.toml`` or ``.json`` scenario file."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"{path}: not UTF-8 text (byte {exc.start})") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else tomllib.loads(text)
    except (json.JSONDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path}: not valid {path.suffix.lstrip('.').upper()}: {exc}") from None
    try:
        return scenario_from_dict(data)
    except ScenarioError as exc:
        raise ScenarioError(f"{path}: {exc}") from None


def _expect(cond: bool, where: str, problem: str) -> None:
    if not cond:
        raise ScenarioError(f"{where}: {problem}")


def _array(t: dict[str, Any], key: str, where: str) -> list[Any]:
    value = t.get(key, [])
    _expect(isinstance(value, list), where, f"{key} must be an array, got {type(value).__name__}")
    return list(value)


def _keys(d: Any, where: str, allowed: set[str],
          required: frozenset[str] | set[str] = frozenset()) -> dict[str, Any]:
    _expect(isinstance(d, dict), where, f"expected a table, got {type(d).__name__}")
    unknown = sorted(set(d) - allowed)
    if unknown:
        raise ScenarioError(f"{where}: unknown key {unknown[0]!r} "
                            f"(allowed: {', '.join(sorted(allowed))})")
    missing = sorted(required - set(d))
    if missing:
        raise ScenarioError(f"{where}: missing key {missing[0]!r}")
    return dict(d)


def action_from(d: Any, where: str) -> Action:
    if isinstance(d, str):
        _expect(d in _WORD_ACTIONS, where, f"unknown action {d!r} (one of {', '.join(_WORD_ACTIONS)}"
                " or a table with return/raise/redispatch/push/enable/add)")
        return _WORD_ACTIONS[d]
    kinds = {"return", "raise", "redispatch", "push", "enable", "add"}
    _expect(isinstance(d, dict) and len(kinds & set(d)) == 1, where,
            f"an action table needs exactly one of {', '.join(sorted(kinds))}")
    if "return" in d:
        t = _keys(d, where, {"return"})
        _expect(isinstance(t["return"], int) and not isinstance(t["return"], bool), where,
                "return takes an integer")
        return Return(t["return"])
    if "raise" in d:
        t = _keys(d, where, {"raise", "error"})
        _expect(isinstance(t["raise"], str), where, "raise takes a message string")
        error = t.get("error", "HandlerError")
        _expect(error in ("HandlerError", "TypeError"), where,
                "error takes \"HandlerError\" (the default) or \"TypeError\"")
        return Raise(t["raise"], error)
    if "add" in d:
        t = _keys(d, where, {"add"})
        _expect(isinstance(t["add"], int) and not isinstance(t["add"], bool), where,
                "add takes an integer (forward, then add it to a Tensor result)")
        return ForwardAdd(t["add"])
    if "redispatch" in d:
        t = _keys(d, where, {"redispatch", "reenter"})
        _expect(t["redispatch"] in FUNCS, where, f"unknown function {t['redispatch']!r}")
        return Redispatch(t["redispatch"], bool(t.get("reenter", False)))
    if "push" in d:
        t = _keys(d, where, {"push", "then"}, {"then"})
        return PushInside(str(t["push"]), action_from(t["then"], f"{where}.then"))
    t = _keys(d, where, {"enable", "then", "replace", "ignore_preexisting"}, {"then"})
    return EnableInside(str(t["enable"]), action_from(t["then"], f"{where}.then"),
                        t.get("replace"), bool(t.get("ignore_preexisting", False)))


def behaviour_from(d: Any, where: str, defined: frozenset[str] = frozenset()) -> Behaviour:
    """``defined``: the functions the scenario defines, which ``on`` may name too."""
    if isinstance(d, dict) and "default" in d:
        t = _keys(d, where, {"default", "on"})
        on = _keys(t.get("on", {}), f"{where}.on", set(FUNCS) | set(HANDED) | defined)
        return Behaviour(action_from(t["default"], f"{where}.default"),
                         tuple((k, action_from(v, f"{where}.on.{k}")) for k, v in on.items()))
    return Behaviour(action_from(d, where))


def arg_from(d: Any, where: str) -> Arg:
    if isinstance(d, list):
        return ListArg(tuple(arg_from(x, f"{where}[{i}]") for i, x in enumerate(d)))
    if isinstance(d, bool):
        raise ScenarioError(f"{where}: booleans are not arguments")
    if isinstance(d, int) or d is None or d == _NONE:
        return Const(None if d in (None, _NONE) else int(d))
    _expect(isinstance(d, str) and d != "", where, f"bad argument {d!r}")
    return TensorArg(None if d == "plain" else str(d))


def step_from(d: Any, where: str) -> Step:
    _expect(isinstance(d, dict), where, "a set-up step is a table")
    if "push" in d:
        t = _keys(d, where, {"push", "how"})
        _expect(t.get("how", "ctor") in ("ctor", "instance", "bad_ctor"), where,
                "how takes 'ctor', 'instance' or 'bad_ctor'")
        return Push(str(t["push"]), t.get("how", "ctor"))
    if "set_raw" in d:
        target = _keys(d, where, {"set_raw"})["set_raw"]
        return SetRaw(None if target in (None, _NONE) else str(target))
    if "construct" in d:
        return Construct(str(_keys(d, where, {"construct"})["construct"]))
    if "enter" in d:
        return Enter(str(_keys(d, where, {"enter"})["enter"]))
    if "disable" in d:
        t = _keys(d, where, {"disable"})
        _expect(t["disable"] in (True, "subclass"), where, "disable takes true or 'subclass'")
        return Disable(subclass_only=t["disable"] == "subclass")
    t = _keys(d, where, {"enable", "replace", "ignore_preexisting"}, {"enable"})
    target = t["enable"]
    return Enable(None if target in (None, _NONE) else str(target),
                  None if t.get("replace") in (None, _NONE) else str(t["replace"]),
                  bool(t.get("ignore_preexisting", False)))


_PROBES = ("sequence", "unary", "variadic")


def function_from(d: Any, where: str) -> PyFuncDecl:
    t = _keys(d, where, {"name", "params", "relevant", "probe", "keywords"}, {"name"})
    params = t.get("params", 1)
    _expect(isinstance(params, int) and not isinstance(params, bool) and 1 <= params <= 3, where,
            "params takes 1, 2 or 3")
    relevant = t.get("relevant", ["a"])
    _expect(isinstance(relevant, list) and all(isinstance(r, str) for r in relevant), where,
            "relevant is an array of parameter names (*name: a list parameter's elements)")
    probe = t.get("probe", "sequence")
    _expect(probe in _PROBES, where, f"probe takes one of {', '.join(_PROBES)}")
    keywords = t.get("keywords", 0)
    _expect(isinstance(keywords, int) and not isinstance(keywords, bool) and 0 <= keywords < params,
            where, "keywords takes 0 up to params - 1")
    return PyFuncDecl(str(t["name"]), params, tuple(relevant), probe, keywords)


def scenario_from_dict(d: Any) -> Scenario:
    t = _keys(d, "scenario", {"generation", "title", "functions", "classes", "modes", "setup", "call"})
    gen = t.get("generation", "2022")
    _expect(gen in GENERATIONS, "generation", f"unknown generation {gen!r}")
    functions = tuple(function_from(f, f"functions[{i}]")
                      for i, f in enumerate(_array(t, "functions", "scenario")))
    defined = frozenset(f.name for f in functions)
    classes = []
    for i, c in enumerate(_array(t, "classes", "scenario")):
        w = f"classes[{i}]"
        c = _keys(c, w, {"name", "parent", "kind", "handler", "behaviour"}, {"name"})
        handler = c.get("handler", "classmethod")
        _expect(handler in ("classmethod", "plain", "inherit", "disabled"), w,
                f"unknown handler {handler!r}")
        kind = c.get("kind", "tensor")
        _expect(kind in ("tensor", "duck"), w, f"unknown kind {kind!r}")
        has_code = handler in ("classmethod", "plain")
        _expect(has_code == ("behaviour" in c), w,
                "behaviour is required for classmethod/plain handlers and forbidden otherwise")
        beh = behaviour_from(c["behaviour"], f"{w}.behaviour", defined) if has_code else None
        parent = c.get("parent", "Tensor" if kind == "tensor" else "object")
        classes.append(ClassDecl(str(c["name"]), str(parent), kind, handler, beh))
    modes = []
    for i, m in enumerate(_array(t, "modes", "scenario")):
        w = f"modes[{i}]"
        m = _keys(m, w, {"name", "behaviour", "classmethod_handler"}, {"name", "behaviour"})
        modes.append(ModeDecl(str(m["name"]), behaviour_from(m["behaviour"], f"{w}.behaviour", defined),
                              bool(m.get("classmethod_handler", False))))
    setup = tuple(step_from(s, f"setup[{i}]") for i, s in enumerate(_array(t, "setup", "scenario")))
    call = None
    if "call" in t:
        c = _keys(t["call"], "call", {"func", "args", "kwargs", "thread"}, {"func"})
        _expect(isinstance(c["func"], str) and (c["func"] in FUNCS or c["func"] in FORMS
                                                or c["func"] in defined), "call",
                f"unknown function {c['func']!r}")
        kw = _keys(c.get("kwargs", {}), "call.kwargs", set(_kwarg_names()))
        call = Call(c["func"], tuple(arg_from(a, f"call.args[{i}]") for i, a in
                                     enumerate(_array(c, "args", "call"))),
                    tuple((k, arg_from(v, f"call.kwargs.{k}")) for k, v in kw.items()),
                    bool(c.get("thread", False)))
    scenario = Scenario(gen, tuple(classes), tuple(modes), setup, call, str(t.get("title", "")),
                        functions)
    validate(scenario)
    return scenario


def _kwarg_names() -> tuple[str, ...]:
    return ("input", "other", "alpha")  # only unary and binary functions take keywords


# -- back to plain data ---------------------------------------------------------


def action_to(a: Action) -> Any:
    for word, act in _WORD_ACTIONS.items():
        if a == act:
            return word
    if isinstance(a, Return):
        return {"return": a.value}
    if isinstance(a, Raise):
        return {"raise": a.message} if a.error == "HandlerError" else {"raise": a.message, "error": a.error}
    if isinstance(a, Redispatch):
        return {"redispatch": a.target, "reenter": a.reenter}
    if isinstance(a, ForwardAdd):
        return {"add": a.amount}
    if isinstance(a, PushInside):
        return {"push": a.mode, "then": action_to(a.then)}
    assert isinstance(a, EnableInside)
    out: dict[str, Any] = {"enable": a.mode, "then": action_to(a.then)}
    if a.replace is not None:
        out["replace"] = a.replace
    if a.ignore_preexisting:
        out["ignore_preexisting"] = True
    return out


def behaviour_to(b: Behaviour) -> Any:
    if not b.on:
        return action_to(b.default)
    return {"default": action_to(b.default), "on": {k: action_to(v) for k, v in b.on}}


def arg_to(a: Arg) -> Any:
    if isinstance(a, ListArg):
        return [arg_to(x) for x in a.items]
    if isinstance(a, Const):
        return _NONE if a.value is None else a.value
    return "plain" if a.cls is None else a.cls


def step_to(s: Step) -> dict[str, Any]:
    if isinstance(s, Push):
        return {"push": s.mode} | ({"how": s.how} if s.how != "ctor" else {})
    if isinstance(s, SetRaw):
        return {"set_raw": _NONE if s.target is None else s.target}
    if isinstance(s, Construct):
        return {"construct": s.mode}
    if isinstance(s, Enter):
        return {"enter": s.mode}
    if isinstance(s, Disable):
        return {"disable": "subclass" if s.subclass_only else True}
    out: dict[str, Any] = {"enable": _NONE if s.target is None else s.target}
    if s.replace is not None:
        out["replace"] = s.replace
    if s.ignore_preexisting:
        out["ignore_preexisting"] = True
    return out


def scenario_to_dict(s: Scenario) -> dict[str, Any]:
    out: dict[str, Any] = {"generation": s.generation}
    if s.title:
        out["title"] = s.title
    if s.functions:
        out["functions"] = [
            {"name": f.name, "params": f.params, "relevant": list(f.relevant)}
            | ({"probe": f.probe} if f.probe != "sequence" else {})
            | ({"keywords": f.keywords} if f.keywords else {})
            for f in s.functions
        ]
    if s.classes:
        out["classes"] = []
        for c in s.classes:
            entry: dict[str, Any] = {"name": c.name, "parent": c.parent, "kind": c.kind,
                                     "handler": c.handler}
            if c.behaviour is not None:
                entry["behaviour"] = behaviour_to(c.behaviour)
            out["classes"].append(entry)
    if s.modes:
        out["modes"] = [
            {"name": m.name, "behaviour": behaviour_to(m.behaviour)}
            | ({"classmethod_handler": True} if m.classmethod_handler else {})
            for m in s.modes
        ]
    if s.setup:
        out["setup"] = [step_to(x) for x in s.setup]
    if s.call is not None:
        call: dict[str, Any] = {"func": s.call.func, "args": [arg_to(a) for a in s.call.args]}
        if s.call.kwargs:
            call["kwargs"] = {k: arg_to(v) for k, v in s.call.kwargs}
        if s.call.thread:
            call["thread"] = True
        out["call"] = call
    return out
