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
    assert sorted(p.name for p in CERTIFICATES.glob("*.json")) == sorted(
        p.name for p in matrix.columns(CERTIFICATES))


def test_columns_are_the_reference_then_torch_releases_by_version(tmp_path: Path) -> None:
    for name in ("torch-2.13.0", "torch-2.0.1", "reference_impl", "torch-1.12.1", "torch-2.2.2"):
        (tmp_path / f"{name}.json").write_text("{}")
    assert [p.stem for p in matrix.columns(tmp_path)] == [
        "reference_impl", "torch-1.12.1", "torch-2.0.1", "torch-2.2.2", "torch-2.13.0"]


def test_a_new_certificate_becomes_a_column(tmp_path: Path) -> None:
    shutil.copytree(CERTIFICATES, tmp_path / matrix.CERTIFICATES)
    data = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    data["implementation"]["version"] = "2.99.0"
    (tmp_path / matrix.CERTIFICATES / "torch-2.99.0.json").write_text(json.dumps(data))
    assert matrix.main(["--root", str(tmp_path)]) == 0
    assert "torch 2.99.0" in (tmp_path / matrix.OUTPUT).read_text()


def test_matrix_has_a_row_per_rule_and_the_verdicts_of_each_certificate() -> None:
    certificates = [json.loads(path.read_text()) for path in matrix.columns(CERTIFICATES)]
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
    first = matrix.columns(tmp_path / matrix.CERTIFICATES)[0]
    data = json.loads(first.read_text())
    data["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    first.write_text(json.dumps(data))
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 1
    assert matrix.main(["--root", str(tmp_path)]) == 0
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 0
