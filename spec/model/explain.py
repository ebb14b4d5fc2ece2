"""Renders a predicted trace step by step, each step with the rules that decide it."""

from __future__ import annotations

from .codec import action_to, arg_to, step_to
from .functions import FORMS, written
from .scenario import Call, Scenario, TensorArg
from .trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    NONE_PASSED,
    Constructed,
    Event,
    HandlerRun,
    Installed,
    Note,
    Raised,
    Settled,
    TensorValue,
    Trace,
    Value,
    WarningEmitted,
)


def _rules(rules: tuple[str, ...]) -> str:
    return f"  [{', '.join(rules)}]" if rules else ""


def show_value(value: Value) -> str:
    if isinstance(value, TensorValue):
        return f"{value.cls}({list(value.data)})"
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ")"
    return repr(value)


def describe_event(event: Event, scenario: Scenario) -> str:
    if isinstance(event, Constructed):
        inner = "no inner" if event.inner == "-" else f"inner={event.inner}"
        return f"{event.who} is constructed ({inner}){_rules(event.rules)}"
    if isinstance(event, Installed):
        step = step_to(scenario.setup[event.index])
        return f"set-up step {event.index} {step} entered: current mode {event.current}{_rules(event.rules)}"
    if isinstance(event, Settled):
        return f"the call is over: current mode {event.current}{_rules(event.rules)}"
    if isinstance(event, WarningEmitted):
        return f"{event.category}: {event.message.render()}{_rules(event.rules)}"
    assert isinstance(event, HandlerRun)
    shown: dict[tuple[str, ...] | None, str] = {None: "None", ANY_DICT: "a dict",
                                                     NONE_OR_EMPTY: "None or {}",
                                                     NONE_PASSED: "None (a fourth argument)"}
    kwargs = shown.get(event.kwargs, "{" + ", ".join(event.kwargs or ()) + "}")
    bound = f", bound to {event.bound}" if event.bound else ""
    return (f"{event.role} {event.who}: __torch_function__({event.func}, types=({', '.join(event.types)}"
            f"{',' if len(event.types) == 1 else ''}), kwargs={kwargs}{bound}); current mode inside: "
            f"{event.current}{_rules(event.rules)}")


def render(scenario: Scenario, trace: Trace) -> str:
    """The explanation ``python -m spec explain`` prints."""
    lines = [f"scenario ({scenario.generation} design){': ' + scenario.title if scenario.title else ''}"]
    for f in scenario.functions:
        probe = {"sequence": "has_torch_function", "unary": "has_torch_function_unary",
                 "variadic": "has_torch_function_variadic"}[f.probe]
        keywords = f"; {', '.join(f.names[f.params - f.keywords:])} by keyword" if f.keywords else ""
        lines.append(f"  def {f.name}({', '.join(f.names)}): {probe} and handle_torch_function "
                     f"over ({', '.join(f.relevant)}){keywords}")
    for cls in scenario.classes:
        behaviour = "" if cls.behaviour is None else f", handler does {action_to(cls.behaviour.default)}"
        lines.append(f"  class {cls.name}({cls.parent}): {cls.handler} handler{behaviour}")
    for mode in scenario.modes:
        kind = "classmethod handler" if mode.classmethod_handler else "handler"
        lines.append(f"  mode {mode.name}: {kind} does {action_to(mode.behaviour.default)}"
                     + "".join(f"; on {f}: {action_to(a)}" for f, a in mode.behaviour.on))
    if scenario.call is not None:
        call = scenario.call
        args = [str(arg_to(a)) for a in call.args] + [f"{k}={arg_to(v)}" for k, v in call.kwargs]
        shown = (_form_shown(call) if call.func in FORMS
                 else f"{call.func}({', '.join(args)})")
        lines.append(f"  call {shown}{' in a new thread' if call.thread else ''}")
    lines.append("prediction:")
    notes: dict[int, list[Note]] = {}
    for index, note in trace.notes:
        notes.setdefault(index, []).append(note)
    step = 0
    for i in range(len(trace.events) + 1):
        for note in notes.get(i, []):
            lines.append(f"      ({note.text}){_rules(note.rules)}")
        if i < len(trace.events):
            step += 1
            lines.append(f"  {step:>2}. {describe_event(trace.events[i], scenario)}")
    outcome = trace.outcome
    if isinstance(outcome, Raised):
        lines.append(f"outcome: raises {outcome.exc_type}: {outcome.message.render()}{_rules(outcome.rules)}")
    else:
        lines.append(f"outcome: returns {show_value(outcome.value)}{_rules(outcome.rules)}")
    lines.append(f"afterwards: current mode {trace.after}{_rules(trace.after_rules)}")
    return "\n".join(lines)


def _form_shown(call: Call) -> str:
    """A call written as syntax, its tensors named as the model numbers them (x0, x1, ...)."""
    names: list[str] = []
    kinds: list[str] = []
    for arg in call.args:
        if isinstance(arg, TensorArg):
            names.append(f"x{len(kinds)}")
            kinds.append(f"x{len(kinds)} {arg.cls or 'plain'}")
        else:
            names.append(str(arg_to(arg)))
    return f"{written(FORMS[call.func], names)} (written as syntax; {', '.join(kinds)})"

