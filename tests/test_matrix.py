"""The compatibility matrix in the docs is generated from the committed certificates and is current."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conformance import matrix

ROOT = Path(__file__).resolve().parents[1]
CERTIFICATES = ROOT / matrix.CERTIFICATES


def test_committed_matrix_is_current() -> None:
    assert matrix.main(["--check", "--root", str(ROOT)]) == 0, \
        "outdated: regenerate with `python -m conformance.matrix`"


def test_every_committed_certificate_is_a_column() -> None:
    assert sorted(p.name for p in CERTIFICATES.glob("*.json")) == sorted(matrix.COLUMNS)


def test_matrix_has_a_row_per_rule_and_the_verdicts_of_each_certificate() -> None:
    certificates = [json.loads((CERTIFICATES / name).read_text()) for name in matrix.COLUMNS]
    text = matrix.render(certificates)
    for cert in certificates:
        for rule_id, entry in cert["rules"].items():
            row = text.split(f":rule:`{rule_id}`", 1)[1].split("   * -", 1)[0]
            assert matrix.CELL[entry["verdict"]] in row, (rule_id, cert["implementation"]["name"])


def test_a_changed_certificate_makes_the_matrix_outdated(tmp_path: Path) -> None:
    shutil.copytree(CERTIFICATES, tmp_path / matrix.CERTIFICATES)
    (tmp_path / matrix.OUTPUT).parent.mkdir(parents=True)
    shutil.copy(ROOT / matrix.OUTPUT, tmp_path / matrix.OUTPUT)
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 0
    first = tmp_path / matrix.CERTIFICATES / matrix.COLUMNS[0]
    data = json.loads(first.read_text())
    data["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    first.write_text(json.dumps(data))
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 1
    assert matrix.main(["--root", str(tmp_path)]) == 0
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 0
