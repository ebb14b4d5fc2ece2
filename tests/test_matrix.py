"""The compatibility matrix in the docs is generated from the committed certificates and is current."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

from conformance import matrix
from conformance.tools import evolution, glance

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

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


def test_compiled_columns_follow_the_eager_ones_by_version_not_by_file_name(tmp_path: Path) -> None:
    """By file name torch-2.9.1-compiled would come after torch-2.14.1-compiled, and the evolution
    page, which reads the columns in order, would say a divergence of 2.9.1 appeared later."""
    for name in ("torch-2.14.1-compiled", "torch-2.9.1-compiled", "torch-2.10.0", "my_impl",
                 "torch-2.10.0-compiled", "torch-2.9.1", "reference_impl"):
        (tmp_path / f"{name}.json").write_text("{}")
    assert [p.stem for p in matrix.columns(tmp_path)] == [
        "reference_impl", "torch-2.9.1", "torch-2.10.0", "torch-2.9.1-compiled",
        "torch-2.10.0-compiled", "torch-2.14.1-compiled", "my_impl"]


def test_a_new_certificate_becomes_a_column(tmp_path: Path) -> None:
    shutil.copytree(CERTIFICATES, tmp_path / matrix.CERTIFICATES)
    data = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    data["implementation"]["version"] = data["implementation"]["release"] = "2.99.0"
    (tmp_path / matrix.CERTIFICATES / "torch-2.99.0.json").write_text(json.dumps(data))
    assert matrix.main(["--root", str(tmp_path)]) == 0
    assert "     - 2.99.0\n" in (tmp_path / matrix.OUTPUT).read_text()
    assert "2.99.0." in (tmp_path / matrix.EVOLUTION).read_text()
    assert "   * - **2.99.0**\n" in (tmp_path / matrix.GLANCE).read_text()


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
    for page in (matrix.GLANCE, matrix.OUTPUT, matrix.EVOLUTION, matrix.CAUSES):
        shutil.copy(ROOT / page, tmp_path / page)
    shutil.copytree(ROOT / matrix.EXPECTED_FAILURES, tmp_path / matrix.EXPECTED_FAILURES)
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 0
    first = matrix.columns(tmp_path / matrix.CERTIFICATES)[0]
    data = json.loads(first.read_text())
    data["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    first.write_text(json.dumps(data))
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 1
    assert matrix.main(["--root", str(tmp_path)]) == 0
    assert matrix.main(["--check", "--root", str(tmp_path)]) == 0


def test_spans_are_runs_of_consecutive_releases() -> None:
    order = ["1.12.1", "1.13.1", "2.0.1", "2.1.2", "2.2.2"]
    assert evolution.spans(["1.12.1", "2.0.1", "2.1.2", "2.2.2"], order) == "1.12.1, 2.0.1–2.2.2"
    assert evolution.spans(["1.13.1"], order) == "1.13.1"
    assert evolution.spans([], order) == ""


def _torch_certificates() -> list[dict[str, Any]]:
    loaded = [json.loads(path.read_text()) for path in matrix.columns(CERTIFICATES)]
    return [c for c in loaded if c["implementation"]["name"] == "torch" and not matrix.compiled(c)]


def test_every_divergence_of_every_release_links_its_snippet() -> None:
    certificates = _torch_certificates()
    groups = evolution.divergences(certificates, ROOT / matrix.EXPECTED_FAILURES)
    text = (ROOT / matrix.EVOLUTION).read_text()
    for cert in certificates:
        release = evolution.release_of(cert)
        for rule_id, entry in cert["rules"].items():
            if entry["verdict"] != "expected_failure":
                continue
            data = tomllib.loads((ROOT / matrix.EXPECTED_FAILURES / f"torch-{release}.toml").read_text())
            group = groups[(rule_id, data[rule_id]["snippet"].strip())]
            assert release in group["releases"]
            section = text.split(f".. _{group['label']}:", 1)[1].split(".. _divergence-", 1)[0]
            assert data[rule_id]["snippet"].strip().splitlines()[-1].strip() in section
            rule_entry = text.split(f":rule:`{rule_id}`", 1)[1].split("* :rule:", 1)[0]
            assert f":ref:`{group['label']}`" in rule_entry, f"{rule_id}: no link to its divergence"


def test_a_change_of_verdict_between_releases_is_shown(tmp_path: Path) -> None:
    base = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    older, newer = json.loads(json.dumps(base)), json.loads(json.dumps(base))
    older["implementation"]["release"], newer["implementation"]["release"] = "2.98.0", "2.99.0"
    older["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    text = evolution.render_evolution([older, newer], tmp_path)
    entry = text.split(":rule:`TFM_ORDER_001`", 1)[1].split("* :rule:", 1)[0]
    assert "**fails**: 2.98.0" in entry and "holds: 2.99.0" in entry
    assert "changed: 2.99.0 (**fails** → holds)" in entry


def test_a_rule_added_since_a_certificate_is_no_change_and_no_untested(tmp_path: Path) -> None:
    base = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    older, middle, newer = (json.loads(json.dumps(base)) for _ in range(3))
    for cert, release in ((older, "2.97.0"), (middle, "2.98.0"), (newer, "2.99.0")):
        cert["implementation"]["release"] = release
    del middle["rules"]["TFM_ORDER_001"]  # certified before the rule existed
    text = evolution.render_evolution([older, middle, newer], tmp_path)
    assert "* :rule:`TFM_ORDER_001`" not in text  # no change: among the rules that hold
    rest = text.split("Hold wherever they apply and are tested", 1)[1].split("Divergences", 1)[0]
    line = next(line for line in rest.splitlines() if ":rule:`TFM_ORDER_001`" in line)
    assert line.startswith("* holds: 2.97.0, 2.99.0; not yet in the specification it was "
                           "certified against: 2.98.0 (1): ")
    assert "untested" not in line
    row = matrix.render([older, middle, newer]).split(":rule:`TFM_ORDER_001`", 1)[1]
    assert [line.strip() for line in row.splitlines()[2:5]] == ["- ✓", "- —", "- ✓"]


def test_evolution_lists_changed_rules_then_divergent_ones_then_the_rest(tmp_path: Path) -> None:
    base = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    for entry in base["rules"].values():
        entry["verdict"] = "pass"
    first, second, third = (json.loads(json.dumps(base)) for _ in range(3))
    for cert, release in ((first, "2.97.0"), (second, "2.98.0"), (third, "2.99.0")):
        cert["implementation"]["release"] = release
    third["rules"]["TFM_TYPES_002"]["verdict"] = "expected_failure"  # changed at 2.99.0
    for cert in (first, second, third):  # diverges everywhere
        cert["rules"]["TFM_ARGS_001"]["verdict"] = "expected_failure"
    first["rules"]["TFM_ARGS_002"]["verdict"] = "not_applicable"  # an applicability flip only
    first["rules"]["TFM_ARGS_004"]["verdict"] = "not_applicable"  # a flip, then a change
    third["rules"]["TFM_ARGS_004"]["verdict"] = "fail"
    second["rules"]["TFM_ORDER_002"]["verdict"] = "untested"  # untested is no change
    text = evolution.render_evolution([first, second, third], tmp_path)
    changed = text.split("Changed between releases (2)", 1)[1].split("Diverge on every", 1)[0]
    diverging = text.split("Diverge on every release they apply to (1)", 1)[1].split(
        "Hold wherever", 1)[0]
    rest = text.split("Hold wherever they apply and are tested (", 1)[1].split("Divergences", 1)[0]
    assert changed.index(":rule:`TFM_TYPES_002`") < changed.index(":rule:`TFM_ARGS_004`")
    assert "changed: 2.99.0 (holds → diverges (expected failure))" in changed
    assert ":rule:`TFM_ARGS_001`" in diverging and "TFM_ARGS_004" not in diverging
    assert "* holds: 2.97.0–2.99.0 (" in rest
    for rule_id in ("TFM_ARGS_002", "TFM_ORDER_002", "TFM_ORDER_001"):
        assert f":rule:`{rule_id}`" in rest and f"* :rule:`{rule_id}`" not in text
    assert "* holds: 2.98.0–2.99.0; not applicable: 2.97.0 (1): :rule:`TFM_ARGS_002`." in rest


def test_a_compiled_certificate_is_its_own_column_and_not_a_release(tmp_path: Path) -> None:
    shutil.copytree(CERTIFICATES, tmp_path / matrix.CERTIFICATES)
    shutil.copytree(ROOT / matrix.EXPECTED_FAILURES, tmp_path / matrix.EXPECTED_FAILURES)
    data = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    data["run"]["compile"] = {"backend": "eager", "scenarios": 1}
    data["rules"]["TFM_ORDER_001"]["verdict"] = "not_compiled"
    (tmp_path / matrix.CERTIFICATES / "torch-2.13.0-compiled.json").write_text(json.dumps(data))
    assert matrix.main(["--root", str(tmp_path)]) == 0
    table = (tmp_path / matrix.OUTPUT).read_text()
    assert "     - 2.13.0 compiled\n" in table
    assert table.split(":rule:`TFM_ORDER_001`", 1)[1].split("   * -", 1)[0].count("nc") == 1
    eager, under_compile = (tmp_path / matrix.EVOLUTION).read_text().split("Under torch.compile\n", 1)
    assert "compiled" not in eager  # the eager view counts no compiled certificate as a release
    assert ("Releases checked under ``torch.compile``, oldest first: "
            "2.5.1, 2.6.0, 2.7.1, 2.8.0, 2.9.1, 2.10.0, 2.11.0, 2.12.1, 2.13.0, 2.14.1.") in under_compile


def test_the_evolution_page_says_when_each_compiled_divergence_appeared_and_went_away() -> None:
    from conformance.report.causes import Cause

    base = json.loads((CERTIFICATES / "torch-2.13.0-compiled.json").read_text())
    releases = ("2.96.0", "2.97.0", "2.98.0", "2.99.0")
    certs = [json.loads(json.dumps(base)) for _ in releases]
    for cert, release in zip(certs, releases, strict=True):
        cert["implementation"]["release"] = release
        cert["rules"]["TFM_ORDER_001"]["verdict"] = "pass"
    certs[0]["rules"]["TFM_ORDER_001"]["verdict"] = "expected_failure"

    def cause(name: str, *shown: str, **exits: int) -> Cause:
        return Cause(name, name, "wrong result", (), "", {r: ("TFM_ORDER_001",) for r in shown},
                     {r.replace("_", "."): v for r, v in exits.items()})

    told = [cause("old-bug", "2.96.0", **{"2_97_0": 0}),
            cause("unseen-later", "2.96.0", **{"2_99_0": 1}),
            cause("gone-by", "2.96.0", **{"2_99_0": 0}),
            cause("new-bug", "2.98.0", "2.99.0", **{"2_97_0": 0}),
            cause("older-than-shown", "2.98.0", **{"2_96_0": 1}),
            cause("absent-earlier", "2.98.0", **{"2_96_0": 0}),
            cause("unchecked", "2.97.0", "2.98.0"),
            cause("always", *releases)]
    lines = evolution.render_compiled(certs, {c.name: c for c in told}).splitlines()

    def said(name: str, text: str) -> bool:
        return f"* :ref:`{name} <cause-{name}>`: {text}." in lines

    assert said("old-bug", "shown on 2.96.0; shown on or before 2.96.0; gone in 2.97.0 (its "
                "repro exits 0 there)")
    # a certificate that does not show a cause is not its absence: only its repro says that
    assert said("unseen-later", "shown on 2.96.0; shown on or before 2.96.0; not shown from "
                "2.97.0 on, but its repro still exits 1 on 2.99.0 (no scenario there reaches it)")
    assert said("gone-by", "shown on 2.96.0; shown on or before 2.96.0; not shown from 2.97.0 "
                "on (its repro not run there); gone by 2.99.0 (its repro exits 0 there)")
    assert said("new-bug", "shown on 2.98.0–2.99.0; appeared in 2.98.0 (its repro exits 0 on "
                "2.97.0); not gone")
    assert said("older-than-shown", "shown on 2.98.0; first shown in 2.98.0, but its repro exits "
                "1 on 2.96.0 already (no scenario there reaches it); not shown from 2.99.0 on "
                "(its repro not run there)")
    assert said("absent-earlier", "shown on 2.98.0; first shown in 2.98.0; absent on 2.96.0 (its "
                "repro exits 0 there; not run on 2.97.0); not shown from 2.99.0 on (its repro not "
                "run there)")
    assert said("unchecked", "shown on 2.97.0–2.98.0; first shown in 2.97.0 (its repro not run "
                "on 2.96.0); not shown from 2.99.0 on (its repro not run there)")
    assert said("always", "shown on 2.96.0–2.99.0; shown on or before 2.96.0; not gone")
    assert "* :rule:`TFM_ORDER_001`: 2.97.0 (diverges (expected failure) → holds)." in lines


def test_releases_at_a_glance_are_newest_first_with_links_and_reasons(tmp_path: Path) -> None:
    base = json.loads((CERTIFICATES / "torch-2.13.0.json").read_text())
    older, newer = (json.loads(json.dumps(base)) for _ in range(2))
    older["implementation"]["release"], newer["implementation"]["release"] = "2.98.0", "2.99.0"
    newer["rules"]["TFM_ORDER_001"]["verdict"] = "fail"
    groups = evolution.divergences([older, newer], tmp_path)
    text = glance.render_glance([older, newer], groups, tmp_path)
    assert text.index("* - **2.99.0**") < text.index("* - **2.98.0**")
    newest = text.split("* - **2.99.0**", 1)[1].split("* - **2.98.0**", 1)[0]
    assert "level none, MUST " in newest
    assert "**TFM_ORDER_001** fails (unexpected) — Mode before subclasses" in newest
    excused = [r for r, e in base["rules"].items() if e["verdict"] == "expected_failure"]
    assert excused and all(f":ref:`{r} <divergence-" in newest for r in excused)


def test_each_rule_a_release_breaks_has_a_short_reason_beside_its_link() -> None:
    text = (ROOT / matrix.GLANCE).read_text()
    for cert in _torch_certificates():
        release = evolution.release_of(cert)
        row = text.split(f"   * - **{release}**\n", 1)[1].split("   * - ", 1)[0]
        data = tomllib.loads((ROOT / matrix.EXPECTED_FAILURES / f"torch-{release}.toml").read_text())
        for rule_id, entry in cert["rules"].items():
            if entry["verdict"] != "expected_failure":
                continue
            item = row.split(f":ref:`{rule_id} <divergence-", 1)[1].split("\n", 1)[0]
            reason = glance.short_reason(data[rule_id]["reason"])
            assert item.split("` — ", 1)[1] == evolution.plain(reason), (release, rule_id)
            assert 0 < len(reason) <= glance.SHORT + 2


def test_a_short_reason_is_the_first_sentence_cut_at_a_word() -> None:
    assert glance.short_reason("x.neg() is wrong. Then e.g. more.") == "x.neg() is wrong."
    assert glance.short_reason("One, e.g. this. Two.") == "One, e.g. this."
    assert glance.short_reason("(measured). 34 listed") == "(measured)."
    long = "word " * 60 + "end. Next."
    assert glance.short_reason(long, limit=30) == "word word word word word word …"


def test_the_matrix_page_shows_the_releases_at_a_glance_before_the_full_matrix() -> None:
    page = (ROOT / "docs" / "matrix.rst").read_text()
    includes = [line.split("::", 1)[1].strip() for line in page.splitlines()
                if line.startswith(".. tfm-include-if-exists::")]
    assert includes[:3] == ["_generated/glance.rst", "_generated/matrix.rst",
                            "_generated/evolution.rst"]
    # nothing but the title and a short paragraph before it: it is on the first screen
    before = page.split(".. tfm-include-if-exists:: _generated/glance.rst", 1)[0]
    assert len(before.splitlines()) <= 15
