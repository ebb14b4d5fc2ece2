"""Directives that run the model at build time: figures, predicted traces, the function table,
and the check that the scenario-format page names every key the codec accepts."""

from __future__ import annotations

import ast
import itertools
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from spec.model import ScenarioError, load_scenario
from spec.model import predict as model_predict
from spec.model.functions import FUNCS
from spec.model.trace import HandlerRun, Installed, Raised, Returned, TensorValue, Trace, WarningEmitted

from . import data as tfm_data
from . import figures, sequence
from .inline import rule_ref
from .nodes import tfm_svg
from .rules import _table

logger = logging.getLogger(__name__)
_serial = itertools.count(1)


def _figure(directive: SphinxDirective, svg: str, description: str, name: str) -> nodes.figure:
    """A figure of inline SVG; the directive's content (reStructuredText) is the caption."""
    figure = nodes.figure(classes=["tfm-figure"], ids=[name])
    directive.state.document.ids[name] = figure
    figure += tfm_svg(svg=svg, alt=description)
    if directive.content:
        parsed = nodes.container()
        directive.state.nested_parse(directive.content, directive.content_offset, parsed)
        children = [n for n in parsed.children if isinstance(n, nodes.paragraph)]
        if len(children) != 1 or len(parsed.children) != 1:
            raise directive.error("the caption must be one paragraph")
        figure += nodes.caption("", "", *children[0].children)
    return figure


class FigureDirective(SphinxDirective):
    """``.. tfm-figure:: dispatch-order`` (or ``push-enable``), with an optional caption."""

    required_arguments = 1
    has_content = True

    def run(self) -> list[nodes.Node]:
        name = self.arguments[0]
        if name not in figures.FIGURES:
            raise self.error(f"no figure {name!r} (figures: {', '.join(figures.FIGURES)})")
        key = f"tfm-fig-{name}-{next(_serial)}"
        svg, description = figures.FIGURES[name](key)
        return [_figure(self, svg, description, f"figure-{name}")]


class _ScenarioDirective(SphinxDirective):
    required_arguments = 1
    has_content = True

    def scenario(self) -> Any:
        rel, path = self.env.relfn2path(self.arguments[0])
        self.env.note_dependency(rel)
        tfm_data.note_generated(self.env)
        try:
            return load_scenario(Path(path))
        except ScenarioError as exc:
            raise self.error(str(exc)) from None


class SequenceDirective(_ScenarioDirective):
    """``.. tfm-sequence:: scenarios/x.toml`` — the scenario's predicted sequence diagram."""

    def run(self) -> list[nodes.Node]:
        scenario = self.scenario()
        key = f"tfm-seq-{next(_serial)}"
        try:
            svg, description, problem = sequence.render(key, scenario)
        except Exception as exc:  # the model rejects the scenario
            raise self.error(f"the model cannot predict {self.arguments[0]}: "
                             f"{type(exc).__name__}: {exc}") from None
        if problem:
            logger.warning("the sequence diagram of %s shows the trace without call nesting: %s "
                           "(docs/_ext/tfmdocs/sequence.py observes spec.model.engine.Engine; "
                           "update it)", self.arguments[0], problem,
                           location=(self.env.docname, self.lineno), type="tfm",
                           subtype="sequence")
        return [_figure(self, svg, description, f"sequence-{Path(self.arguments[0]).stem}")]


# -- predicted traces ----------------------------------------------------------------------


def show_value(value: Any) -> str:
    if isinstance(value, TensorValue):
        return f"{value.cls}({list(value.data)})"
    if isinstance(value, tuple):
        return "(" + ", ".join(show_value(v) for v in value) + ("," if len(value) == 1 else "") + ")"
    return repr(value)


def _step_text(scenario: Any, index: int) -> str:
    step = scenario.setup[index]
    try:
        from spec.model.codec import step_to

        table = step_to(step)
        return "{ " + ", ".join(f"{k} = {_toml(v)}" for k, v in table.items()) + " }"
    except Exception:
        return repr(step)


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return repr(value)


def _mode(label: str | None) -> str:
    return "None" if label is None else label


def describe(event: Any, scenario: Any) -> list[nodes.Node]:
    """One event of a trace, in words."""
    if isinstance(event, Installed):
        return [nodes.Text(f"set-up step {event.index} entered: "),
                nodes.literal(text=_step_text(scenario, event.index)),
                nodes.Text(" — the current mode is now "),
                nodes.literal(text=_mode(event.current))]
    if isinstance(event, HandlerRun):
        types = "(" + ", ".join(event.types) + ("," if len(event.types) == 1 else "") + ")"
        kwargs = "None" if event.kwargs is None else (
            "a dict" if event.kwargs == ("*",) else "{" + ", ".join(event.kwargs) + "}")
        out: list[nodes.Node] = [
            nodes.Text(f"the {event.role} handler of "), nodes.literal(text=event.who),
            nodes.Text(" runs for "), nodes.literal(text=event.func),
            nodes.Text(" with types="), nodes.literal(text=types),
            nodes.Text(f", kwargs {kwargs}; inside it the current mode is "),
            nodes.literal(text=_mode(event.current)),
        ]
        if event.bound:
            out += [nodes.Text(" (bound to "), nodes.literal(text=event.bound), nodes.Text(")")]
        return out
    if isinstance(event, WarningEmitted):
        text = event.message.render()
        return [nodes.Text("warning "), nodes.literal(text=event.category), nodes.Text(": "),
                nodes.literal(text=text)]
    kind = type(event).__name__
    if kind == "Constructed":
        inner = getattr(event, "inner", None)
        out: list[nodes.Node] = [nodes.literal(text=event.who), nodes.Text(" is constructed, ")]
        if inner == "-":
            return [*out, nodes.Text("with no inner at all")]
        return [*out, nodes.Text("with "), nodes.literal(text=f"inner = {_mode(inner)}")]
    if kind == "Settled":
        return [nodes.Text("the call is over; the current mode is "),
                nodes.literal(text=_mode(getattr(event, "current", None)))]
    fields = getattr(event, "__dataclass_fields__", {})
    shown = ", ".join(f"{k}={getattr(event, k)!r}" for k in fields if k not in ("rules", "why"))
    return [nodes.Text(f"{type(event).__name__}: "), nodes.literal(text=shown)]


def trace_rows(trace: Trace, scenario: Any, docname: str) -> list[list[list[nodes.Node]]]:
    rows: list[list[list[nodes.Node]]] = []
    notes = sorted(getattr(trace, "notes", ()), key=lambda n: n[0])

    def rules(ids: tuple[str, ...]) -> list[nodes.Node]:
        out: list[nodes.Node] = []
        for rule in ids:
            if out:
                out.append(nodes.Text(" "))
            out.append(rule_ref(rule, docname))
        return out

    def add_notes(upto: int) -> None:
        while notes and notes[0][0] <= upto:
            _, note = notes.pop(0)
            rows.append([[nodes.Text("")], [nodes.emphasis(text=note.text)], rules(note.rules)])

    for index, event in enumerate(trace.events):
        add_notes(index)
        rows.append([[nodes.Text(str(index + 1))], describe(event, scenario),
                     rules(tuple(getattr(event, "rules", ())))])
    add_notes(len(trace.events) + 1)
    outcome = trace.outcome
    if isinstance(outcome, Returned):
        text: list[nodes.Node] = [nodes.strong(text="the call returns "),
                                  nodes.literal(text=show_value(outcome.value))]
    else:
        assert isinstance(outcome, Raised)
        text = [nodes.strong(text="the call raises "), nodes.literal(text=outcome.exc_type),
                nodes.Text(": "), nodes.literal(text=outcome.message.render())]
    rows.append([[nodes.Text("→")], text, rules(tuple(outcome.rules))])
    rows.append([[nodes.Text("")],
                 [nodes.Text("after the set-up steps exit, the current mode is "),
                  nodes.literal(text=_mode(trace.after))], []])
    return rows


class TraceDirective(_ScenarioDirective):
    """``.. tfm-trace:: scenarios/x.toml`` — the predicted trace, step by step, with rules."""

    def run(self) -> list[nodes.Node]:
        scenario = self.scenario()
        try:
            trace = model_predict(scenario)
        except Exception as exc:
            raise self.error(f"the model cannot predict {self.arguments[0]}: "
                             f"{type(exc).__name__}: {exc}") from None
        rows = trace_rows(trace, scenario, self.env.docname)
        return [_table([4, 70, 26], ["#", "what happens", "decided by"], rows, ["tfm-trace"])]


class FunctionsDirective(SphinxDirective):
    """``.. tfm-functions::`` — the overridable functions the model knows."""

    def run(self) -> list[nodes.Node]:
        tfm_data.note_generated(self.env)
        rows = []
        for info in FUNCS.values():
            traits = []
            if getattr(info, "method", False):
                traits.append("method")
            if getattr(info, "alpha", False):
                traits.append("takes alpha=")
            rows.append([[nodes.literal(text=info.name)], [nodes.Text(info.path)],
                         [nodes.Text(info.shape)], [nodes.Text(info.family or "—")],
                         [nodes.Text(", ".join(traits) or "—")]])
        return [_table([22, 12, 14, 14, 20], ["func", "path", "shape", "family", "notes"],
                       rows, ["tfm-functions"])]


# -- the scenario-format page names every key and word of the codec -----------------------


def codec_terms(path: Path) -> set[str]:
    """Keys passed to ``_keys(...)`` and words tested with ``in (...)`` in ``codec.py``."""
    module = ast.parse(path.read_text(encoding="utf-8"))
    returns: dict[str, set[str]] = {}
    for node in module.body:
        if isinstance(node, ast.FunctionDef):
            for sub in ast.walk(node):
                if isinstance(sub, ast.Return) and isinstance(sub.value, ast.Tuple):
                    returns[node.name] = {e.value for e in sub.value.elts
                                          if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    terms: set[str] = set()
    for node in ast.walk(module):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "_keys" and len(node.args) >= 3):
            for arg in node.args[2:]:
                if isinstance(arg, ast.Set):
                    terms |= {e.value for e in arg.elts
                              if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                elif (isinstance(arg, ast.Call) and isinstance(arg.func, ast.Name)
                      and arg.func.id == "set" and arg.args
                      and isinstance(arg.args[0], ast.Call)
                      and isinstance(arg.args[0].func, ast.Name)):
                    terms |= returns.get(arg.args[0].func.id, set())
        elif isinstance(node, ast.Compare) and any(isinstance(op, ast.In) for op in node.ops):
            for comp in node.comparators:
                if isinstance(comp, ast.Tuple):
                    terms |= {e.value for e in comp.elts
                              if isinstance(e, ast.Constant) and isinstance(e.value, str)}
        elif (isinstance(node, (ast.Assign, ast.AnnAssign)) and isinstance(node.value, ast.Dict)
              and any(isinstance(t, ast.Name) and t.id == "_WORD_ACTIONS"
                      for t in (node.targets if isinstance(node, ast.Assign) else [node.target]))):
            terms |= {k.value for k in node.value.keys
                      if isinstance(k, ast.Constant) and isinstance(k.value, str)}
    try:
        from spec.model import scenario as scenario_module

        terms |= set(getattr(scenario_module, "GENERATIONS", ()))
        terms |= set(getattr(scenario_module, "SPECIAL_TARGETS", ()))
    except ImportError:
        pass
    return terms


def check_format_page(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    if env.docname != app.config.tfm_scenario_format_doc:
        return
    data = tfm_data.load(app)
    codec = data.root / "spec" / "model" / "codec.py"
    env.note_dependency(str(codec))
    tfm_data.note_generated(env)
    shown = {n.astext().strip().strip('"') for n in doctree.findall(nodes.literal)}
    for term in sorted(codec_terms(codec)):
        if term in shown or (term.endswith(":") and any(s.startswith(term) for s in shown)):
            continue
        logger.warning("the scenario format page does not document %r, which %s accepts",
                       term, codec.relative_to(data.root), location=env.docname,
                       type="tfm", subtype="codec")

