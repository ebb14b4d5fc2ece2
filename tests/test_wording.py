"""One word for each kind of run (README.md, "Two kinds of run"): a *certification* is a
``--certify`` run; torch, which breaks MUST rules on every release, is checked by conformance
runs under the ``certify`` profile and is never said to be certified. The prose of README.md and
of docs/*.rst (code, inline literals and the profile's name left out) has no form of the verb
"certify" near the word torch, unless it says torch is never certified.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst"))]
#: The verb, not "certificate" or "certification", nor the profile's name ("certify profile").
VERB = re.compile(r"\bcertif(?:y|ies|ied|ying)\b(?! profile)", re.I)
TORCH = re.compile(r"\btorch\b(?!-like)")  # "a torch-like namespace" is any implementation
NEAR = 60


def prose(text: str) -> str:
    """``text`` without fenced code and with every inline literal as ``LIT``, on one line."""
    text = re.sub(r"```.*?```", " ", text, flags=re.S)
    text = re.sub(r"``.+?``|`[^`\n]+`", "LIT", text, flags=re.S)
    return " ".join(text.split())


def torch_certified(text: str) -> list[str]:
    """The places where ``text`` says torch is certified (or certifies, or will certify it)."""
    said = prose(text)
    found = []
    for verb in VERB.finditer(said):
        near = said[max(0, verb.start() - NEAR):verb.end() + NEAR]
        if TORCH.search(near) and "never certified" not in near:
            found.append(near)
    return found


def test_the_check_finds_torch_said_certified_and_nothing_else() -> None:
    assert torch_certified("``tox -e conformance-torch`` certifies torch 2.13.0 with its failures.")
    assert torch_certified("the matrix of reference_impl and each certified torch release")
    assert torch_certified("For each torch release it certifies, the tool runs it.")
    assert not torch_certified("Torch breaks MUST rules, so torch is never certified: its runs ...")
    assert not torch_certified("checks torch (certify profile, torch's expected failures)")
    assert not torch_certified("``python -m conformance certify --impl torch`` is a command")
    assert not torch_certified("The suite certifies a *torch-like namespace*: a module ...")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_says_torch_is_certified(page: Path) -> None:
    found = torch_certified(page.read_text(encoding="utf-8"))
    assert not found, (f"{page.relative_to(ROOT)} says torch is certified; torch is checked by "
                       "conformance runs under the certify profile:\n" + "\n".join(found))
