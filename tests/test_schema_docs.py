"""The pages that say which certificate schemas are written and read say what the code does:
api.rst's ``load_certificate`` paragraph and certificate.rst's ``schema_version`` entry against
``SCHEMA_VERSION`` and the versions the certificate schema accepts."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conformance import CertifyError, load_certificate
from conformance.report.certificate import CERTIFICATE_SCHEMA, SCHEMA_VERSION

DOCS = Path(__file__).resolve().parents[1] / "docs"
ACCEPTED = sorted(CERTIFICATE_SCHEMA["properties"]["schema_version"]["enum"])


def _paragraph(page: str, start: str) -> str:
    text = (DOCS / page).read_text(encoding="utf-8")
    assert start in text, f"{page}: no paragraph starting {start!r}"
    return " ".join(text.split(start, 1)[1].split("\n\n", 1)[0].split())


def test_the_accepted_schemas_are_a_run_of_versions_ending_with_today_s() -> None:
    assert list(range(ACCEPTED[0], SCHEMA_VERSION + 1)) == ACCEPTED


def test_api_page_says_which_schemas_load_certificate_reads() -> None:
    said = _paragraph("api.rst", "``conformance.load_certificate(path)``")
    found = re.search(r"schema (\d+) to (\d+)", said)
    assert found, f"api.rst does not say which schemas load_certificate reads: {said}"
    assert [int(found[1]), int(found[2])] == [ACCEPTED[0], ACCEPTED[-1]], said
    written = re.search(r"runs write schema (\d+)", said)
    assert written and int(written[1]) == SCHEMA_VERSION, said


def test_certificate_page_says_which_schema_is_written_and_which_are_read() -> None:
    said = _paragraph("certificate.rst", "``schema_version``\n")
    assert said.startswith(f"the shape of the file (``{SCHEMA_VERSION}``)"), said
    assert f"Version {SCHEMA_VERSION} added" in said, said
    older = re.search(r"certificates of versions ([\d, and]+) are still read", said)
    assert older, said
    assert [int(v) for v in re.findall(r"\d+", older[1])] == ACCEPTED[:-1], said


def test_load_certificate_reads_today_s_schema_and_refuses_the_next(tmp_path: Path) -> None:
    document = json.loads((DOCS / "certificates" / "reference_impl.json").read_text(encoding="utf-8"))
    assert document["schema_version"] == SCHEMA_VERSION
    assert load_certificate(DOCS / "certificates" / "reference_impl.json").document["schema_version"] \
        == SCHEMA_VERSION
    document["schema_version"] = ACCEPTED[-1] + 1
    (tmp_path / "next.json").write_text(json.dumps(document), encoding="utf-8")
    with pytest.raises(CertifyError):
        load_certificate(tmp_path / "next.json")
