"""One word for each kind of run (README.md, "Two kinds of run"): a *certification* is a
``--certify`` run; torch, which breaks MUST rules on every release, is checked by conformance
runs under the ``certify`` profile and is never said to be certified. The prose of README.md,
of docs/*.rst and of the generated pages they include (code, inline literals and the profile's
name left out) has no form of the verb "certify" near the word torch, unless it says torch is
never certified. The tools that write the mutation tables (``tests.quality.real_mutants`` and
``tests.quality.kill_reference``) make conformance runs under a profile, never a ``--certify``
run: what they write and their help have no form of the verb at all.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.quality import kill_reference
from tests.quality.real_mutants import __main__ as real_mutants_main
from tests.quality.real_mutants import harness, report

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.rst")),
         *sorted((ROOT / "docs" / "_generated").glob("*.rst"))]
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


def certified_anywhere(text: str) -> list[str]:
    """Every place where the prose of ``text`` uses the verb, whatever it is near."""
    said = prose(text)
    return [said[max(0, v.start() - NEAR):v.end() + NEAR] for v in VERB.finditer(said)]


def test_the_check_finds_torch_said_certified_and_nothing_else() -> None:
    assert torch_certified("``tox -e conformance-torch`` certifies torch 2.13.0 with its failures.")
    assert torch_certified("the matrix of reference_impl and each certified torch release")
    assert torch_certified("For each torch release it certifies, the tool runs it.")
    assert not torch_certified("Torch breaks MUST rules, so torch is never certified: its runs ...")
    assert not torch_certified("checks torch (certify profile, torch's expected failures)")
    assert not torch_certified("``python -m conformance certify --impl torch`` is a command")
    assert not torch_certified("The suite certifies a *torch-like namespace*: a module ...")
    assert certified_anywhere("Each of the 27 mutants certified on 2026-12-01 with ...")
    assert not certified_anywhere("checked by a conformance run with ``--hypothesis-profile "
                                  "certify``, under the certify profile")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_page_says_torch_is_certified(page: Path) -> None:
    found = torch_certified(page.read_text(encoding="utf-8"))
    assert not found, (f"{page.relative_to(ROOT)} says torch is certified; torch is checked by "
                       "conformance runs under the certify profile:\n" + "\n".join(found))


def _written_by_the_mutation_tools() -> dict[str, str]:
    """What the two writers of mutation tables write from their committed results, the files
    committed, and the help (module docstrings and argparse descriptions) of their commands."""
    generated = ROOT / "docs" / "_generated"
    real = json.loads((ROOT / report.JSON_DEFAULT).read_text(encoding="utf-8"))
    killed = json.loads((ROOT / kill_reference.JSON).read_text(encoding="utf-8"))
    texts = {
        "real_mutants --rst": report.render(real),
        "kill_reference --rst": kill_reference.render(killed),
        "docs/_generated/real-mutants.rst": (generated / "real-mutants.rst").read_text(encoding="utf-8"),
        "docs/_generated/kill-reference.rst": (generated / "kill-reference.rst").read_text(
            encoding="utf-8"),
    }
    for module in (kill_reference, real_mutants_main, report, harness):
        texts[f"{module.__name__} help"] = module.__doc__ or ""
    return texts


@pytest.mark.parametrize("name", sorted(_written_by_the_mutation_tools()))
def test_the_mutation_tables_never_say_certified(name: str) -> None:
    found = certified_anywhere(_written_by_the_mutation_tools()[name])
    assert not found, (f"{name} says its profile runs certify; they are conformance runs, never "
                       "a --certify run:\n" + "\n".join(found))


def test_kill_reference_help_says_no_certify(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        kill_reference.main(["--help"])
    out = capsys.readouterr().out
    assert "--rst" in out and "--from-json" in out
    assert not certified_anywhere(out), out
