"""The rules across torch releases: where each holds, where its verdict changed, and why.

Rendered by ``python -m conformance.matrix`` into ``docs/_generated/evolution.rst`` from the
committed torch certificates (oldest release first) and the expected-failures files: one entry
per rule with the releases of each verdict and each change of verdict, and one section per
divergence (a rule, its reason and its snippet, with the releases it was measured on), which
the rule entries link to; then, from the compiled certificates and the root causes of their
divergences, when each cause appeared and went away under torch.compile.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from spec.catalogue import load_catalogue

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

#: How each verdict reads in the rule entries, in the order they are listed.
VERDICT_WORDS = {"pass": "holds", "fail": "**fails**", "expected_failure": "diverges (expected failure)",
                 "untested": "untested", "not_applicable": "not applicable",
                 "absent": "not yet in the specification it was certified against"}


def release_of(certificate: Mapping[str, Any]) -> str:
    """The torch release a certificate is of (its version without a local label such as +cpu)."""
    impl = certificate["implementation"]
    return str(impl.get("release") or impl["version"]).split("+", 1)[0]


def spans(chosen: Sequence[str], order: Sequence[str]) -> str:
    """``chosen`` as runs of consecutive releases of ``order``: ``"1.12.1, 2.0.1–2.2.2"``."""
    runs: list[list[str]] = []
    previous = -2
    for index, release in enumerate(order):
        if release not in chosen:
            continue
        if index == previous + 1:
            runs[-1].append(release)
        else:
            runs.append([release])
        previous = index
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}–{run[-1]}" for run in runs)


def expected_entries(expected_dir: Path, release: str) -> dict[str, dict[str, str]]:
    """The reason and snippet of each rule in ``torch-<release>.toml`` (none if there is no file)."""
    path = expected_dir / f"torch-{release}.toml"
    if not path.exists():
        return {}
    return {rule: {"reason": " ".join(str(e.get("reason", "")).split()),
                   "snippet": str(e.get("snippet", "")).strip()}
            for rule, e in tomllib.loads(path.read_text(encoding="utf-8")).items()}


def divergences(certificates: Sequence[Mapping[str, Any]],
                 expected_dir: Path) -> dict[tuple[str, str], dict[str, Any]]:
    """Expected failures grouped by rule and snippet: ``(rule, snippet) -> reason, releases, label``."""
    groups: dict[tuple[str, str], dict[str, Any]] = {}
    for cert in certificates:
        release = release_of(cert)
        listed = expected_entries(expected_dir, release)
        for rule_id, entry in cert["rules"].items():
            if entry.get("verdict") != "expected_failure":
                continue
            found = listed.get(rule_id, {"reason": entry.get("expected_failure_reason", ""), "snippet": ""})
            group = groups.setdefault((rule_id, found["snippet"]),
                                      {"reason": found["reason"], "releases": []})
            group["releases"].append(release)
    per_rule: dict[str, int] = {}
    for (rule_id, _), group in groups.items():
        per_rule[rule_id] = per_rule.get(rule_id, 0) + 1
        group["label"] = f"divergence-{rule_id.lower().replace('_', '-')}-{per_rule[rule_id]}"
    return groups


def render_evolution(certificates: Sequence[Mapping[str, Any]], expected_dir: Path,
                     compiled: Sequence[Mapping[str, Any]] = (),
                     causes: Mapping[str, Any] | None = None) -> str:
    """The reStructuredText of the per-rule view and of the divergences it links to; with
    ``compiled`` certificates (oldest first) and the root causes of their divergences
    (``conformance.report.causes.load_causes``), a last section on torch.compile."""
    text = _render_eager(certificates, expected_dir)
    if compiled:
        text += "\n" + render_compiled(compiled, causes or {})
    return text


def _first(cause: Any, held: list[str], order: list[str]) -> str:
    """How the cause began, as far as the releases before its first certificate say."""
    before = order[:order.index(held[0])]
    if not before:
        return f"shown on or before {held[0]}"
    exits: Mapping[str, int] = cause.repro_exits
    if exits.get(before[-1]) == 0:
        return f"appeared in {held[0]} (its repro exits 0 on {before[-1]})"
    earlier = [r for r in before if exits.get(r) == 1]
    if earlier:
        return (f"first shown in {held[0]}, but its repro exits 1 on {spans(earlier, order)} "
                "already (no scenario there reaches it)")
    absent = [r for r in before if exits.get(r) == 0]
    if absent:
        return (f"first shown in {held[0]}; absent on {absent[-1]} (its repro exits 0 there; "
                f"not run on {before[-1]})")
    return f"first shown in {held[0]} (its repro not run on {before[-1]})"


def _last(cause: Any, held: list[str], order: list[str]) -> str:
    """How the cause ended, as far as the releases after its last certificate say."""
    after = order[order.index(held[-1]) + 1:]
    if not after:
        return "not gone"
    exits: Mapping[str, int] = cause.repro_exits
    if exits.get(after[0]) == 0:
        return f"gone in {after[0]} (its repro exits 0 there)"
    later = [r for r in after if exits.get(r) == 1]
    if later:
        return (f"not shown from {after[0]} on, but its repro still exits 1 on "
                f"{spans(later, order)} (no scenario there reaches it)")
    gone = [r for r in after if exits.get(r) == 0]
    if gone:
        return (f"not shown from {after[0]} on (its repro not run there); gone by {gone[0]} "
                "(its repro exits 0 there)")
    return f"not shown from {after[0]} on (its repro not run there)"


def render_compiled(compiled: Sequence[Mapping[str, Any]], causes: Mapping[str, Any]) -> str:
    """When each compiled divergence appeared and went away: each root cause with the releases
    checked under torch.compile whose certificates show it (those whose compiled expected
    failures name it), where it was first and last shown, and what its repro gives on the
    releases around them where it was run (``repro_exits``), then the rules whose compiled
    verdict changed from one such release to the next."""
    order = [release_of(c) for c in compiled]
    lines = ["Under torch.compile", "-------------------", "",
             f"Releases checked under ``torch.compile``, oldest first: {', '.join(order)}. Each "
             "root cause of a compiled divergence (:doc:`compiled-causes`): the releases whose "
             "certificates show it (their compiled expected failures name it, and its repro "
             "exits 1 there), and, before the first and after the last of them, whether it "
             "was absent or only unseen: a certificate shows a cause only where a scenario "
             "reaches it, so where its repro was run on a release whose certificate does not "
             "show it, what the repro gave is said. A cause shown on "
             f"{order[0]} may be older: no earlier release is checked compiled here.", ""]
    for name, cause in causes.items():
        held = [r for r in order if r in cause.rules]
        if held:
            lines += [f"* :ref:`{name} <cause-{name}>`: shown on {spans(held, order)}; "
                      f"{_first(cause, held, order)}; {_last(cause, held, order)}.", ""]
    changed = []
    for rule in load_catalogue().rules:
        verdicts = [c["rules"].get(rule.id, {}).get("verdict", "absent") for c in compiled]
        if kind_of(verdicts) != "changed":
            continue
        # not_compiled has no words: only how a rule fares compiled counts as a change
        steps = verdict_changes(order, verdicts, lambda v: v in JUDGED)
        changed.append(f"* :rule:`{rule.id}`: {', '.join(steps)}.")
    title = f"Compiled verdicts that changed between releases ({len(changed)})"
    lines += [title, "~" * len(title), ""] + (changed or ["None."]) + [""]
    return "\n".join(lines)


def _render_eager(certificates: Sequence[Mapping[str, Any]], expected_dir: Path) -> str:
    """The per-rule view of the eager certificates and the divergences it links to."""
    order = [release_of(c) for c in certificates]
    groups = divergences(certificates, expected_dir)
    lines = [".. This file is generated by `python -m conformance.matrix` from docs/certificates/",
             "   and conformance/expected_failures/; do not edit it by hand.", ""]
    if not certificates:
        return "\n".join(lines + ["No torch release is certified yet.", ""])
    lines += [f"Releases, oldest first: {', '.join(order)}. First the rules whose verdict "
              "changed from one release to another (a rule that starts or stops applying, as "
              "the 2022 generation gives way to the stack generation, has not changed its "
              "verdict by that alone), then those that diverge on every release they apply "
              "to; the rest, which hold wherever they apply and are tested, are listed by "
              "pattern after them.",
              ""]
    kinds: dict[str, list[str]] = {"changed": [], "diverges": [], "rest": []}
    rules = {rule.id: rule for rule in load_catalogue().rules}
    for rule_id in rules:
        kinds[kind_of([c["rules"].get(rule_id, {}).get("verdict", "absent")
                       for c in certificates])].append(rule_id)
    for kind, heading in (("changed", "Changed between releases"),
                          ("diverges", "Diverge on every release they apply to")):
        title = f"{heading} ({len(kinds[kind])})"
        lines += [title, "~" * len(title), ""]
        if not kinds[kind]:
            lines += ["None.", ""]
        for rule_id in kinds[kind]:
            lines += _entry(rule_id, f"({rules[rule_id].level}) — {rules[rule_id].title}",
                            certificates, groups)
    title = f"Hold wherever they apply and are tested ({len(kinds['rest'])})"
    lines += [title, "~" * len(title), ""]
    patterns: dict[str, list[str]] = {}
    for rule_id in kinds["rest"]:
        shown = "; ".join(f"{words}: {releases}"
                          for words, releases, _ in status_of(rule_id, certificates, groups))
        patterns.setdefault(shown, []).append(rule_id)
    for shown, rule_ids in sorted(patterns.items(), key=lambda item: -len(item[1])):
        lines += [f"* {shown} ({len(rule_ids)}): " + ", ".join(f":rule:`{r}`" for r in rule_ids)
                  + ".", ""]
    lines += ["Divergences", "-----------", "",
              "Each expected failure of a torch release, with the snippet that shows it on the "
              "releases listed (``tests/test_expected_failures.py`` runs it on each of them).", ""]
    if not groups:
        lines += ["No torch release certified here diverges from a rule.", ""]
    for (rule_id, snippet), group in groups.items():
        title = f"{rule_id} on {spans(group['releases'], order)}"
        lines += [f".. _{group['label']}:", "", title, "~" * len(title), "", plain(group["reason"]),
                  ""]
        if snippet:
            lines += [".. code-block:: python", ""]
            lines += [f"   {line}".rstrip() for line in snippet.splitlines()] + [""]
    return "\n".join(lines) + "\n"


#: The verdicts that say how a rule fares (not whether it applies, exists or was tested).
JUDGED = ("pass", "fail", "expected_failure")


def kind_of(verdicts: Sequence[str]) -> str:
    """Where a rule with these verdicts (one per release) is listed: ``"changed"`` if it holds,
    fails or diverges on some releases and not on others (a release where it does not apply,
    did not exist or was untested is no change), ``"diverges"`` if it fails or diverges
    wherever it is judged, else ``"rest"`` (it holds wherever it is judged, or nowhere is)."""
    judged = {v for v in verdicts if v in JUDGED}
    if len(judged) > 1:
        return "changed"
    return "diverges" if judged and judged != {"pass"} else "rest"


def _entry(rule_id: str, heading: str, certificates: Sequence[Mapping[str, Any]],
           groups: Mapping[tuple[str, str], Mapping[str, Any]]) -> list[str]:
    """A rule's entry: its verdicts with their releases and divergences, and its changes."""
    order = [release_of(c) for c in certificates]
    lines = [f"* :rule:`{rule_id}` {heading}", ""]
    for words, shown, labels in status_of(rule_id, certificates, groups):
        line = f"  - {words}: {shown}"
        if labels:
            line += " — " + ", ".join(f":ref:`{label}`" for label in labels)
        lines.append(line)
    # a certificate made before the rule existed says nothing of it: no change
    verdicts = [c["rules"].get(rule_id, {}).get("verdict", "absent") for c in certificates]
    changes = verdict_changes(order, verdicts, lambda v: v != "absent")
    return [*lines, f"  - changed: {', '.join(changes) if changes else 'never'}", ""]


def verdict_changes(order: Sequence[str], verdicts: Sequence[str],
                    counted: Callable[[str], bool]) -> list[str]:
    """Each release of ``order`` whose verdict differs from the one before it, as
    ``"2.99.0 (**fails** → holds)"``; only the verdicts ``counted`` accepts are compared."""
    known = [(r, v) for r, v in zip(order, verdicts, strict=True) if counted(v)]
    return [f"{known[i][0]} ({VERDICT_WORDS[known[i - 1][1]]} → {VERDICT_WORDS[known[i][1]]})"
            for i in range(1, len(known)) if known[i][1] != known[i - 1][1]]


def status_of(rule_id: str, certificates: Sequence[Mapping[str, Any]],
              groups: Mapping[tuple[str, str], Mapping[str, Any]]) -> list[tuple[str, str, list[str]]]:
    """How ``rule_id`` fares across the releases: ``(words, releases, divergence labels)`` per
    verdict it has somewhere, in :data:`VERDICT_WORDS` order (the labels for a divergence)."""
    order = [release_of(c) for c in certificates]
    verdicts = [c["rules"].get(rule_id, {}).get("verdict", "absent") for c in certificates]
    found: list[tuple[str, str, list[str]]] = []
    for verdict, words in VERDICT_WORDS.items():
        chosen = [r for r, v in zip(order, verdicts, strict=True) if v == verdict]
        if chosen:
            labels = ([str(g["label"]) for (rid, _), g in groups.items() if rid == rule_id]
                      if verdict == "expected_failure" else [])
            found.append((words, spans(chosen, order), labels))
    return found


def plain(text: str) -> str:
    """``text`` as reStructuredText that shows it as written: a reason is prose, not markup
    (``Tensor.add_`` would be a reference, ``*args`` an emphasis)."""
    return re.sub(r"([\\_*`|<>\[\]])", r"\\\1", text)

