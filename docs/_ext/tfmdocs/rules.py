"""The rule pages: ``tfm-area`` (one area, every rule with its anchor), ``tfm-rule-table``,
``tfm-area-toctree`` and the ``:rule:`` role."""

from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.addnodes import pending_xref
from sphinx.util.docutils import SphinxDirective

from spec.catalogue import Area, Rule
from spec.holds import STACK_DIVERGENCES, stack_releases

from . import data as tfm_data
from .inline import RULE_ID, paragraphs, rule_ref
from .texts import rule_texts


def _register_anchor(directive: SphinxDirective, rule: Rule, section: nodes.section) -> None:
    """Make ``:ref:`TFM_X_NNN``` (and the figures' links) find the rule's section."""
    std: Any = directive.env.get_domain("std")
    key = rule.id.lower()
    docname = directive.env.docname
    old = std.anonlabels.get(key)
    if old is not None and old[0] != docname:
        directive.state.document.reporter.warning(
            f"rule {rule.id} is already shown in {old[0]}", line=directive.lineno)
    std.anonlabels[key] = (docname, rule.id)
    std.labels[key] = (docname, rule.id, f"{rule.id} {rule.title}")
    directive.state.document.ids[rule.id] = section


def _badge(text: str, *classes: str) -> nodes.inline:
    return nodes.inline(text, text, classes=["tfm-badge", *classes])


def generation_label(rule: Rule, generation: str) -> str:
    """``2022``, ``stack``, or ``stack (torch 2.x)`` for a version-qualified rule."""
    versions = getattr(rule, "versions", ())
    if generation == "stack" and versions:
        return f"stack (torch {', '.join(versions)})"
    return generation


def level_class(level: str) -> str:
    return "tfm-level-" + level.lower().replace(" ", "-")


def _rubric(text: str) -> nodes.rubric:
    return nodes.rubric(text, text, classes=["tfm-rubric"])


def _bullets(items: list[list[nodes.Node]]) -> nodes.bullet_list:
    out = nodes.bullet_list()
    for children in items:
        out += nodes.list_item("", nodes.paragraph("", "", *children))
    return out


class AreaDirective(SphinxDirective):
    """``.. tfm-area:: ORDER`` — the whole page of one area, from the catalogue."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        data = tfm_data.load(self.env.app)
        try:
            area = data.catalogue.area(self.arguments[0].strip().upper())
        except KeyError:
            names = ", ".join(a.name for a in data.catalogue.areas)
            raise self.error(
                f"no area {self.arguments[0]!r} in the catalogue (areas: {names})") from None
        if self.env.docname != data.area_docname(area.name):
            raise self.error(f"area {area.name} belongs in {data.area_docname(area.name)}.rst")
        tfm_data.note_generated(self.env)
        for name in (f"spec/rules/{area.name.lower()}.toml",):
            self.env.note_dependency(str(data.root / name))
        return [self.area_section(area, data)]

    def area_section(self, area: Area, data: tfm_data.Data) -> nodes.section:
        docname = self.env.docname
        section = nodes.section(ids=[f"area-{area.name.lower()}"], names=[f"area {area.name.lower()}"])
        self.state.document.ids[section["ids"][0]] = section
        section += nodes.title(area.title, area.title)
        count = len(area.rules)
        musts = sum(1 for r in area.rules if r.level.startswith("MUST"))
        meta = nodes.paragraph(classes=["tfm-area-meta"])
        meta += nodes.Text("Area ")
        meta += nodes.literal(area.name, area.name)
        meta += nodes.Text(f" · {count} rule{'s' if count != 1 else ''}"
                           f" ({musts} MUST/MUST NOT) · from ")
        meta += nodes.literal(f"spec/rules/{area.name.lower()}.toml",
                              f"spec/rules/{area.name.lower()}.toml")
        section += meta
        section.extend(paragraphs(area.summary, docname))
        for rule in area.rules:
            section += self.rule_section(rule, data)
        return section

    def rule_section(self, rule: Rule, data: tfm_data.Data) -> nodes.section:
        docname = self.env.docname
        section = nodes.section(ids=[rule.id], classes=["tfm-rule"])
        _register_anchor(self, rule, section)
        title = f"{rule.id} — {rule.title}"
        section += nodes.title(title, title)

        meta = nodes.paragraph(classes=["tfm-rule-meta"])
        meta += _badge(rule.level, "tfm-level", level_class(rule.level))
        for generation in rule.generations:
            meta += nodes.Text(" ")
            meta += _badge(f"generation {generation_label(rule, generation)}", "tfm-generation")
        if rule.uncertainty:
            meta += nodes.Text(" ")
            meta += _badge("uncertain", "tfm-uncertain-badge")
        section += meta

        statement = nodes.container(classes=["tfm-statement"])
        statement.extend(paragraphs(rule.statement, docname, levels=True))
        section += statement
        section.extend(rule_texts(rule.id, doc_link("/texts", "Texts per release", docname),
                                  getattr(rule, "texts", ())))

        section += _rubric("Rationale")
        section.extend(paragraphs(rule.rationale, docname))

        section += _rubric("Evidence")
        items: list[list[nodes.Node]] = []
        for evidence in rule.evidence:
            children: list[nodes.Node] = [
                _badge(evidence.kind, "tfm-evidence-kind", f"tfm-evidence-{evidence.kind}"),
                nodes.Text(" "),
                nodes.literal(evidence.ref, evidence.ref, classes=["tfm-evidence-ref"]),
                nodes.Text(" — "),
            ]
            for para in paragraphs(evidence.note, docname):
                children.extend(para.children)
            items.append(children)
        section += _bullets(items)

        if rule.uncertainty:
            admonition = nodes.admonition(classes=["tfm-uncertainty", "caution"])
            admonition += nodes.title("Uncertainty", "Uncertainty")
            admonition.extend(paragraphs(rule.uncertainty, docname))
            section += admonition

        section += _rubric("Across torch releases")
        section += _releases(rule.id, data, docname)

        section += _rubric("Example")
        section.extend(_example(rule, rule.example, getattr(rule, "example_impl", "reference_impl"),
                                data))
        stack = getattr(rule, "example_stack", None)
        if stack:
            heading = f"Example in the stack generation's API (torch {stack_releases(rule)})"
            section += _rubric(heading)
            section.extend(_example(rule, stack, "torch", data, stack=True))
            for (diverging, version), reason in STACK_DIVERGENCES.items():
                if diverging == rule.id:
                    text = f"Torch {version} breaks the rule in this very scenario: {reason}."
                    section += nodes.paragraph(text, text, classes=["tfm-example-note"])

        section += _rubric("Tests")
        tests = data.covered.get(rule.id, [])
        if tests:
            section += _bullets([[nodes.literal(t, t)] for t in tests])
        else:
            section += nodes.paragraph("", "", nodes.emphasis("no test yet", "no test yet"),
                                       classes=["tfm-untested"])
        return section


def _example(rule: Rule, example: str, impl: str, data: tfm_data.Data,
             stack: bool = False) -> list[nodes.Node]:
    """An example's doctest block, with a note and a ``skipif`` when it runs against torch."""
    out: list[nodes.Node] = []
    if impl != "reference_impl":
        text = (f"This example runs against {impl} itself; the documentation build runs it "
                f"only where a {impl} it applies to is installed.")
        out.append(nodes.paragraph(text, text, classes=["tfm-example-note"]))
    code = example.strip("\n") + "\n"
    group = f"{rule.id}-stack" if stack else rule.id
    block = nodes.literal_block(code, code, testnodetype="doctest", groups=[group],
                                options={}, language="pycon", classes=["tfm-example"])
    if impl != "reference_impl":
        block["skipif"] = (f"not __import__('tfmdocs.runnable').runnable.runnable({rule.id!r}"
                           f"{', stack=True' if stack else ''})")
    block.source = f"{data.root / 'spec' / 'rules' / (rule.area.lower() + '.toml')}"
    block.line = None
    out.append(block)
    return out


@functools.cache
def _torch_history(root: str) -> tuple[list[dict[str, Any]], dict[tuple[str, str], Any]]:
    """The committed eager torch certificates (oldest first) and their divergences."""
    from conformance import matrix
    from conformance.tools import evolution

    loaded = [json.loads(path.read_text(encoding="utf-8"))
              for path in matrix.columns(Path(root) / matrix.CERTIFICATES)]
    torch = [c for c in loaded if c["implementation"]["name"] == "torch" and not matrix.compiled(c)]
    return torch, evolution.divergences(torch, Path(root) / matrix.EXPECTED_FAILURES)


def _releases(rule_id: str, data: tfm_data.Data, docname: str) -> nodes.Node:
    """The rule's verdict on each committed torch release, each divergence linked to its
    reason and snippet on the matrix page."""
    from conformance.tools.evolution import release_of, spans, status_of

    certificates, groups = _torch_history(str(data.root))
    if not certificates:
        return nodes.paragraph("", "no torch release has a committed certificate yet")
    order = [release_of(c) for c in certificates]
    where = {g["label"]: spans(g["releases"], order) for g in groups.values()}
    items: list[list[nodes.Node]] = []
    for words, shown, labels in status_of(rule_id, certificates, groups):
        children: list[nodes.Node] = [nodes.Text(f"{words.replace('**', '')}: {shown}")]
        for i, label in enumerate(labels):
            children.append(nodes.Text(" — " if i == 0 else ", "))
            ref = pending_xref("", refdomain="std", reftype="ref", reftarget=label,
                               refexplicit=True, refdoc=docname)
            text = f"why, on {where.get(label, '?')}"
            ref += nodes.inline(text, text)
            children.append(ref)
        items.append(children)
    return _bullets(items)


def _table(widths: list[int], header: list[str], rows: list[list[list[nodes.Node]]],
           classes: list[str]) -> nodes.table:
    table = nodes.table(classes=classes)
    group = nodes.tgroup(cols=len(widths))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    group += head
    row = nodes.row()
    for text in header:
        row += nodes.entry("", nodes.paragraph(text, text))
    head += row
    body = nodes.tbody()
    group += body
    for cells in rows:
        row = nodes.row()
        for children in cells:
            row += nodes.entry("", nodes.paragraph("", "", *children))
        body += row
    return table


def doc_link(target: str, text: str, docname: str) -> pending_xref:
    ref = pending_xref("", refdomain="std", reftype="doc", reftarget=target, refexplicit=True,
                       refwarn=True, refdoc=docname)
    ref += nodes.Text(text)
    return ref


class RuleTableDirective(SphinxDirective):
    """``.. tfm-rule-table::`` — every rule: ID (linked), area, level, generations, title, tests."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        data = tfm_data.load(self.env.app)
        tfm_data.note_generated(self.env)
        docname = self.env.docname
        rows = []
        for rule in data.catalogue:
            tests = len(data.covered.get(rule.id, []))
            rows.append([
                [rule_ref(rule.id, docname)],
                [doc_link("/" + data.area_docname(rule.area), rule.area, docname)],
                [_badge(rule.level, "tfm-level", level_class(rule.level))],
                [nodes.Text(", ".join(generation_label(rule, g) for g in rule.generations))],
                [nodes.Text(rule.title)],
                [nodes.Text(str(tests)) if tests else nodes.emphasis("none", "none")],
            ])
        return [_table([18, 9, 9, 11, 42, 6],
                       ["ID", "Area", "Level", "Generations", "Title", "Tests"],
                       rows, ["tfm-rule-table"])]


class AreaToctreeDirective(SphinxDirective):
    """``.. tfm-area-toctree::`` — a toctree of the area pages, in presentation order."""

    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {"maxdepth": int}

    def run(self) -> list[nodes.Node]:
        data = tfm_data.load(self.env.app)
        tfm_data.note_generated(self.env)
        lines = [".. toctree::", f"   :maxdepth: {self.options.get('maxdepth', 1)}", ""]
        for area in data.catalogue.areas:
            # absolute names: a relative "self" would mean the toctree's own page
            lines.append(f"   /{data.area_docname(area.name)}")
        container = nodes.container()
        self.state.nested_parse(StringList(lines, source=self.env.doc2path(self.env.docname)),
                                self.content_offset, container)
        return list(container.children)


def rule_role(name: str, rawtext: str, text: str, lineno: int, inliner: Any,
              options: Any = None, content: Any = None) -> tuple[list[nodes.Node], list[Any]]:
    """``:rule:`TFM_ORDER_001``` — the rule's ID, linked to its anchor."""
    rule_id = text.strip()
    env = inliner.document.settings.env
    if not RULE_ID.fullmatch(rule_id):
        msg = inliner.reporter.error(f"not a rule ID: {rule_id!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [rule_ref(rule_id, env.docname)], []
