"""The real-code mutation harness, tested on reference_impl (no torch needed).

A control and each variant of tests/quality/real_mutants/reference.py are checked once,
in turn, through the command line (dev profile, fixed seed): the control must come out clean
and each variant killed on the rule its bug breaks. The control here is an edit that changes no
behaviour and only writes a line from the process that executes the edited module: the same
run shows that the suite's sandbox child is that process (one run, not two).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.quality.real_mutants import harness, reference, report, torch_overrides
from tests.quality.real_mutants.harness import Result, Variant, VariantError

from .cli import REPO, SuiteRun

pytestmark = pytest.mark.xdist_group("test_real_mutants")

VSET = reference.VARIANT_SET
_MARKER_ANCHOR = "_UNCHANGED = _Undefined()\n"


def _marker_variant(path: Path) -> Variant:
    """Changes no behaviour; appends '<pid> <argv[0]>' to ``path`` when the module executes."""
    line = (f"with open({str(path)!r}, 'a') as _marker:\n"
            "    _marker.write(f\"{__import__('os').getpid()} {__import__('sys').argv[0]}\\n\")\n")
    return Variant("marker", "records which process executes the edited module",
                   _MARKER_ANCHOR, _MARKER_ANCHOR + line)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("real_mutants")


@pytest.fixture(scope="module")
def runs(workdir: Path) -> Iterator[dict[str, Result]]:
    marker = _marker_variant(workdir / "marker.txt")
    installed = harness.locate(VSET.target)
    before = installed.read_bytes()
    control = harness.run_variant(VSET, marker, workdir)
    results = {v.name: harness.run_variant(VSET, v, workdir, control=control.run)
               for v in VSET.variants}
    assert installed.read_bytes() == before, "a variant run changed the installed file"
    yield {"control": control, **results}


def test_the_control_comes_out_clean(runs: dict[str, Result]) -> None:
    control = runs["control"]
    assert control.run is not None and control.run.certificate is not None, control.problem
    cert = control.run.certificate
    assert (control.status, control.failed_rules, control.problem) == ("survived", [], None)
    assert cert["run"]["complete"] and not cert["stale_expected_failures"]
    assert cert["implementation"]["name"] == "reference_impl"
    assert cert["level"]["reached"] in ("MUST", "SHOULD"), control.run.tail()
    assert control.run.returncode == 0
    harness.check(VSET, VSET.control)  # the set's own control (its command line's) still applies


@pytest.mark.parametrize("name", [v.name for v in reference.VARIANTS])
def test_each_variant_is_killed_on_the_rule_it_breaks(name: str, runs: dict[str, Result]) -> None:
    result = runs[name]
    assert result.status == "killed", f"{name}: {result.status} {result.problem or ''}"
    assert reference.RULES[name] in result.failed_rules, (name, result.failed_rules)


def test_the_sandbox_child_executes_the_edited_module(runs: dict[str, Result], workdir: Path) -> None:
    result = runs["control"]
    assert result.status == "survived", result.problem
    lines = (workdir / "marker.txt").read_text(encoding="utf-8").split("\n")
    records = [line.split(" ", 1) for line in lines if line]
    assert records, "the edited module was never executed"
    # Only the sandbox child (python -m conformance.sandbox._child) imports the implementation.
    assert all(Path(argv0).name == "_child.py" for _pid, argv0 in records), records
    assert all(int(pid) != os.getpid() for pid, _argv0 in records)


def test_a_variant_that_does_not_match_is_one_clear_line(tmp_path: Path) -> None:
    path = harness.locate(VSET.target)
    for old, count in (("no such text in the file", 0), ("return result", 2)):
        with pytest.raises(VariantError) as info:
            harness.run_variant(VSET, Variant("stale", "does not apply", old, "x"), tmp_path)
        message = str(info.value)
        assert message == (f"variant stale does not apply to {path}: "
                           f"the old text occurs {count} times, not exactly once")
    assert not (tmp_path / "stale").exists(), "a variant that does not apply was run"


def test_the_generated_module_reports_an_edit_that_no_longer_applies() -> None:
    code = ("import sys; sys.path.insert(0, sys.argv[1]); "
            "from tests.quality.real_mutants import runtime\n"
            "try:\n    runtime.install('alias', 'gone', 'reference_impl.overrides', "
            "'reference_impl', 'no such text', 'x')\n"
            "except ImportError as exc:\n    print(exc)\n")
    proc = subprocess.run([sys.executable, "-c", code, str(REPO)], capture_output=True,
                          text=True, check=True, cwd=REPO)
    path = harness.locate(VSET.target)
    assert proc.stdout == (f"variant gone does not apply to {path}: "
                           "the old text occurs 0 times, not exactly once\n")


def _run(certificate: dict[str, object] | None, returncode: int = 1) -> SuiteRun:
    return SuiteRun("impl", returncode, 1.0, certificate, "last line\n", Path("reports"))


def _certificate(verdicts: dict[str, str], complete: bool = True,
                 stale: tuple[str, ...] = ()) -> dict[str, object]:
    return {"rules": {r: {"verdict": v} for r, v in verdicts.items()},
            "run": {"complete": complete, "problems": [] if complete else ["2 tests not run"]},
            "stale_expected_failures": list(stale)}


def test_a_broken_run_is_never_killed() -> None:
    assert harness.classify(_run(None))[0] == "broken"
    assert harness.classify(_run(None))[3] == "no certificate (exit 1): last line"
    incomplete = harness.classify(_run(_certificate({"A": "fail"}, complete=False)))
    assert incomplete[0] == "broken" and incomplete[3] == "incomplete run: 2 tests not run"
    assert harness.classify(_run(_certificate({"A": "fail"}), returncode=3))[0] == "broken"
    assert harness.classify(_run(_certificate({"A": "fail"})))[:2] == ("killed", ["A"])
    assert harness.classify(_run(_certificate({"A": "pass"}, stale=("B",))))[0] == "killed"
    assert harness.classify(_run(_certificate({"A": "pass"}), returncode=0))[0] == "survived"


def test_new_failures_under_an_expected_failure_are_reported() -> None:
    def run(tests: list[str]) -> SuiteRun:
        failures = [{"test": t} for t in tests]
        rules = {"X": {"verdict": "expected_failure", "failures": failures},
                 "Y": {"verdict": "pass"}}
        return _run({**_certificate({}), "rules": rules}, returncode=0)

    control = run(["t1"])
    assert harness.masked(run(["t1"]), control) == []
    assert harness.masked(run(["t1", "t2"]), control) == ["X"]
    assert harness.masked(run(["t2"]), None) == []
    assert harness.classify(run(["t1", "t2"]))[0] == "survived"


def test_the_torch_variants_are_well_formed() -> None:
    names = [v.name for v in torch_overrides.VARIANTS]
    assert len(names) >= 15 and len(set(names)) == len(names)
    assert all("\n" not in v.description for v in torch_overrides.VARIANTS)
    # That each edit applies to torch 2.13.0's file is checked where torch is installed:
    # tox -e conformance-torch runs `python -m tests.quality.real_mutants --target torch --dry-run`.


def test_the_committed_torch_result_is_current() -> None:
    path = REPO / report.JSON_DEFAULT
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert [(v["name"], v["description"]) for v in doc["variants"]] == [
        (v.name, v.description) for v in torch_overrides.VARIANTS], "re-run the torch variants"
    assert doc["control"]["status"] == "survived" and not doc["control"]["failed_rules"]
    assert report.main(["--check", str(path), str(REPO / report.RST_DEFAULT)]) == 0
