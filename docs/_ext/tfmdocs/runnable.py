"""Whether a rule's example can run here (the doctest builder's ``skipif`` asks this).

Mirrors ``tests/test_catalogue.py``: examples written against ``reference_impl`` always run;
examples written against ``torch`` (the stack generation), and every rule's ``example_stack``,
run only where torch of the stack generation is installed and the rule holds for its version.
"""

from __future__ import annotations

from pathlib import Path

from spec.catalogue import load_catalogue

_ROOT = Path(__file__).resolve().parents[3]


def _stack_version() -> str | None:
    """``1.13`` or ``2.x`` for an installed torch of the stack generation, else ``None``."""
    try:
        import torch  # type: ignore[import-not-found]
    except ImportError:
        return None
    if torch.__version__.startswith("1.12."):  # the 2022 generation
        return None
    return "1.13" if torch.__version__.startswith("1.") else "2.x"


def runnable(rule_id: str, stack: bool = False) -> bool:
    """Whether the rule's example (its ``example_stack`` with ``stack``) can run here."""
    rule = load_catalogue(_ROOT / "spec" / "rules").by_id(rule_id)
    if not stack and getattr(rule, "example_impl", "reference_impl") == "reference_impl":
        return True
    version = _stack_version()
    if version is None:
        return False
    applies = getattr(rule, "applies_to", None)
    return bool(applies("stack", version)) if applies is not None else True
