"""The committed expected-failures files for torch: well-formed, and their snippets show the divergence."""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import sys
from pathlib import Path

import pytest

from conformance.session.expectations import load_expectations, load_scopes
from spec.catalogue import load_catalogue

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

FOLDER = Path(__file__).resolve().parents[1] / "conformance" / "expected_failures"
FILES = sorted(FOLDER.glob("torch-*.toml"))
TORCH = importlib.util.find_spec("torch") is not None


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_file_loads_and_names_rules_that_hold_for_torch(path: Path) -> None:
    entries = load_expectations(path, load_catalogue().ids())
    release = path.stem.removeprefix("torch-")
    generation = "2022" if release.startswith("1.12.") else "stack"
    version = "1.13" if release.startswith("1.") else "2.x"
    for rule_id in entries:
        assert load_catalogue().by_id(rule_id).applies_to(generation, version), rule_id
    data = tomllib.loads(path.read_text())
    if not path.stem.endswith("-compiled"):  # a compiled entry is reproduced by its causes'
        # repros: conformance.report.causes.load_causes refuses one without them (test_causes.py)
        assert all(entry.get("snippet", "").strip() for entry in data.values()), "every entry has a snippet"


@pytest.mark.parametrize("path", [p for p in FILES if p.stem.endswith("-compiled")], ids=lambda p: p.stem)
def test_every_compiled_entry_is_scoped(path: Path) -> None:
    """A compiled entry without functions would excuse every divergence of its rule, in any
    function and any compiled run: each names where its divergence shows."""
    scopes = load_scopes(path, load_catalogue().ids())
    assert scopes, "the file has entries"
    unscoped = sorted(rule_id for rule_id, functions in scopes.items() if not functions)
    assert not unscoped, f"{path.name}: entries without functions: {unscoped}"


CERTIFICATES = Path(__file__).resolve().parents[1] / "docs" / "certificates"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_committed_certificate_gives_the_files_reasons(path: Path) -> None:
    """Each expected failure of a committed certificate carries the reason its file gives now:
    a reason edited after the run must not leave the certificate saying the old one."""
    certificate = json.loads((CERTIFICATES / f"{path.stem}.json").read_text())
    reasons = load_expectations(path, load_catalogue().ids())
    given = {rule_id: rule["expected_failure_reason"]
             for rule_id, rule in certificate["rules"].items()
             if rule.get("expected_failure_reason") is not None}
    assert given, "the certificate gives no expected failure"
    differ = sorted(rule_id for rule_id, reason in given.items() if reasons.get(rule_id) != reason)
    assert not differ, f"{path.stem}.json gives other reasons than {path.name}: {differ}"


def _snippets_for_installed_torch() -> list[object]:
    if not TORCH:
        return []
    import torch

    stem = f"torch-{torch.__version__.split('+')[0]}"
    cases: list[object] = []
    for path in FILES:
        if path.stem == stem:
            for rule_id, entry in tomllib.loads(path.read_text()).items():
                cases.append(pytest.param(entry["snippet"], id=f"{path.stem}-{rule_id}"))
    return cases


if TORCH:  # defined only where torch is installed (tox -e conformance-torch, a torch venv)

    @pytest.mark.parametrize("snippet", _snippets_for_installed_torch())
    def test_snippet_shows_the_divergence(snippet: str) -> None:
        """A snippet shows a non-empty ``types`` where the rule says empty, or (one that checks
        its own divergence, such as the device context's) prints ``diverges: True``."""
        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.suppress(RecursionError):
            exec(compile(snippet, "<snippet>", "exec"), {"__name__": "snippet"})
        shown = out.getvalue()
        assert "(<class" in shown or "diverges: True" in shown, shown
