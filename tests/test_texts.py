"""The texts table (spec/texts.toml): coverage per release, the model's use of it, and blame."""

from __future__ import annotations

from pathlib import Path

import pytest

from conformance.judge.compare import differences
from conformance.judge.comparison import attribute
from spec.catalogue import load_catalogue
from spec.model import predict, scenario_from_dict
from spec.model.trace import Message, Raised, Trace
from spec.texts import TextsError, default_release, load_texts, release_key

TABLE = load_texts()
CATALOGUE = load_catalogue()
TEXT_RULES = [rule.id for rule in CATALOGUE if rule.area == "TEXT"]


def test_every_kind_covers_every_release_once() -> None:
    for kind in TABLE.kinds.values():
        covered = [release for entry in kind.entries for release in entry.releases]
        assert covered == list(TABLE.releases), kind.name
        for release in TABLE.releases:
            entry = kind.entry(release)
            assert entry is not None and entry.status in ("text", "unknown", "absent"), (kind.name, release)
            assert (entry.text is not None) is (entry.status == "text")
            ev = entry.evidence
            assert ev.kind and ev.ref and ev.note, (kind.name, release)


def test_the_releases_of_the_issue_are_keys() -> None:
    for release in ("pr75154", "1.12", "1.13", "2.0", "2.13", "2.14"):
        assert release in TABLE.releases


def test_every_text_rule_has_kinds_and_every_kind_a_text_rule() -> None:
    assert {kind.rule for kind in TABLE.kinds.values()} == set(TEXT_RULES)
    for rule in TEXT_RULES:
        assert CATALOGUE.by_id(rule).level == "MUST"
        # A rule holds where its texts exist: some release has one of them.
        assert any(TABLE.rule_status(rule, r) == "text" for r in TABLE.releases), rule


def test_a_kind_uses_the_same_placeholders_in_every_release() -> None:
    import re

    for kind in TABLE.kinds.values():
        shapes = {tuple(sorted(re.findall(r"\{([a-z]+)\}", e.text))) for e in kind.entries if e.text}
        assert len(shapes) <= 1, (kind.name, shapes)


def test_release_keys() -> None:
    assert release_key("1.12.1") == "1.12"
    assert release_key("2.0.1+cpu") == "2.0"
    assert release_key("2.13.0+cu121") == "2.13"
    assert release_key("2.14.0rc1") == "2.14"
    assert release_key("pr75154") == "pr75154"
    assert release_key("mutant") is None and release_key(None) is None
    assert default_release("2022") == "pr75154"
    assert default_release("stack", "1.13") == "1.13" and default_release("stack", "2.x") == "2.13"


def test_release_112_has_its_texts_as_shipped() -> None:
    assert "TorchDispatchMode" in (TABLE.text("missing-inner", "1.12") or "")
    assert "push_torch_function_modemust" in (TABLE.text("push-must-return-mode", "1.12") or "")
    assert "None as an argument got {type}" in (TABLE.text("enable-bad-type", "1.12") or "")
    assert TABLE.status("multiple-dispatch-failed", "2.0") == "absent"
    assert TABLE.status("multiple-dispatch-failed", "2.5") == "text"  # measured on 2.1.2 to 2.14.1
    assert TABLE.status("native-mode-suffix", "2.0") == "unknown"
    assert TABLE.status("no-implementation-native", "2.99") == "unknown"  # outside the table


_CONSTRUCT = {"modes": [{"name": "A", "behaviour": "notimpl"}], "setup": [{"construct": "A"}]}
_NATIVE = {"generation": "stack", "classes": [{"name": "Sub", "behaviour": "notimpl"}],
           "call": {"func": "add", "args": ["Sub", "Sub"]}}
_NAMING = {("type", "Sub"): "<class 'scenario.Sub'>", ("func", "add"): "torch.add"}
_TEXT_20 = ("no implementation found for 'torch.add' on types that implement __torch_function__: "
            "[<class 'scenario.Sub'>]")


def _raised(text: str, exc: str = "TypeError") -> Trace:
    return Trace((), Raised(exc, Message((text,))), None)


def _outcome_only(trace: Trace) -> Trace:
    return Trace((), trace.outcome, trace.after)


def test_the_model_predicts_the_release_texts() -> None:
    scenario = scenario_from_dict(_CONSTRUCT)
    pr = predict(scenario, release="pr75154").outcome
    shipped = predict(scenario, release="1.12").outcome
    assert isinstance(pr, Raised) and isinstance(shipped, Raised)
    assert "TorchFunctionMode directly" in pr.message.render()
    assert "TorchDispatchMode directly" in shipped.message.render()


def test_a_2_0_text_fails_the_text_rule_alone() -> None:
    scenario = scenario_from_dict(_NATIVE)
    observed = _raised(_TEXT_20)
    # Predicted for 2.13, whose text is the multi-line form: only the text rule is blamed.
    expected = _outcome_only(predict(scenario, "2.x", "2.13"))
    assert differences(expected, observed, _NAMING)
    assert attribute(scenario, expected, observed, _NAMING) == ("TFM_TEXT_009",)
    # Predicted for 2.0, the release that shipped it: no difference at all.
    assert not differences(_outcome_only(predict(scenario, "2.x", "2.0")), observed, _NAMING)


def test_an_unknown_text_matches_any_text_but_not_another_type() -> None:
    scenario = scenario_from_dict(_NATIVE)
    expected = _outcome_only(predict(scenario, "2.x", "2.99"))  # a release outside the table
    assert not differences(expected, _raised("anything at all\nover lines"), _NAMING)
    assert differences(expected, _raised(_TEXT_20, "ValueError"), _NAMING)


def test_a_wrong_word_in_a_2022_text_fails_its_text_rule_alone() -> None:
    scenario = scenario_from_dict(_CONSTRUCT)
    expected = _outcome_only(predict(scenario, release="pr75154"))
    shipped_112 = predict(scenario, release="1.12").outcome
    assert isinstance(shipped_112, Raised)
    observed = _raised(shipped_112.message.render())
    assert attribute(scenario, expected, observed, {}) == ("TFM_TEXT_001",)


def test_a_type_repr_in_a_text_is_still_the_types_rule() -> None:
    scenario = scenario_from_dict({**_NATIVE, "generation": "2022"})
    expected = _outcome_only(predict(scenario))
    observed = _raised("no implementation found for 'torch.add' on types that implement "
                       "__torch_function__: [Sub]")
    assert attribute(scenario, expected, observed, _NAMING) == ("TFM_ERROR_004",)


@pytest.mark.parametrize(("document", "problem"), [
    ("releases = []\n", "releases must be a non-empty list"),
    ('releases = ["a", "b"]\n[kind.k]\nrule = "TFM_TEXT_001"\n[[kind.k.entry]]\nreleases = "a"\n'
     'text = "t"\nevidence = { kind = "source", ref = "r", note = "n" }\n', "each release needs"),
    ('releases = ["a"]\n[kind.k]\nrule = "TFM_TEXT_001"\n[[kind.k.entry]]\nreleases = "a..z"\n'
     'status = "unknown"\nevidence = { kind = "source", ref = "r", note = "n" }\n', "unknown release"),
    ('releases = ["a"]\n[kind.k]\nrule = "TFM_TEXT_001"\n[[kind.k.entry]]\nreleases = "a"\n'
     'status = "maybe"\nevidence = { kind = "source", ref = "r", note = "n" }\n', "either text or status"),
    ('releases = ["a"]\n[kind.k]\nrule = "TFM_TEXT_001"\n[[kind.k.entry]]\nreleases = "a"\n'
     'text = "t"\n', "evidence must be"),
    ('releases = ["a"]\n[kind.k]\nrule = "X"\n', "needs rule"),
])
def test_malformed_tables_give_one_line(tmp_path: Path, document: str, problem: str) -> None:
    path = tmp_path / "texts.toml"
    path.write_text(document, encoding="utf-8")
    with pytest.raises(TextsError) as info:
        load_texts(path)
    assert problem in str(info.value) and "\n" not in str(info.value)
