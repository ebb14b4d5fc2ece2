"""Whether a rule's example can run here (the doctest builder's ``skipif`` asks this).

Mirrors ``tests/test_catalogue_examples.py``: examples written against ``reference_impl`` always
run; examples written against ``torch`` (the stack generation), and every rule's
``example_stack``, run only where torch of a stack release the rule holds for is installed
(``spec.holds.example_holds``: the rule's stack version and, for a TEXT rule, a release whose
table has its text) and the release's committed certificate does not call the rule not
applicable; an ``example_stack`` the release breaks (``spec.holds.STACK_DIVERGENCES``) does not
run there.
"""

from __future__ import annotations

from pathlib import Path

from conformance.matrix import release_verdicts
from spec.catalogue import load_catalogue
from spec.holds import STACK_DIVERGENCES, example_holds, stack_version

_ROOT = Path(__file__).resolve().parents[3]


def _torch_version() -> str | None:
    """The installed torch's version, or ``None`` without torch."""
    try:
        import torch  # type: ignore[import-not-found]
    except ImportError:
        return None
    return str(torch.__version__)


def runnable(rule_id: str, stack: bool = False) -> bool:
    """Whether the rule's example (its ``example_stack`` with ``stack``) can run here."""
    rule = load_catalogue(_ROOT / "spec" / "rules").by_id(rule_id)
    if not stack and rule.example_impl == "reference_impl":
        return True
    version = _torch_version()
    if version is None or not example_holds(rule, version):
        return False
    if stack and (rule_id, stack_version(version)) in STACK_DIVERGENCES:
        return False
    return release_verdicts(_ROOT, version).get(rule_id) != "not_applicable"
