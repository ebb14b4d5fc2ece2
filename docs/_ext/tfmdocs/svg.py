"""A very small SVG writer for the figures: boxes, diamonds, arrows, text and rule links.

Colours come from CSS classes (``docs/_static/tfm.css``, which uses furo's colour variables
so that the figures follow the light and dark themes); presentation attributes give a
readable fallback. Rule links are written as ``href="tfm-rule:TFM_X_NNN"`` and turned into
real relative URLs when the page is written (see ``tfmdocs.nodes``).
"""

from __future__ import annotations

from html import escape

#: Rough advance widths (in em) used to size boxes around text.
SANS_EM = 0.56
MONO_EM = 0.61


def text_width(text: str, size: float, mono: bool = False) -> float:
    return len(text) * size * (MONO_EM if mono else SANS_EM)


def wrap(text: str, width: float, size: float, mono: bool = False) -> list[str]:
    """Greedy word wrap of ``text`` to ``width`` pixels (estimated)."""
    limit = max(8, int(width / (size * (MONO_EM if mono else SANS_EM))))
    lines: list[str] = []
    current = ""
    for word in text.split():
        candidate = f"{current} {word}".strip()
        if len(candidate) <= limit or not current:
            current = candidate
        else:
            lines.append(current)
            current = word
    if current:
        lines.append(current)
    return lines


class Svg:
    """Accumulates elements; :meth:`render` returns the ``<svg>`` element as a string."""

    def __init__(self, key: str, width: float, height: float, title: str) -> None:
        self.key, self.width, self.height, self.title = key, width, height, title
        self.parts: list[str] = []

    # -- primitives -----------------------------------------------------------

    def rect(self, x: float, y: float, w: float, h: float, cls: str = "tfm-box",
             rx: float = 6) -> None:
        self.parts.append(
            f'<rect class="{cls}" x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" '
            f'rx="{rx}" fill="#f6f6f6" stroke="#444"/>'
        )

    def diamond(self, cx: float, cy: float, w: float, h: float, cls: str = "tfm-decision") -> None:
        pts = f"{cx},{cy - h / 2} {cx + w / 2},{cy} {cx},{cy + h / 2} {cx - w / 2},{cy}"
        self.parts.append(f'<polygon class="{cls}" points="{pts}" fill="#fff" stroke="#444"/>')

    def text(self, x: float, y: float, text: str, cls: str = "tfm-text", size: float = 13,
             anchor: str = "start", mono: bool = False) -> None:
        family = ' font-family="monospace"' if mono else ' font-family="sans-serif"'
        self.parts.append(
            f'<text xml:space="preserve" class="{cls}{" tfm-mono" if mono else ""}" x="{x:.1f}" y="{y:.1f}" '
            f'font-size="{size}" text-anchor="{anchor}"{family} fill="#222">{escape(text)}</text>'
        )

    def lines(self, x: float, y: float, lines: list[tuple[str, bool]], cls: str = "tfm-text",
              size: float = 13, anchor: str = "start", leading: float = 1.35) -> float:
        """Lines of ``(text, mono)``; ``y`` is the first baseline. Returns the last baseline."""
        for i, (line, mono) in enumerate(lines):
            self.text(x, y + i * size * leading, line, cls, size, anchor, mono)
        return y + (len(lines) - 1) * size * leading

    def path(self, d: str, cls: str = "tfm-line", arrow: bool = True, dashed: bool = False) -> None:
        marker = f' marker-end="url(#{self.key}-arrow)"' if arrow else ""
        dash = ' stroke-dasharray="5 4"' if dashed else ""
        self.parts.append(
            f'<path class="{cls}{" tfm-dashed" if dashed else ""}" d="{d}" fill="none" '
            f'stroke="#444" stroke-width="1.4"{dash}{marker}/>'
        )

    def polyline(self, points: list[tuple[float, float]], cls: str = "tfm-line",
                 arrow: bool = True, dashed: bool = False) -> None:
        d = "M " + " L ".join(f"{x:.1f} {y:.1f}" for x, y in points)
        self.path(d, cls, arrow, dashed)

    def rule_links(self, x: float, y: float, rule_ids: list[str], size: float = 10.5,
                   anchor: str = "start") -> float:
        """Rule IDs as links, separated by spaces; returns the x after the last one."""
        if anchor == "end":
            x -= text_width("  ".join(rule_ids), size, mono=True)
        for rule_id in rule_ids:
            self.parts.append(
                f'<a href="tfm-rule:{rule_id}" class="tfm-svg-link">'
                f'<text class="tfm-rule" x="{x:.1f}" y="{y:.1f}" font-size="{size}" '
                f'font-family="monospace" fill="#1a5fb4">{rule_id}</text></a>'
            )
            x += text_width(rule_id + "  ", size, mono=True)
        return x

    # -- composites -----------------------------------------------------------

    def box(self, x: float, y: float, w: float, h: float, lines: list[tuple[str, bool]],
            cls: str = "tfm-box", size: float = 13, rx: float = 6) -> None:
        """A box with centred lines of text."""
        self.rect(x, y, w, h, cls, rx)
        leading = size * 1.35
        first = y + h / 2 - (len(lines) - 1) * leading / 2 + size * 0.35
        self.lines(x + w / 2, first, lines, "tfm-text", size, "middle")

    def label(self, x: float, y: float, text: str, size: float = 11.5,
              anchor: str = "start") -> None:
        self.text(x, y, text, "tfm-label", size, anchor)

    # -- output ---------------------------------------------------------------

    def render(self, description: str) -> str:
        defs = (
            f'<defs><marker id="{self.key}-arrow" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto-start-reverse">'
            '<path class="tfm-arrowhead" d="M 0 0 L 10 5 L 0 10 z" fill="#444"/></marker></defs>'
        )
        return (
            f'<svg xmlns="http://www.w3.org/2000/svg" class="tfm-svg" role="img" '
            f'viewBox="0 0 {self.width:.0f} {self.height:.0f}" '
            f'style="max-width: {self.width:.0f}px" aria-labelledby="{self.key}-title {self.key}-desc">'
            f'<title id="{self.key}-title">{escape(self.title)}</title>'
            f'<desc id="{self.key}-desc">{escape(description)}</desc>'
            f"{defs}{''.join(self.parts)}</svg>"
        )


def arc_points(x0: float, y0: float, x1: float, y1: float, lift: float) -> str:
    """An SVG path from (x0, y0) to (x1, y1) bowing upwards by ``lift``."""
    top = min(y0, y1) - lift
    return f"M {x0:.1f} {y0:.1f} C {x0:.1f} {top:.1f}, {x1:.1f} {top:.1f}, {x1:.1f} {y1:.1f}"
