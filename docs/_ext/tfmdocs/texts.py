"""The error and warning texts per release, from spec/texts.toml: ``.. tfm-texts::`` (every
kind on one page) and the table of required texts on the page of each TEXT rule. A text is
always shown by :func:`~tfmdocs.inline.required_text`, character for character."""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from spec.texts import Entry, Kind, load_texts

from . import data as tfm_data
from .inline import required_text, spaced


def _row(*cells: nodes.Node) -> nodes.row:
    row = nodes.row()
    for cell in cells:
        entry = nodes.entry()
        entry += cell
        row += entry
    return row


def _table(head: tuple[str, ...], rows: list[nodes.row], widths: tuple[int, ...]) -> nodes.table:
    table = nodes.table(classes=["tfm-texts"])
    group = nodes.tgroup(cols=len(head))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    thead = nodes.thead()
    thead += _row(*(nodes.paragraph(text=h) for h in head))
    group += thead
    body = nodes.tbody()
    body.extend(rows)
    group += body
    return table


def _span(entry: Entry) -> str:
    first, last = entry.releases[0], entry.releases[-1]
    return first if first == last else f"{first} … {last}"


def _shown(entry: Entry) -> nodes.paragraph:
    if entry.text is None:
        return nodes.paragraph("", "", nodes.emphasis(text=entry.status))
    return nodes.paragraph("", "", *required_text(entry.text), classes=["tfm-text-cell"])


def _kinds_of(rule_id: str, named: tuple[str, ...] = ()) -> list[Kind]:
    """The kinds a TEXT rule checks, then those ``named`` (a rule's ``texts``)."""
    table = load_texts()
    unknown = [name for name in named if name not in table.kinds]
    if unknown:
        raise ValueError(f"{rule_id}: texts names no kind of spec/texts.toml: {unknown}")
    own = [kind for kind in table.kinds.values() if kind.rule == rule_id]
    return own + [table.kinds[name] for name in named if table.kinds[name] not in own]


def rule_texts(rule_id: str, link: nodes.Node, named: tuple[str, ...] = ()) -> list[nodes.Node]:
    """For a rule's section: each kind of text it checks (a TEXT rule) or its error takes
    (``named``, the rule's ``texts``), with its text in every release; none for another rule.
    ``link`` leads to the page of all texts."""
    kinds = _kinds_of(rule_id, named)
    if not kinds:
        return []
    rows = [_row(nodes.paragraph("", "", nodes.literal(text=kind.name)),
                 nodes.paragraph(text=_span(entry)), _shown(entry))
            for kind in kinds for entry in kind.entries]
    intro = nodes.paragraph()
    if any(kind.rule == rule_id for kind in kinds):
        title = "Required texts"
        intro += nodes.Text("The texts this rule requires, as the table holds them (every release "
                            "side by side: ")
    else:
        title = "The error's texts"
        rules = ", ".join(dict.fromkeys(kind.rule for kind in kinds))
        intro += nodes.Text("The error's text differs between releases and generations; these are "
                            f"its texts in each release, as {rules} require them (every release "
                            "side by side: ")
    intro += link
    intro += nodes.Text("). Spaces, backticks and line breaks are part of each text.")
    return [nodes.rubric(title, title, classes=["tfm-rubric"]), intro,
            _table(("kind", "releases", "text"), rows, (20, 14, 66))]


class TextsDirective(SphinxDirective):
    """One section per kind of text: its TEXT rule, then a row per entry (releases, text, evidence)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from spec.texts import TEXTS_FILE

        tfm_data.note_generated(self.env)
        self.env.note_dependency(str(TEXTS_FILE))
        table = load_texts()
        out: list[nodes.Node] = []
        for kind in table.kinds.values():
            section = nodes.section(ids=[f"text-{kind.name}"])
            section += nodes.title(text=kind.name)
            intro = nodes.paragraph()
            intro += nodes.Text(f"{kind.title}. Checked by ")
            ref = nodes.reference(text=kind.rule, refuri=f"rules/text.html#{kind.rule}")
            intro += ref
            intro += nodes.Text(".")
            section += intro
            rows = []
            for entry in kind.entries:
                evidence = nodes.paragraph("", "", *spaced(
                    f"{entry.evidence.kind}: {entry.evidence.ref} — {entry.evidence.note}"))
                rows.append(_row(nodes.paragraph(text=_span(entry)), _shown(entry), evidence))
            section += _table(("releases", "text", "evidence"), rows, (12, 50, 38))
            out.append(section)
        return out
