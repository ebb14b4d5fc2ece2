"""The compatibility matrix in the docs is generated from the committed certificates and is current."""

from __future__ import annotations

import json
from pathlib import Path

from conformance import matrix

ROOT = Path(__file__).resolve().parents[1]


def test_committed_matrix_is_current() -> None:
    assert matrix.main(["--check"]) == 0, "outdated: regenerate with `python -m conformance.matrix`"


def test_every_committed_certificate_is_a_column() -> None:
    committed = sorted(p.name for p in matrix.CERTIFICATES.glob("*.json"))
    assert committed == sorted(matrix.COLUMNS)


def test_matrix_has_a_row_per_rule_and_the_verdicts_of_each_certificate() -> None:
    certificates = [json.loads((matrix.CERTIFICATES / name).read_text()) for name in matrix.COLUMNS]
    text = matrix.render(certificates)
    for cert in certificates:
        for rule_id, entry in cert["rules"].items():
            row = text.split(f":rule:`{rule_id}`", 1)[1].split("   * -", 1)[0]
            assert matrix.CELL[entry["verdict"]] in row, (rule_id, cert["implementation"]["name"])


def test_a_changed_certificate_makes_the_matrix_outdated(tmp_path: Path, monkeypatch: object) -> None:
    import pytest

    mp = pytest.MonkeyPatch()
    try:
        certs = tmp_path / "certificates"
        certs.mkdir()
        for name in matrix.COLUMNS:
            data = json.loads((matrix.CERTIFICATES / name).read_text())
            if name == matrix.COLUMNS[0]:
                data["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
            (certs / name).write_text(json.dumps(data))
        mp.setattr(matrix, "CERTIFICATES", certs)
        assert matrix.main(["--check"]) == 1
    finally:
        mp.undo()
