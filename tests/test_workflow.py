"""The release matrix workflow runs exactly the releases the release tool checks, each on an
interpreter the workflow installs, and those are the releases whose certificates are committed;
a release job uploads what it wrote even when its check fails, and the collect job uploads every
page the matrix command writes."""

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


def _steps(text: str, job: str) -> list[str]:
    """The steps of ``job``, each as its text (a step starts with ``      - ``)."""
    jobs = re.split(r"^  (?=[\w-]+:\s*$)", text.split("\njobs:\n", 1)[1], flags=re.M)
    body = next(j for j in jobs if j.startswith(f"{job}:"))
    return ["      - " + step for step in re.split(r"^      - ", body, flags=re.M)[1:]]


def _uploads_whatever_happened(step: str) -> bool:
    condition = re.search(r"^        if: (.+?)\s*$", step, re.M)
    return condition is not None and condition[1].strip("${} ") in ("always()", "!cancelled()")


def test_a_release_that_fails_still_uploads_what_it_wrote() -> None:
    steps = _steps(WORKFLOW.read_text(encoding="utf-8"), "release")
    uploads = [s for s in steps if "uses: actions/upload-artifact" in s]
    assert uploads, "the release job uploads nothing"
    assert all(_uploads_whatever_happened(s) for s in uploads), \
        "the release job's upload runs only when the check succeeded: give it `if: always()`"
    check = next(i for i, s in enumerate(steps) if "conformance.release" in s)
    assert all(steps.index(s) > check for s in uploads)


def test_the_upload_condition_is_read_from_the_step() -> None:
    text = WORKFLOW.read_text(encoding="utf-8").replace("        if: always()\n", "")
    uploads = [s for s in _steps(text, "release") if "upload-artifact" in s]
    assert uploads and not any(_uploads_whatever_happened(s) for s in uploads)


def test_the_collect_job_uploads_every_page_the_matrix_command_writes() -> None:
    from conformance import matrix

    steps = _steps(WORKFLOW.read_text(encoding="utf-8"), "collect")
    uploaded = "".join(s for s in steps if "uses: actions/upload-artifact" in s)
    for page in (matrix.GLANCE, matrix.OUTPUT, matrix.EVOLUTION):
        assert f"            {page.as_posix()}\n" in uploaded, page


NIGHTLY = ROOT / ".github" / "workflows" / "nightly.yml"


def test_the_nightly_run_checks_the_large_scope_on_both_implementations_within_its_limits() -> None:
    text = NIGHTLY.read_text(encoding="utf-8")
    assert json.loads(re.findall(r"^\s+impl: (\[.*\])\s*$", text, re.M)[0]) == ["reference_impl", "torch"]
    assert "--exhaustive large" in text and "-k exhaustive" in text
    rule_timeout = int(re.findall(r"--rule-timeout (\d+)", text)[0])
    job_minutes = int(re.findall(r"timeout-minutes: (\d+)", text)[0])
    # eight chunks on two workers, each stopping at 90% of its limit: four rounds fit in the job
    assert 4 * 0.9 * rule_timeout <= job_minutes * 60 and rule_timeout >= 3600
    assert "conformance/expected_failures/torch-2.13.0.toml" in text
    assert (ROOT / "conformance" / "expected_failures" / "torch-2.13.0.toml").is_file()
