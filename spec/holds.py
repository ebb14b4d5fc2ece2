"""Whether a rule holds for a given torch release: which of its examples can run against it.

A rule of the stack generation may be restricted to one of its versions (``versions``: torch 1.13
or 2.x), and a TEXT rule holds only in a release whose table (``spec/texts.toml``) has one of its
texts. The repository's tests and the documentation's doctest builder ask
:func:`example_holds` which examples written against torch itself (an ``example_impl = "torch"``
example or an ``example_stack``) to run against the torch installed beside them, and
:data:`STACK_DIVERGENCES` which of those a release breaks in the example's own scenario.
"""

from __future__ import annotations

from typing import Final

from .catalogue import Rule
from .texts import load_texts, release_key

__all__ = ["STACK_DIVERGENCES", "example_holds", "stack_releases", "stack_version"]

#: Stack releases that break a rule in its example_stack's own scenario, by rule and stack version.
#: The doctest builder does not run these there; the repository's tests run each in a process of
#: its own and require that it still fails (when it passes, the divergence is gone and the entry
#: goes).
STACK_DIVERGENCES: Final[dict[tuple[str, str], str]] = {
    ("TFM_REACH_008", "1.13"): (
        "has_torch_function(5) ends the interpreter with SIGSEGV (pytorch/pytorch#87963, fixed "
        "after 1.13; the expected failure in conformance/expected_failures/torch-1.13.1.toml)"),
    ("TFM_ARGS_003", "1.13"): (
        "a mode's __torch_function__ is called with four positional arguments, kwargs None the "
        "fourth (1.13's internal stack mode passes them on), where the rule asks for three "
        "(measured on 1.13.1: a handler taking *rest gets 2, not 1, for torch.neg(x) and "
        "torch.ones(2)); the expected failure in conformance/expected_failures/torch-1.13.1.toml"),
}

#: The 2022 generation's releases: their torch has no mode stack to run a torch example on.
_RELEASES_2022: Final = ("1.12",)


def stack_version(torch_version: str) -> str | None:
    """``"1.13"`` or ``"2.x"`` for a torch release of the stack generation, ``None`` for one of
    the 2022 generation (1.12) or a version string that names no release."""
    key = release_key(torch_version)
    if key is None or key in _RELEASES_2022 or key == "pr75154":
        return None
    if key.startswith("1."):
        return "1.13" if key == "1.13" else None
    return "2.x"


def example_holds(rule: Rule, torch_version: str) -> bool:
    """Whether the rule holds for the stack release ``torch_version`` (``"1.13.1"``,
    ``"2.13.0+cpu"``): the rule applies to the stack generation at that release's version and,
    for a rule that checks texts, the release's table has one of them (not absent, not unknown)."""
    version = stack_version(torch_version)
    if version is None or not rule.applies_to("stack", version):
        return False
    table = load_texts()
    if not table.rule_kinds(rule.id):
        return True
    return table.rule_status(rule.id, release_key(torch_version)) == "text"


def stack_releases(rule: Rule) -> str:
    """The stack releases the rule holds for, as a heading names them: ``"1.13 and 2.x"``,
    ``"1.13"``, ``"2.x"``, or the 2.x releases one by one where the rule holds for some only
    (a TEXT rule whose text 2.0 keeps and 2.1 dropped: ``"1.13 and 2.0"``; a run of three or
    more: ``"2.1 to 2.14"``); ``""`` for none."""
    later = [key for key in load_texts().releases if stack_version(key) == "2.x"]
    parts = ["1.13"] if example_holds(rule, "1.13") else []
    held = [key for key in later if example_holds(rule, key)]
    start = later.index(held[0]) if held else 0
    if held == later:
        parts.append("2.x")
    elif len(held) > 2 and held == later[start:start + len(held)]:
        parts.append(f"{held[0]} to {held[-1]}")
    else:
        parts.extend(held)
    return " and ".join(parts) if len(parts) < 3 else ", ".join(parts[:-1]) + " and " + parts[-1]
