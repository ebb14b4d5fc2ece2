"""The summary lines and badge texts README.md and docs/ show are what conformance.report.headline
makes of the committed certificates they stand for, and the way the README tells CI to read a
certificate names fields the certificate has and says what the run's exit status says.

Every text in README.md or a page of docs/ (the generated pages aside) that looks like a
headline (``MUST 65/77: ...``), a line naming an implementation (``torch 2.13.0+cpu (generation
stack): ...``) or a badge message (``MUST 65/77, 12 expected``, ``fails 2 MUST``,
``partial: MUST 7/7``) must be listed in SHOWN with what it is made of; a change of wording in
conformance.report.headline, of a committed certificate or of the text fails here.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from conformance.report.certificate import CERTIFICATE_SCHEMA
from conformance.report.headline import certificate_verdicts, from_certificate, level_line
from tests.commands.registry import load_registry

ROOT = Path(__file__).resolve().parents[1]
CERTIFICATES = ROOT / "docs" / "certificates"
DOCUMENTS = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.rst")
                                         if not {"_generated", "_build"} & set(p.parts))]
#: What a headline, a line naming an implementation or a badge message looks like.
LOOKS_LIKE = re.compile(r"(?:^\s*\S+ \S+ \(generation \w+\): .*$"
                        r"|(?:partial: )?MUST \d+/\d+(?:: [^`\n]*unexpected|, \d+ expected)?"
                        r"|fails \d+ MUST(?:, \d+ expected)?"
                        r"|^\s*level reached: .*$)", re.M)


def _certificate(name: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads((CERTIFICATES / f"{name}.json").read_text(encoding="utf-8"))
    return document


def _with_verdicts(certificate: dict[str, Any], change: Callable[[str, dict[str, Any]], str | None],
                   reached: str | None = None) -> dict[str, Any]:
    """A copy of ``certificate`` whose rules' verdicts ``change`` returns (None: unchanged)."""
    rules = {}
    for rule_id, entry in certificate["rules"].items():
        verdict = change(rule_id, entry)
        rules[rule_id] = {**entry, "verdict": verdict or entry["verdict"]}
    level = {**certificate["level"], **({"reached": reached} if reached else {})}
    return {**certificate, "rules": rules, "level": level}


def _fail_two(certificate: dict[str, Any]) -> dict[str, Any]:
    """The certificate with its first two passing MUST rules failed."""
    passing = [r for r, e in certificate["rules"].items()
               if e["level"].startswith("MUST") and e["verdict"] == "pass"][:2]
    return _with_verdicts(certificate, lambda r, e: "fail" if r in passing else None, "none")


def _excused_pass(reached: str) -> dict[str, Any]:
    """torch 2.13.0's certificate with its expected failures passing, reaching ``reached``."""
    return _with_verdicts(_certificate("torch-2.13.0"),
                          lambda r, e: "pass" if e["verdict"] == "expected_failure" else None, reached)


def _selected(patterns: list[str]) -> dict[str, Any]:
    """reference_impl's certificate as a run of ``--rules`` PATTERNS records it."""
    def change(rule_id: str, entry: dict[str, Any]) -> str | None:
        chosen = any(fnmatch.fnmatchcase(rule_id, p) for p in patterns)
        return None if chosen or entry["verdict"] == "not_applicable" else "not_selected"
    certificate = _with_verdicts(_certificate("reference_impl"), change, "none")
    return {**certificate, "run": {**certificate["run"], "selection": {
        **certificate["run"]["selection"], "partial": True}}}


def _line(certificate: dict[str, Any]) -> str:
    return from_certificate(certificate)[0]


def _badge(certificate: dict[str, Any]) -> str:
    shield = from_certificate(certificate)[1]
    return f"{shield['message']} ({shield['color']})"


def _level(certificate: dict[str, Any]) -> str:
    return level_line(certificate_verdicts(certificate), certificate["level"],
                      certificate["implementation"]["features"])


def _run_badge(command: str) -> str:
    """The badge message the registry states for a shown command (its run, in the checkout and
    from the wheel, checks it: tests/test_commands.py, tests/test_commands_wheel.py)."""
    entry = load_registry(ROOT / "tests" / "commands" / "registry.toml")[command]
    assert entry.badge is not None, f"registry.toml states no badge for {command!r}"
    return entry.badge


TORCH = "torch-2.13.0"
#: The partial run the page's badge text is of (the first of the two commands it shows).
PARTIAL = "pytest --pyargs conformance.suite --impl reference_impl --rules 'TFM_ORDER_*,TFM_TYPES_001'"
#: Each shown text: the document, the text (``...`` stands for any text), and what makes it.
SHOWN: list[tuple[str, str, Callable[[], str]]] = [
    ("README.md", "MUST 65/77: 12 expected failures (listed below), 0 unexpected",
     lambda: _line(_certificate(TORCH)).split(": ", 1)[1]),
    ("docs/certificate.rst",
     "torch 2.13.0+cpu (generation stack): MUST 65/77: 12 expected failures (listed below), 0 unexpected",
     lambda: _line(_certificate(TORCH))),
    ("docs/certificate.rst",
     "level reached: none (12 MUST rules not met: 12 expected); optional features declared: "
     "comparisons, ...; met: none (a feature is met once MUST is reached)",
     lambda: _level(_certificate(TORCH))),
    ("docs/certificate.rst", "fails 2 MUST", lambda: _badge(_fail_two(_certificate("reference_impl")))),
    ("docs/certificate.rst", "fails 2 MUST, 12 expected", lambda: _badge(_fail_two(_certificate(TORCH)))),
    ("docs/certificate.rst", "MUST 65/77, 12 expected", lambda: _badge(_certificate(TORCH))),
    ("docs/certificate.rst", "MUST 77/77", lambda: _badge(_excused_pass("MUST"))),
    ("docs/certificate.rst", "partial: MUST 10/10", lambda: f"{_run_badge(PARTIAL)} (lightgrey)"),
]
#: The colours the page gives the badges (the text after each, in the same sentence).
COLOURS = {"fails 2 MUST": "red", "fails 2 MUST, 12 expected": "red",
           "MUST 65/77, 12 expected": "yellowgreen", "MUST 77/77": "green",
           "partial: MUST 10/10": "lightgrey"}


def _matches(shown: str, made: str) -> bool:
    return re.fullmatch(".*".join(re.escape(part) for part in shown.split("...")), made) is not None


def test_every_shown_headline_is_listed() -> None:
    found = {(str(path.relative_to(ROOT)), m.group().strip())
             for path in DOCUMENTS for m in LOOKS_LIKE.finditer(path.read_text(encoding="utf-8"))}
    listed = {(doc, text) for doc, text, _ in SHOWN}
    assert found == listed, f"shown, not listed: {sorted(found - listed)}; listed, not shown: " \
                            f"{sorted(listed - found)}"


@pytest.mark.parametrize(("doc", "text", "make"), [pytest.param(*s, id=s[1][:60]) for s in SHOWN])
def test_a_shown_headline_is_what_the_certificate_makes(doc: str, text: str,
                                                         make: Callable[[], str]) -> None:
    made = make()
    colour = COLOURS.get(text)
    if colour is not None:
        assert made == f"{text} ({colour})"
    else:
        assert _matches(text, made), f"{doc} shows {text!r}; the certificate makes {made!r}"


def test_the_partial_badge_is_of_the_first_command_the_page_shows() -> None:
    page = (ROOT / "docs" / "certificate.rst").read_text(encoding="utf-8")
    commands = re.findall(r"^   \$ (.*)$", page.split("Such a run is *partial*")[0], re.M)[-2:]
    assert commands[0] == PARTIAL and "for the first" in page
    assert _badge(_selected(["TFM_ORDER_*", "TFM_TYPES_001"])).startswith("partial: MUST ")


def test_the_badge_colours_the_page_gives_once_must_holds() -> None:
    """``MUST 77/77`` is green, brightgreen once SHOULD is reached, yellow with untested rules."""
    assert _badge(_excused_pass("SHOULD")) == "MUST 77/77 (brightgreen)"
    torch = _certificate(TORCH)
    untested = next(r for r, e in torch["rules"].items() if e["verdict"] == "expected_failure")
    certificate = _with_verdicts(_excused_pass("none"), lambda r, e: "untested" if r == untested else None)
    assert _badge(certificate) == "MUST 76/77 (yellow)"


def test_a_changed_certificate_changes_the_headline() -> None:
    made = _line(_fail_two(_certificate(TORCH)))
    assert not _matches(SHOWN[1][1], made)
    assert made.endswith("12 expected failures (listed below), 2 unexpected")


def test_an_incomplete_or_partial_run_names_its_badge_instead_of_the_headline() -> None:
    reference = _certificate("reference_impl")
    incomplete = {**reference, "run": {**reference["run"], "problems": ["a worker was lost"]}}
    assert from_certificate(incomplete) == (
        "reference_impl 0.1.0 (generation 2022): incomplete run",
        {"schemaVersion": 1, "label": "tfmode conformance", "message": "incomplete run", "color": "red"})
    line, shield = from_certificate(_selected(["TFM_ORDER_001"]))
    assert line == "reference_impl 0.1.0 (generation 2022): partial: MUST 1/1" == \
        f"reference_impl 0.1.0 (generation 2022): {shield['message']}"
    older = {**reference, "run": {k: v for k, v in reference["run"].items() if k != "selection"}}
    assert from_certificate(older) == from_certificate(reference)  # schema 2 had no selection


TORCH_REPORTS = os.environ.get("TESTS_TORCH_REPORTS")

if TORCH_REPORTS:  # defined where tox -e conformance-torch has just checked torch 2.13.0
    _TORCH_RUN = Path(TORCH_REPORTS)

    def test_the_torch_run_of_tox_says_what_the_docs_show() -> None:
        """The run's badge is what its certificate makes, and so are the line and badge the
        docs show for torch 2.13.0 (the committed certificate's)."""
        reports = _TORCH_RUN
        certificate = json.loads((reports / "certificate.json").read_text(encoding="utf-8"))
        assert certificate["run"]["complete"] and not certificate["run"]["selection"]["partial"], \
            "the torch run was incomplete or partial"
        line, shield = from_certificate(certificate)
        assert json.loads((reports / "badge.json").read_text(encoding="utf-8")) == shield
        assert certificate["implementation"]["release"] == "2.13.0"
        # the same line but for the local version (+cpu where the CPU wheel is installed)
        assert line.split(" (generation ")[1] == SHOWN[1][1].split(" (generation ")[1]
        assert f"{shield['message']} ({shield['color']})" == _badge(_certificate(TORCH))

    def test_the_torch_run_of_tox_needs_every_expected_failure_as_scoped() -> None:
        """Every entry of torch-2.13.0.toml excused a failure of its rule in the run, and
        every element of its scope excused one of them."""
        certificate = json.loads((_TORCH_RUN / "certificate.json").read_text(encoding="utf-8"))
        assert certificate["stale_expected_failures"] == []
        assert certificate["unused_scope"] == {}


COMPILED_REPORTS = os.environ.get("TESTS_COMPILED_REPORTS")

if COMPILED_REPORTS:  # defined where tox -e conformance-compile has just checked torch 2.13.0

    def test_the_compiled_run_of_tox_needs_every_expected_failure_as_scoped() -> None:
        """Every entry of torch-2.13.0-compiled.toml excused a failure of its rule in the run,
        and every element of its scope excused one of them."""
        path = Path(str(COMPILED_REPORTS)) / "certificate.json"
        certificate = json.loads(path.read_text(encoding="utf-8"))
        assert certificate["run"]["complete"] and certificate["implementation"]["release"] == "2.13.0"
        assert certificate["stale_expected_failures"] == []
        assert certificate["unused_scope"] == {}


# -- gating CI on the result -----------------------------------------------------------------

GATE = re.compile(r"a job reading `certificate\.json` instead requires (.*?) \(`docs/certificate\.rst`\)",
                  re.S)


def _schema_has(path: list[str]) -> bool:
    node: dict[str, Any] = CERTIFICATE_SCHEMA
    for key in path:
        properties = node.get("properties", {})
        if key not in properties:
            return False
        node = properties[key]
    return True


def test_the_readme_says_how_to_gate_ci() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "To gate CI, use the exit status of the `--certify` run" in readme
    match = GATE.search(readme)
    assert match, "README.md no longer says which fields of certificate.json a CI job reads"
    fields = re.findall(r"`([a-z_.]+)`", match.group(1))
    assert fields == ["certify", "run.complete", "run.selection.partial", "level.reached"]
    for name in fields:
        assert _schema_has(name.split(".")), f"README.md names {name}, which the schema lacks"
        for path in sorted(CERTIFICATES.glob("*.json")):
            node: Any = json.loads(path.read_text(encoding="utf-8"))
            for key in name.split("."):
                node = node[key]  # every committed certificate has it


def _gate(certificate: dict[str, Any], tmp_path: Path) -> int:
    page = (ROOT / "docs" / "certificate.rst").read_text(encoding="utf-8")
    block = page.split("   import json, sys\n", 1)[1].split("\nTo check a certificate", 1)[0]
    code = "import json, sys\n" + "\n".join(line[3:] for line in block.splitlines())
    (tmp_path / "reports").mkdir(exist_ok=True)
    (tmp_path / "reports" / "certificate.json").write_text(json.dumps(certificate), encoding="utf-8")
    return subprocess.run([sys.executable, "-c", code], cwd=tmp_path, timeout=60).returncode


def test_the_documented_gate_passes_a_certification_only(tmp_path: Path) -> None:
    """The page's snippet on the committed certificates: reference_impl's certification passes;
    torch's conformance run, a partial run and an incomplete one do not."""
    reference = _certificate("reference_impl")
    assert reference["certify"] and _gate(reference, tmp_path) == 0
    assert _gate(_certificate(TORCH), tmp_path) == 1
    assert _gate(_selected(["TFM_ORDER_*"]), tmp_path) == 1
    incomplete = {**reference, "run": {**reference["run"], "complete": False}}
    assert _gate(incomplete, tmp_path) == 1
