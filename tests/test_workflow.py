"""The release matrix workflow runs exactly the releases the release tool checks, each on an
interpreter the workflow installs, and those are the releases whose certificates are committed."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conformance import release

ROOT = Path(__file__).resolve().parents[1]
WORKFLOW = ROOT / ".github" / "workflows" / "releases.yml"


def _workflow_releases(text: str) -> list[str]:
    found = re.findall(r"^\s+release: (\[.*\])\s*$", text, re.M)
    assert len(found) == 1, "the workflow has one matrix line `release: [...]`"
    listed: list[str] = json.loads(found[0])
    return listed


def test_the_workflow_s_matrix_is_the_release_tool_s() -> None:
    assert _workflow_releases(WORKFLOW.read_text(encoding="utf-8")) == list(release.RELEASES)


def test_each_release_has_an_interpreter_the_workflow_installs() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    installed = set(re.findall(r"^\s+(3\.\d+)\s*$", text, re.M))
    for name in release.RELEASES:
        major, minor, _ = release.parse_release(name)
        assert release.PYTHON_FOR_SERIES[(major, minor)] in installed, name


def test_the_committed_certificates_are_of_those_releases() -> None:
    folder = ROOT / "docs" / "certificates"
    committed = sorted(p.stem.removeprefix("torch-") for p in folder.glob("torch-*.json")
                       if re.fullmatch(r"torch-\d+\.\d+\.\d+", p.stem))
    assert committed == sorted(release.RELEASES)


def test_a_release_missing_from_the_workflow_is_found() -> None:
    text = WORKFLOW.read_text(encoding="utf-8").replace('"2.0.1", ', "")
    assert _workflow_releases(text) != list(release.RELEASES)
