"""The root causes of the compiled divergences (conformance.report.causes): every compiled
expected failure names causes the causes file tells, each cause is named, and the report and the
docs page are made from them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conformance.report import causes
from conformance.report.causes import CausesError, load_causes, markdown, rst

ROOT = Path(__file__).resolve().parents[1]


def test_the_shipped_causes_load_each_named_by_a_compiled_expected_failure() -> None:
    found = load_causes()
    assert len(found) >= 10
    for cause in found.values():
        assert cause.rules, cause.name
        assert cause.severity in causes.SEVERITIES
        assert all(rule.startswith("TFM_") for rules in cause.rules.values() for rule in rules)


@pytest.mark.parametrize("path", sorted(causes.FOLDER.glob("torch-*-compiled.toml")),
                         ids=lambda p: p.stem)
def test_every_rule_of_a_compiled_file_is_reached_from_some_cause(path: Path) -> None:
    found = load_causes()
    release = path.stem.removeprefix("torch-").removesuffix("-compiled")
    covered = {rule for cause in found.values() for rule in cause.rules.get(release, ())}
    text = path.read_text(encoding="utf-8")
    entries = {line[1:-1] for line in text.splitlines() if line.startswith("[TFM_")}
    assert covered == entries


def test_the_markdown_has_one_section_per_cause_with_its_repro() -> None:
    found = load_causes()
    text = markdown(found)
    assert text.count("\n## ") == len(found)
    assert text.count("```python") == len(found)
    for cause in found.values():
        assert cause.repro.strip() in text
        assert f"## {cause.title}\n" in text


def test_a_cause_holds_where_its_repro_exits_1_even_where_no_scenario_shows_it() -> None:
    """The report names the releases whose compiled files name a cause and, marked, those where
    only its recorded repro run exits 1; a recorded 0 is said apart, never as holding."""
    from conformance.report.causes import Cause

    cause = Cause("c", "A title", "exception", (), "print('EAGER:', 1)\n", {"2.9.1": ("R",),
                  "2.10.0": ("R",)}, {"2.8.0": 1, "2.13.0": 0, "2.11.0": 1})
    text = markdown({"c": cause})
    assert ("- **Holds on:** torch 2.8.0 (repro only), 2.9.1, 2.10.0, 2.11.0 (repro only)"
            in text.splitlines())
    assert "- **Repro exits 0 on:** torch 2.13.0" in text.splitlines()
    assert "| **Repro exits 0 on:** torch 2.13.0" in rst({"c": cause}).splitlines()
    plain = Cause("d", "B", "exception", (), "x\n", {"2.9.1": ("R",)}, {})
    assert "Repro exits 0" not in markdown({"d": plain})


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    # every compiled file: a cause only an older release names is in use, as in the repository
    for path in (causes.FOLDER / "compiled-causes.toml", *causes.FOLDER.glob("*-compiled.toml")):
        shutil.copy(path, tmp_path / path.name)
    return tmp_path


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


@pytest.mark.parametrize(("file", "old", "new", "message"), [
    ("torch-2.13.0-compiled.toml", 'causes = ["kwargs-empty-dict"]', 'causes = ["no-such-cause"]',
     "names cause 'no-such-cause', which compiled-causes.toml does not tell"),
    ("torch-2.13.0-compiled.toml", 'causes = ["reflected-comparison"]\n', '',
     "a compiled expected failure names its root causes"),
    ("torch-2.13.0-compiled.toml", 'causes = ["reflected-comparison"]\n',
     'causes = ["reflected-comparison"]\nsnippet = "print(1)"\n',
     "a compiled expected failure has no snippet of its own"),
    ("compiled-causes.toml", 'severity = "exception"', 'severity = "bad"', "is not one of"),
    ("compiled-causes.toml", 'sys.exit(1 if eager != compiled else 0)', 'pass',
     "the repro must print EAGER: and COMPILED: and exit"),
    ("compiled-causes.toml", "[kwargs-empty-dict]", "[kwargs-empty-dict]\nextra = 1", "unknown key(s) extra"),
    ("compiled-causes.toml", "upstream = []", 'upstream = ["https://example.org/x"]', "upstream must be"),
    # kwargs-empty-dict records no exit (every release whose file could name it does): each row
    # gives it one
    ("compiled-causes.toml", "[kwargs-empty-dict]\n", '[kwargs-empty-dict]\nrepro_exits = { "2.8.0" = 2 }\n',
     "repro_exits must map releases (X.Y.Z) to 0 or 1"),
    ("compiled-causes.toml", "[kwargs-empty-dict]\n",
     '[kwargs-empty-dict]\nrepro_exits = { "2.8.0" = true }\n',
     "repro_exits must map releases (X.Y.Z) to 0 or 1"),
    ("compiled-causes.toml", "[kwargs-empty-dict]\n", '[kwargs-empty-dict]\nrepro_exits = { "latest" = 1 }\n',
     "repro_exits must map releases (X.Y.Z) to 0 or 1"),
    ("compiled-causes.toml", "[kwargs-empty-dict]\n", '[kwargs-empty-dict]\nrepro_exits = { "2.13.0" = 1 }\n',
     "repro_exits names 2.13.0, whose compiled file names the cause"),
])
def test_a_bad_file_is_one_line(folder: Path, file: str, old: str, new: str, message: str) -> None:
    _edit(folder / file, old, new)
    with pytest.raises(CausesError, match=None) as caught:
        load_causes(folder)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_a_cause_no_file_names_is_refused(folder: Path) -> None:
    with open(folder / "compiled-causes.toml", "a", encoding="utf-8") as handle:
        handle.write('\n[orphan]\ntitle = "t"\nseverity = "exception"\nupstream = []\n'
                     'repro = "print(\'EAGER:\', 1)\\nprint(\'COMPILED:\', 2)\\nsys.exit(1)"\n')
    with pytest.raises(CausesError, match=r"no compiled expected failure names orphan$"):
        load_causes(folder)


def test_the_docs_page_links_each_rule_and_shows_each_repro() -> None:
    found = load_causes()
    text = rst(found)
    for cause in found.values():
        assert f".. _cause-{cause.name}:" in text
        for rule in {r for rules in cause.rules.values() for r in rules}:
            assert f":rule:`{rule}`" in text
    generated = ROOT / "docs" / "_generated" / "compiled-causes.rst"
    assert generated.read_text(encoding="utf-8") == text, "run python -m conformance.matrix"


def test_report_compiled_writes_the_markdown_and_refuses_without_the_flag(tmp_path: Path) -> None:
    out = tmp_path / "report.md"
    done = subprocess.run([sys.executable, "-m", "conformance", "report", "--compiled",
                           "--output", str(out)], cwd=tmp_path, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert out.read_text(encoding="utf-8") == markdown(load_causes())
    bare = subprocess.run([sys.executable, "-m", "conformance", "report"], cwd=tmp_path,
                          capture_output=True, text=True, check=False)
    assert bare.returncode == 2 and "--compiled" in bare.stderr
    unwritable = subprocess.run([sys.executable, "-m", "conformance", "report", "--compiled",
                                 "--output", str(tmp_path / "no" / "such" / "x.md")],
                                cwd=tmp_path, capture_output=True, text=True, check=False)
    assert unwritable.returncode == 2
    assert unwritable.stderr.count("\n") == 1 and "cannot write" in unwritable.stderr
