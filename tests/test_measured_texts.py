"""The texts table agrees with every committed measurement, and the measuring tool records faithfully.

``docs/texts/torch-X.json`` is what ``python -m conformance texts --impl torch`` wrote on
torch X (``conformance.release`` runs it). For each text example measured there, the model's
prediction for that release must match the measured text: a table entry that contradicts a
measurement fails here, without torch installed.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from conformance.__main__ import main
from conformance.adapter import load_adapter
from conformance.judge.compare import event_matches, message_pattern
from conformance.tools.measure import measure, template, text_examples
from spec.examples import load_examples
from spec.model import predict
from spec.model.trace import Message, Raised, WarningEmitted
from spec.texts import release_key

ROOT = Path(__file__).resolve().parents[1]
MEASURED = sorted((ROOT / "docs" / "texts").glob("torch-*.json"))
EXAMPLES = {example.name: example for example in load_examples()}
PLACEHOLDER = re.compile(r"\{(type|mode|func|text) ([^{}\s]+)\}")


def _naming(*templates: str) -> dict[tuple[str, str], str]:
    """Each object a template names, shown as the placeholder the template has for it."""
    return {(m[1], m[2]): m[0] for t in templates for m in PLACEHOLDER.finditer(t)}


def _records(path: Path) -> list[tuple[str, dict[str, Any], str | None, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    release = data["release"]
    version = "1.13" if release.startswith("1.13") else "2.x"
    return [(release, r, release_key(release), version) for r in data["texts"]]


CASES = [pytest.param(*case, id=f"{path.stem}-{case[1]['example']}")
         for path in MEASURED for case in _records(path)]


def test_every_certified_release_has_its_texts_measured_and_no_other() -> None:
    certified = {p.stem for p in (ROOT / "docs" / "certificates").glob("torch-*.json")
                 if not p.stem.endswith("-compiled")}  # a compiled run measures no texts
    assert certified, "no torch certificate committed"
    assert {p.stem for p in MEASURED} == certified


@pytest.mark.parametrize(("release", "record", "key", "version"), CASES)
def test_the_table_predicts_the_measured_text(release: str, record: dict[str, Any], key: str | None,
                                              version: str) -> None:
    assert "fault" not in record, f"torch {release} did not finish {record['example']}: {record.get('fault')}"
    example = EXAMPLES[record["example"]]
    expected = predict(example.scenario, version if example.scenario.generation == "stack" else None, key)
    raised = record["raised"]
    if isinstance(expected.outcome, Raised):
        assert raised is not None, f"the model predicts {expected.outcome.exc_type}; torch {release} returned"
        assert raised["type"] == expected.outcome.exc_type
        naming = _naming(raised["template"])
        pattern = message_pattern(expected.outcome.message, naming)
        assert pattern.fullmatch(raised["template"]), (
            f"torch {release} raised {raised['template']!r}; the table gives "
            f"{expected.outcome.message.render(naming)!r}")
    else:
        assert raised is None, f"torch {release} raised {raised}; the model predicts a return"
    predicted = [e for e in expected.events if isinstance(e, WarningEmitted)]
    for warning in record["warnings"]:
        naming = _naming(warning["template"])
        seen = WarningEmitted(warning["category"], Message((warning["template"],)))
        matches = [e for e in predicted if event_matches(e, seen, naming)]
        assert matches, f"torch {release} warned {warning}; the table predicts {predicted}"
    required = [e for e in predicted if not e.optional]
    assert len(record["warnings"]) >= len(required), f"torch {release} gave fewer warnings than required"


def test_template_names_objects_longest_first() -> None:
    naming = {("type", "Sub"): "<class 'scenario.Sub'>", ("mode", "M"): "<scenario.M object>",
              ("func", "neg"): "torch.neg"}
    text = "for 'torch.neg' on [<class 'scenario.Sub'>] nor in mode <scenario.M object>"
    assert template(text, naming) == "for '{func neg}' on [{type Sub}] nor in mode {mode M}"


def test_reference_impl_measured_gives_every_2022_text_example() -> None:
    record = measure(load_adapter("reference_impl"))
    names = [r["example"] for r in record["texts"]]
    assert names == [e.name for e in text_examples("2022")] and names
    by_name = {r["example"]: r for r in record["texts"]}
    raised = by_name["text_push_must_return_mode"]["raised"]
    assert raised["type"] == "ValueError" and "must return a TorchFunctionMode" in raised["text"]
    assert by_name["text_plain_method_warnings"]["warnings"], "the plain-method warnings are recorded"


def test_texts_command_writes_json_and_refuses_an_unwritable_path(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "texts.json"
    assert main(["texts", "--impl", "reference_impl", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["generation"] == "2022"
    assert main(["texts", "--impl", "reference_impl", "--output", str(tmp_path / "no" / "x.json")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("python -m conformance texts: error: cannot write") and err.count("\n") == 1
    assert main(["texts", "--impl", "no_such_module_xyz"]) == 2


def test_a_crash_costs_the_examples_it_happens_in_not_the_measurement(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "crash_on_neg.py").write_text(
        "import os\nimport reference_impl as _r\n"
        "globals().update({k: getattr(_r, k) for k in dir(_r) if not k.startswith('__')})\n"
        "def neg(*args, **kwargs):\n    os._exit(3)\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    assert main(["texts", "--impl", "crash_on_neg"]) == 0
    records = {r["example"]: r for r in json.loads(capsys.readouterr().out)["texts"]}
    assert "crashed" in records["text_native_no_implementation"]["fault"]
    assert records["text_push_must_return_mode"]["raised"]["type"] == "ValueError"
