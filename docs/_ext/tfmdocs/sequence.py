"""A sequence diagram of one scenario, drawn from the model's prediction.

:func:`spec.model.predict` gives the trace: which handlers run, in what order, what each
sees. The trace is flat, so to draw who calls whom the scenario is also run on the model's
2022 engine with a few methods observed (``call``, ``call_mode``, ``_kernel``,
``default_handler``). The handler events of that run must equal the trace's; if they do
not, or the engine has changed shape, the diagram falls back to the trace alone (one arrow
from the caller per handler run).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from spec.model import predict
from spec.model.scenario import Scenario
from spec.model.trace import HandlerRun, Returned, Trace

from .svg import Svg, text_width

CALLER = "caller"
KERNEL = "kernel"


@dataclass
class Message:
    src: str
    dst: str
    label: str
    note: str = ""
    rules: tuple[str, ...] = ()
    ret: bool = False


@dataclass
class Diagram:
    participants: list[str] = field(default_factory=lambda: [CALLER])
    messages: list[Message] = field(default_factory=list)
    exact: bool = True

    def add(self, message: Message) -> None:
        for name in (message.src, message.dst):
            if name not in self.participants:
                self.participants.append(name)
        self.messages.append(message)


# -- showing values -----------------------------------------------------------------------


def _show(value: Any) -> str:
    cls = getattr(value, "cls", None)
    if cls is not None and hasattr(value, "data"):
        ident = getattr(value, "ident", None)
        if ident:
            return ident if cls == "Tensor" else f"{ident}:{cls}"
        return f"{cls}({', '.join(f'{x:g}' for x in value.data)})"
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_show(v) for v in value)
        return f"[{inner}]" if isinstance(value, list) else f"({inner})"
    return repr(value)


def _call_text(func: str, args: list[Any], kwargs: dict[str, Any]) -> str:
    parts = [_show(a) for a in args] + [f"{k}={_show(v)}" for k, v in kwargs.items()]
    return f"{func}({', '.join(parts)})"


# -- observing the engine -----------------------------------------------------------------


@dataclass
class _Frame:
    origin: str
    call: str
    handler: str | None = None
    slot: str | None = None


class _Observer:
    def __init__(self, diagram: Diagram) -> None:
        self.d = diagram
        self.frames: list[_Frame] = []
        self.runs: list[HandlerRun] = []

    def actor(self) -> str:
        for frame in reversed(self.frames):
            if frame.handler is not None:
                return frame.handler
        return CALLER

    def enter_call(self, text: str, slot: str | None) -> None:
        self.frames.append(_Frame(self.actor(), text, slot=slot))

    def handler(self, who: str, note: str, rules: tuple[str, ...]) -> None:
        frame = self.frames[-1]
        if frame.handler is not None:  # the previous handler of this dispatch declined
            self.d.add(Message(frame.handler, frame.origin, "NotImplemented", ret=True))
        frame.handler = who
        slot = "none" if frame.slot is None else frame.slot
        self.d.add(Message(frame.origin, who, frame.call, f"slot: {slot} · {note}", rules))

    def kernel(self, func: str, result: str) -> None:
        origin = self.frames[-1].origin
        self.d.add(Message(origin, KERNEL, func, "no handler: the computation itself",
                           ("TFM_TYPES_003",)))
        self.d.add(Message(KERNEL, origin, result, ret=True))

    def leave_call(self, result: str, raised_by_handler: bool | None) -> None:
        """``raised_by_handler``: None when the call returned, else who raised."""
        frame = self.frames.pop()
        if frame.handler is None:
            if raised_by_handler is not None:
                self.d.add(Message(frame.origin, frame.origin, result, ret=True))
            return
        if raised_by_handler is False:  # every handler declined: the dispatcher raises
            self.d.add(Message(frame.handler, frame.origin, "NotImplemented", ret=True))
            self.d.add(Message(frame.origin, frame.origin, result, ret=True))
        else:
            self.d.add(Message(frame.handler, frame.origin, result, ret=True))


def _observed(scenario: Scenario) -> Diagram | None:
    try:
        from spec.model import engine as engine_module

        base = engine_module.Engine
    except (ImportError, AttributeError):
        return None
    diagram = Diagram()
    obs = _Observer(diagram)
    seen: set[int] = set()

    class Observed(base):  # type: ignore[misc, valid-type]
        def call(self, func: str, args: Any, kwargs: Any, *rest: Any, **kw: Any) -> Any:
            obs.enter_call(_call_text(func, list(args), dict(kwargs)), self._label(self.current))
            try:
                result = super().call(func, args, kwargs, *rest, **kw)
            except engine_module.ModelRaise as exc:
                propagated = id(exc) in seen
                seen.add(id(exc))
                by_handler = propagated or exc.exc_type != "TypeError"
                obs.leave_call(f"raises {exc.exc_type}", by_handler)
                raise
            obs.leave_call(_show(result), None)
            return result

        def call_mode(self, mode: Any, *rest: Any, **kw: Any) -> Any:
            if getattr(mode, "kind", None) == "base":
                obs.handler("<base>", "passes the call through", ("TFM_PUSH_009",))
            return super().call_mode(mode, *rest, **kw)

        def default_handler(self, cls: str, *rest: Any, **kw: Any) -> Any:
            obs.handler(f"{cls} (default)", "Tensor.__torch_function__", ("TFM_DISABLE_004",))
            return super().default_handler(cls, *rest, **kw)

        def _kernel(self, func: str, *rest: Any, **kw: Any) -> Any:
            result = super()._kernel(func, *rest, **kw)
            obs.kernel(func, _show(result))
            return result

    engine = Observed(scenario)

    class Events(list):  # type: ignore[type-arg]
        def append(self, event: Any) -> None:
            super().append(event)
            if isinstance(event, HandlerRun):
                obs.runs.append(event)
                inside = "none" if event.current is None else event.current
                types = "(" + ", ".join(event.types) + ("," if len(event.types) == 1 else "") + ")"
                obs.handler(event.who, f"types={types} · inside: {inside}", tuple(event.rules))

    engine.events = Events(engine.events)
    engine.run()
    diagram.runs = obs.runs  # type: ignore[attr-defined]
    return diagram


def _from_trace(trace: Trace) -> Diagram:
    diagram = Diagram(exact=False)
    for event in trace.events:
        if isinstance(event, HandlerRun):
            inside = "none" if event.current is None else event.current
            diagram.add(Message(CALLER, event.who, event.func, f"inside: {inside}",
                                tuple(event.rules)))
    return diagram


def build(scenario: Scenario) -> tuple[Diagram, Trace, str]:
    """The diagram, the predicted trace, and why the diagram is flat ("" when it is not)."""
    trace = predict(scenario)
    expected = [e for e in trace.events if isinstance(e, HandlerRun)]
    problem = ""
    try:
        diagram = _observed(scenario)
    except Exception as exc:  # the engine changed shape
        diagram, problem = None, f"{type(exc).__name__}: {exc}"
    if diagram is None:
        problem = problem or "spec.model.engine has no Engine"
    elif getattr(diagram, "runs", None) != expected:
        problem = "the observed engine's handler runs differ from predict()'s"
    if problem:
        diagram = _from_trace(trace)
    if diagram.participants.count(KERNEL):
        diagram.participants.remove(KERNEL)
        diagram.participants.append(KERNEL)
    return diagram, trace, problem


# -- drawing ------------------------------------------------------------------------------


def render(key: str, scenario: Scenario) -> tuple[str, str, str]:
    """The SVG, its text description, and why it is drawn from the trace alone (or "")."""
    diagram, trace, problem = build(scenario)
    col_w, left, head_h, row_h = 180, 70, 40, 50
    width = left * 2 + col_w * (len(diagram.participants) - 1)
    height = head_h + 30 + row_h * len(diagram.messages) + 50
    svg = Svg(key, width, height, f"Sequence diagram: {scenario.title or 'scenario'}")
    x_of = {name: left + i * col_w for i, name in enumerate(diagram.participants)}

    def head(y: float) -> None:
        for name, x in x_of.items():
            label = {"<base>": "<base>"}.get(name, name)
            w = max(74, text_width(label, 12.5, mono=True) + 20)
            svg.box(x - w / 2, y, w, 30, [(label, True)],
                    "tfm-box tfm-participant" + (" tfm-kernel" if name == KERNEL else ""),
                    size=12.5)

    head(8)
    bottom = head_h + 30 + row_h * len(diagram.messages)
    for x in x_of.values():
        svg.polyline([(x, 38), (x, bottom)], "tfm-lifeline", arrow=False, dashed=True)
    # activation bars: open on an incoming call, close on the matching return
    depth: dict[str, list[float]] = {name: [] for name in x_of}
    bars: list[tuple[str, int, float, float]] = []
    start_y = head_h + 20
    depth[CALLER].append(start_y)
    for i, msg in enumerate(diagram.messages):
        y = head_h + 40 + i * row_h
        if msg.ret:
            if depth[msg.src]:
                level = len(depth[msg.src]) - 1
                bars.append((msg.src, level, depth[msg.src].pop(), y))
        elif msg.dst != KERNEL:
            depth[msg.dst].append(y)
        else:
            bars.append((KERNEL, 0, y, y + row_h))
    for name, opened in depth.items():
        while opened:
            level = len(opened) - 1
            bars.append((name, level, opened.pop(), bottom - 6))
    for name, level, y0, y1 in sorted(bars, key=lambda b: b[1]):
        svg.rect(x_of[name] - 5 + level * 6, y0, 10, max(8, y1 - y0), "tfm-box tfm-activation", 1)

    for i, msg in enumerate(diagram.messages):
        y = head_h + 40 + i * row_h
        x0, x1 = x_of[msg.src], x_of[msg.dst]
        if msg.src == msg.dst:
            svg.polyline([(x0 + 5, y - 8), (x0 + 44, y - 8), (x0 + 44, y + 6), (x0 + 11, y + 6)],
                         "tfm-line", dashed=msg.ret)
            tx, anchor = x0 + 50, "start"
        else:
            shift = 5 if x1 > x0 else -5
            svg.polyline([(x0 + shift, y), (x1 - shift, y)], "tfm-line", dashed=msg.ret)
            tx, anchor = (x0 + x1) / 2, "middle"
        svg.text(tx, y - 6 if msg.src != msg.dst else y - 12, msg.label,
                 "tfm-text" + (" tfm-muted" if msg.ret else ""), 13, anchor, mono=True)
        if msg.note:
            svg.text(tx, y + 15 if msg.src != msg.dst else y + 21, msg.note, "tfm-label", 11,
                     anchor)
    head(bottom + 4)
    outcome = trace.outcome
    result = (
        f"returns {outcome.value!r}" if isinstance(outcome, Returned)
        else f"raises {outcome.exc_type}"
    )
    svg.height = bottom + 44
    names = ", ".join(diagram.participants)
    description = (
        f"Sequence diagram predicted by the model for the scenario "
        f"'{scenario.title}'. Participants: {names}. {len(diagram.messages)} messages; "
        f"the call {result}."
    )
    if not diagram.exact:
        description += " (Drawn from the trace alone: call nesting is not shown.)"
    return svg.render(description), description, problem
