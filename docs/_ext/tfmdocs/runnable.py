"""Whether a rule's example can run here (the doctest builder's ``skipif`` asks this).

Mirrors ``tests/test_catalogue.py``: examples written against ``reference_impl`` always run;
examples written against ``torch`` (the stack generation) run only where torch is installed
and the rule holds for its version.
"""

from __future__ import annotations

from pathlib import Path

from spec.catalogue import load_catalogue

_ROOT = Path(__file__).resolve().parents[3]


def runnable(rule_id: str) -> bool:
    rule = load_catalogue(_ROOT / "spec" / "rules").by_id(rule_id)
    if getattr(rule, "example_impl", "reference_impl") == "reference_impl":
        return True
    try:
        import torch  # type: ignore[import-not-found]
    except ImportError:
        return False
    version = "1.13" if torch.__version__.startswith("1.") else "2.x"
    applies = getattr(rule, "applies_to", None)
    return bool(applies("stack", version)) if applies is not None else True
