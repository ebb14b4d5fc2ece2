"""The drawn figures: the dispatch order, and how push and enable change the slot and ``inner``.

Each function returns ``(svg, description)``; every rule ID shown is a link to its anchor.
"""

from __future__ import annotations

import itertools

from .svg import Svg, arc_points

M = True  # monospace
S = False  # sans


def dispatch_order(key: str) -> tuple[str, str]:
    svg = Svg(key, 900, 650, "The dispatch order of one call")
    cx, bx, bw = 370, 150, 440  # the main column: centre, box left edge, box width
    # the call
    svg.box(cx - 150, 12, 300, 38, [("ns.f(*args, **kwargs)", M)], "tfm-box tfm-start", rx=19)
    # is a mode current?
    svg.diamond(cx, 122, 230, 76)
    svg.lines(cx, 118, [("a mode is", S), ("current?", S)], size=13, anchor="middle")
    svg.polyline([(cx, 50), (cx, 84)])
    # no mode: any overloaded argument?
    dx = 690
    svg.diamond(dx, 122, 230, 76)
    svg.lines(dx, 118, [("any overloaded", S), ("argument?", S)], size=13, anchor="middle")
    svg.polyline([(cx + 115, 122), (dx - 115, 122)])
    svg.label(cx + 124, 114, "no")
    svg.box(dx - 80, 12, 160, 38, [("the kernel runs", S)], "tfm-box tfm-end")
    svg.polyline([(dx, 84), (dx, 50)])
    svg.label(dx + 8, 72, "no")
    svg.rule_links(dx + 88, 36, ["TFM_TYPES_003"])

    # the mode's handler
    my, mh = 200, 100
    svg.box(bx, my, bw, mh, [
        ("mode.__torch_function__(func, types, args, kwargs)", M),
        ("The slot is cleared while it runs; a TorchFunctionMode's", S),
        ("wrapper makes self.inner current for the handler's code.", S),
    ], "tfm-box tfm-accent", size=12.5)
    svg.polyline([(cx, 160), (cx, my)])
    svg.label(cx + 8, 182, "yes")
    svg.rule_links(bx + 4, my + mh + 16, ["TFM_ORDER_001", "TFM_REENTRY_001", "TFM_REENTRY_004"])

    # it answers
    rx, rw = 660, 190
    svg.box(rx, my + 20, rw, 60, [("its value is the", S), ("result of the call", S)],
            "tfm-box tfm-end")
    svg.polyline([(bx + bw, my + 50), (rx, my + 50)])
    svg.label(bx + bw + 8, my + 42, "a value")
    svg.rule_links(rx + 4, my + 98, ["TFM_ORDER_002"])

    # it calls func again: the inner chain
    svg.polyline([(bx, my + 50), (30, my + 50), (30, 31), (cx - 150, 31)])
    svg.lines(42, 92, [("calls func again: it is", S), ("dispatched anew with", S),
                       ("self.inner current —", S), ("the inner chain", S)], "tfm-label", 11.5)
    svg.rule_links(42, 158, ["TFM_PUSH_004"])
    svg.rule_links(42, 172, ["TFM_PUSH_009"])

    # the overloaded arguments
    hy, hh = 380, 96
    svg.box(bx, hy, bw, hh, [
        ("type(arg).__torch_function__(func, types, args, kwargs)", M),
        ("for the next overloaded argument: subclasses before", S),
        ("superclasses, otherwise left to right, each type once", S),
    ], "tfm-box", size=12.5)
    svg.polyline([(cx, my + mh + 24), (cx, hy)])
    svg.label(cx - 8, my + mh + 46, "NotImplemented (the inner chain is not asked)", 11.5, "end")
    svg.rule_links(cx - 8, my + mh + 62, ["TFM_NOTIMPL_001", "TFM_NOTIMPL_004"], anchor="end")
    # from "any overloaded argument? yes"
    svg.polyline([(dx + 115, 122), (880, 122), (880, 346), (bx + bw - 60, 346),
                  (bx + bw - 60, hy)])
    svg.label(dx + 122, 114, "yes")
    svg.rule_links(bx + 4, hy + hh + 16, ["TFM_ORDER_003", "TFM_ORDER_004", "TFM_ORDER_005",
                                          "TFM_ORDER_006"])
    # next argument
    svg.polyline([(bx, hy + 32), (118, hy + 32), (118, hy + 68), (bx, hy + 68)])
    svg.lines(12, hy + 46, [("NotImplemented:", S), ("the next one", S)], "tfm-label", 11.5)
    # it answers
    svg.box(rx, hy + 18, rw, 60, [("its value is the", S), ("result of the call", S)],
            "tfm-box tfm-end")
    svg.polyline([(bx + bw, hy + 48), (rx, hy + 48)])
    svg.label(bx + bw + 8, hy + 40, "a value")
    svg.rule_links(rx + 4, hy + 96, ["TFM_ORDER_007"])

    # everyone declined
    ey = 550
    svg.box(bx, ey, rx + rw - bx, 64, [
        ("TypeError: no implementation found for 'ns.f' on types that implement", M),
        ("__torch_function__: [...] nor was it found on the currently active mode ...", M),
    ], "tfm-box tfm-error", size=12)
    svg.polyline([(cx, hy + hh + 24), (cx, ey)])
    svg.label(cx + 8, hy + hh + 44, "none left")
    svg.rule_links(bx + 4, ey + 80, ["TFM_NOTIMPL_002", "TFM_NOTIMPL_003", "TFM_ERROR_001",
                                     "TFM_ERROR_002", "TFM_ERROR_003"])
    svg.height = ey + 92
    description = (
        "Flowchart. A call first asks whether a mode is current. If not, and no argument is "
        "overloaded, the kernel runs. If a mode is current, its __torch_function__ runs with "
        "the slot cleared (a TorchFunctionMode makes self.inner current while its code runs). "
        "A value it returns is the result; a call of func inside it is dispatched again one "
        "mode down the inner chain; NotImplemented moves on to the overloaded arguments, "
        "tried subclasses first, otherwise left to right, each type once. The first value "
        "wins; if all decline, TypeError."
    )
    return svg.render(description), description


# -- push and enable ------------------------------------------------------------------------

_COL = {"B": 360, "A": 455, "base": 550, "end": 640, "e": 720}
_BOX_W, _BOX_H = 62, 28


def _objects(svg: Svg, y: float, present: list[str], current: str | None,
             running: str | None = None) -> None:
    """The mode objects of one row, their ``inner`` links and the slot's arrow."""
    mid = y + _BOX_H / 2
    chain = [n for n in ("B", "A", "base") if n in present]
    for name in present:
        x = _COL[name]
        cls = "tfm-box tfm-obj"
        if name == current:
            cls += " tfm-current"
        if name == running:
            cls += " tfm-running"
        svg.box(x, y, _BOX_W, _BOX_H, [("Base" if name == "base" else name, M)], cls, size=12.5)
        if name == running:
            svg.label(x + _BOX_W / 2, y + _BOX_H + 12, "running", 10, "middle")
    for left, right in itertools.pairwise(chain):
        svg.polyline([(_COL[left] + _BOX_W, mid), (_COL[right], mid)])
        svg.label((_COL[left] + _BOX_W + _COL[right]) / 2, mid - 5, "inner", 9.5, "middle")
    if chain and chain[-1] == "base":
        svg.polyline([(_COL["base"] + _BOX_W, mid), (_COL["end"], mid)])
        svg.label((_COL["base"] + _BOX_W + _COL["end"]) / 2, mid - 5, "inner", 9.5, "middle")
        svg.text(_COL["end"] + 4, mid + 4, "None", "tfm-text tfm-muted", 11.5, mono=True)
    if "e" in present:
        svg.text(_COL["e"] + _BOX_W / 2, y + _BOX_H + 12, "inner=None", "tfm-label", 10,
                 "middle", mono=True)
    # the slot
    sx = 272
    svg.box(sx, y, 52, _BOX_H, [("slot", S)], "tfm-box tfm-slot", size=12, rx=14)
    if current is None:
        svg.polyline([(sx + 52, mid), (sx + 76, mid)])
        svg.text(sx + 80, mid + 4, "None", "tfm-text", 12, mono=True)
    else:
        target = _COL[current] + _BOX_W / 2
        svg.path(arc_points(sx + 40, y, target, y, 16))


def push_enable(key: str) -> tuple[str, str]:
    rows: list[tuple[list[tuple[str, str]], list[str], list[str], str | None, str | None]] = [
        ([("# no mode", "tfm-muted")], [], [], None, None),
        ([("with push(A):", "")], ["TFM_PUSH_001", "TFM_PUSH_002"], ["A", "base"], "A", None),
        ([("  with push(B) as b:", "")], ["TFM_PUSH_001", "TFM_PUSH_004"],
         ["B", "A", "base"], "B", None),
        ([("    torch.neg(x)", ""), ("    # while B's handler runs", "tfm-muted")],
         ["TFM_REENTRY_001", "TFM_REENTRY_004"], ["B", "A", "base"], "A", "B"),
        ([("    with enable(e, replace=b):", "")], ["TFM_ENABLE_005", "TFM_ENABLE_011"],
         ["B", "A", "base", "e"], "e", None),
        ([("    # enable(e) exited", "tfm-muted")], ["TFM_ENABLE_001"], ["B", "A", "base"], "B", None),
        ([("  # push(B) exited", "tfm-muted")], ["TFM_PUSH_003"], ["A", "base"], "A", None),
        ([("# push(A) exited", "tfm-muted")], ["TFM_PUSH_003"], [], None, None),
    ]
    top, row_h = 58, 66
    svg = Svg(key, 800, top + row_h * len(rows) + 8, "How push and enable change the slot")
    svg.text(16, 22, "push = push_torch_function_mode, enable = enable_torch_function_mode,",
             "tfm-label", 11.5)
    svg.text(16, 38, "Base = the BaseTorchFunctionMode(inner=None) that push adds at the bottom,"
             " e = E(inner=None)", "tfm-label", 11.5)
    for i, (code, rules, present, current, running) in enumerate(rows):
        y = top + i * row_h
        if i % 2 == 0:
            svg.rect(4, y - 6, 792, row_h, "tfm-band", rx=4)
        for j, (line, cls) in enumerate(code):
            svg.text(16, y + 18 + j * 16, line, f"tfm-text {cls}".strip(), 12.5, mono=True)
        if rules:
            svg.rule_links(16, y + 18 + len(code) * 16 + 2, rules, 10)
        _objects(svg, y + 14, present, current, running)
    description = (
        "Eight rows, one per line of a nested with-block. push(A) builds A with inner set to a "
        "fresh BaseTorchFunctionMode and makes A current; push(B) builds B with inner A. While "
        "B's handler runs, the slot holds A (B.inner). enable(e, replace=b) puts e in the slot "
        "without touching any inner link. Each block restores the previous slot when it exits."
    )
    return svg.render(description), description


FIGURES = {"dispatch-order": dispatch_order, "push-enable": push_enable}
