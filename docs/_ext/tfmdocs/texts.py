"""``.. tfm-texts::`` — the error and warning texts per release, generated from spec/texts.toml."""

from __future__ import annotations

from docutils import nodes
from sphinx.util.docutils import SphinxDirective

from . import data as tfm_data


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


class TextsDirective(SphinxDirective):
    """One section per kind of text: its TEXT rule, then a row per entry (releases, text, evidence)."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        from spec.texts import TEXTS_FILE, load_texts

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
                first, last = entry.releases[0], entry.releases[-1]
                span = first if first == last else f"{first} … {last}"
                shown: nodes.Node = nodes.emphasis(text=entry.status)
                if entry.text is not None:
                    shown = nodes.literal_block(text=entry.text, language="text")
                evidence = nodes.paragraph(text=f"{entry.evidence[0]}: {entry.evidence[1]} — "
                                                f"{entry.evidence[2]}")
                rows.append(_row(nodes.paragraph(text=span), shown, evidence))
            section += _table(("releases", "text", "evidence"), rows, (12, 50, 38))
            out.append(section)
        return out
