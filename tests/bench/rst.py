"""reStructuredText output: list tables and the description of the machine."""

from __future__ import annotations

import os
import platform
import sys
from collections.abc import Sequence


def table(title: str, header: Sequence[str], rows: Sequence[Sequence[object]],
          widths: Sequence[int] | None = None) -> str:
    """A ``list-table`` directive with one header row."""
    lines = [f".. list-table:: {title}", "   :header-rows: 1"]
    if widths:
        lines.append(f"   :widths: {' '.join(str(w) for w in widths)}")
    lines.append("")
    for row in [header, *rows]:
        cells = [str(cell) if str(cell) else "\\" for cell in row]
        lines.append(f"   * - {cells[0]}")
        lines += [f"     - {cell}" for cell in cells[1:]]
    return "\n".join(lines) + "\n"


def section(title: str, char: str = "~") -> str:
    return f"{title}\n{char * len(title)}\n"


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as info:
            for line in info:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def machine(torch_version: str | None) -> list[tuple[str, str]]:
    """What the figures were measured on (``nproc``, CPU model, Python, torch)."""
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return [
        ("processors (nproc)", str(cpus)),
        ("CPU model", cpu_model()),
        ("operating system", f"{platform.system()} {platform.release()} ({platform.machine()})"),
        ("Python", f"{platform.python_implementation()} {sys.version.split()[0]}"),
        ("torch", torch_version or "not installed"),
        ("load average (1, 5, 15 min) at the start", _load()),
    ]


def _load() -> str:
    try:
        return ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        return "unknown"


def us(seconds: float) -> str:
    """Microseconds with three significant figures."""
    value = seconds * 1e6
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def ratio(value: float) -> str:
    return f"{value:.2f}x"
