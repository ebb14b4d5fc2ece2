"""The root causes of the compiled expected failures, as a report PyTorch can act on.

``conformance/expected_failures/compiled-causes.toml`` tells each root cause once (a title in
PyTorch's terms, its severity, the upstream issues or pull requests found, a plain-torch repro
that prints ``EAGER:`` and ``COMPILED:`` and exits 1 when they differ); each entry of a release's
``torch-X-compiled.toml`` names its causes (``causes``). This module joins the two: for each
cause, the rules it breaks and the releases it holds on, written as Markdown
(``python -m conformance report --compiled``) or reStructuredText (docs/compiled-causes.rst).
It imports the standard library only (and tomli on Python 3.10).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

#: The folder of the committed expected-failures files (inside the installed package).
FOLDER = Path(__file__).resolve().parent.parent / "expected_failures"
CAUSES_FILE = "compiled-causes.toml"
#: What a cause's severity may be (compiled-causes.toml's header says what each means).
SEVERITIES = ("wrong result", "exception", "wrong arguments", "missing calls", "extra calls",
              "warnings")
_ID = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
_UPSTREAM = "https://github.com/pytorch/pytorch/"
_RELEASE_FILE = re.compile(r"torch-(\d+\.\d+\.\d+)-compiled\.toml")
_RELEASE = re.compile(r"\d+\.\d+\.\d+")


class CausesError(Exception):
    """A causes file or a compiled expected-failures file that cannot be used (one line)."""


@dataclass(frozen=True)
class Cause:
    name: str
    title: str
    severity: str
    upstream: tuple[str, ...]
    repro: str
    #: release -> the rules whose compiled expected failures name this cause there
    rules: Mapping[str, tuple[str, ...]]
    #: release -> the exit status of the repro run there, for releases whose compiled file
    #: does not name the cause (where one does, the repro exits 1: tests/test_compiled_snippets)
    repro_exits: Mapping[str, int]


def _text(table: Mapping[str, object], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str) or not value.strip():
        raise CausesError(f"{where}: {key} must be a non-empty string")
    return value.strip()


def load_causes(folder: Path = FOLDER) -> dict[str, Cause]:
    """Every cause of ``folder``'s causes file, with the rules and releases of ``folder``'s
    compiled expected-failures files that name it. Raises :class:`CausesError` for a cause no
    file names, a file naming an unknown cause, or a malformed field."""
    path = folder / CAUSES_FILE
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise CausesError(f"{path}: cannot be read: {exc}") from None
    named = _release_causes(folder)
    for release, rules_of in named.items():
        for name in rules_of:
            if name not in table:
                raise CausesError(f"torch-{release}-compiled.toml names cause {name!r}, which "
                                  f"{CAUSES_FILE} does not tell")
    causes: dict[str, Cause] = {}
    for name, entry in table.items():
        where = f"{path.name} [{name}]"
        if not _ID.fullmatch(name) or not isinstance(entry, dict):
            raise CausesError(f"{where}: a cause is a table named in lower case with hyphens")
        unknown = sorted(set(entry) - {"title", "severity", "upstream", "repro", "repro_exits"})
        if unknown:
            raise CausesError(f"{where}: unknown key(s) {', '.join(unknown)}")
        severity = _text(entry, "severity", where)
        if severity not in SEVERITIES:
            raise CausesError(f"{where}: severity {severity!r} is not one of {', '.join(SEVERITIES)}")
        upstream = entry.get("upstream", [])
        if not isinstance(upstream, list) or not all(
                isinstance(u, str) and u.startswith(_UPSTREAM) for u in upstream):
            raise CausesError(f"{where}: upstream must be a list of {_UPSTREAM}... links with a note")
        repro = _text(entry, "repro", where)
        if "EAGER:" not in repro or "COMPILED:" not in repro or "sys.exit(" not in repro:
            raise CausesError(f"{where}: the repro must print EAGER: and COMPILED: and exit "
                              "with sys.exit(1 if they differ else 0)")
        rules = {release: tuple(sorted(rules_of[name]))
                 for release, rules_of in named.items() if name in rules_of}
        causes[name] = Cause(name, _text(entry, "title", where), severity, tuple(upstream),
                             repro + "\n", rules, _repro_exits(entry, rules, where))
    unused = sorted(name for name, cause in causes.items() if not cause.rules)
    if unused:
        raise CausesError(f"{CAUSES_FILE}: no compiled expected failure names {', '.join(unused)}")
    return causes


def _repro_exits(entry: Mapping[str, object], rules: Mapping[str, object],
                 where: str) -> dict[str, int]:
    """``repro_exits``: release -> 0 or 1, each a release whose compiled file does not name
    the cause (where one does, its repro must exit 1 and is run to show it)."""
    exits = entry.get("repro_exits", {})
    if not isinstance(exits, dict) or not all(
            isinstance(r, str) and _RELEASE.fullmatch(r) and type(v) is int and v in (0, 1)
            for r, v in exits.items()):
        raise CausesError(f"{where}: repro_exits must map releases (X.Y.Z) to 0 or 1")
    named = sorted(set(exits) & set(rules))
    if named:
        raise CausesError(f"{where}: repro_exits names {', '.join(named)}, whose compiled file "
                          "names the cause (its repro exits 1 there)")
    return dict(exits)


def _release_causes(folder: Path) -> dict[str, dict[str, list[str]]]:
    """release -> cause -> the rules of that release's compiled file whose entries name it."""
    found: dict[str, dict[str, list[str]]] = {}
    for path in sorted(folder.glob("torch-*-compiled.toml"), key=lambda p: _version(p.name)):
        match = _RELEASE_FILE.fullmatch(path.name)
        if match is None:
            continue
        try:
            table = tomllib.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise CausesError(f"{path}: cannot be read: {exc}") from None
        for rule_id, entry in table.items():
            names = entry.get("causes") if isinstance(entry, dict) else None
            if not isinstance(names, list) or not names:
                raise CausesError(f"{path.name} [{rule_id}]: a compiled expected failure names "
                                  "its root causes (causes = [...])")
            if "snippet" in entry:
                raise CausesError(f"{path.name} [{rule_id}]: a compiled expected failure has no "
                                  f"snippet of its own: its causes' repros ({CAUSES_FILE}) "
                                  "reproduce it")
            for name in names:
                found.setdefault(match.group(1), {}).setdefault(str(name), []).append(rule_id)
    return found


def _release_key(release: str) -> tuple[int, ...]:
    """A dotted release ("2.13.0") as numbers, so that releases sort in release order."""
    return tuple(int(p) for p in release.split("."))


def _version(name: str) -> tuple[int, ...]:
    match = _RELEASE_FILE.fullmatch(name)
    return _release_key(match.group(1)) if match else ()


def _by_version(releases: set[str]) -> list[str]:
    return sorted(releases, key=_release_key)


def _releases(cause: Cause) -> str:
    """Where the cause holds: the releases whose compiled file names it, and those where only
    its repro was run and exits 1 (marked: no certified scenario there reaches it)."""
    shown = set(cause.rules)
    seen = shown | {r for r, status in cause.repro_exits.items() if status == 1}
    return ", ".join(r if r in shown else f"{r} (repro only)" for r in _by_version(seen))


def _absent(cause: Cause) -> list[str]:
    """The releases where its repro was run and exits 0."""
    return _by_version({r for r, status in cause.repro_exits.items() if status == 0})


def _rules(cause: Cause) -> list[str]:
    return sorted({rule for rules in cause.rules.values() for rule in rules})


def markdown(causes: Mapping[str, Cause]) -> str:
    """One section per cause, ready to paste into an issue."""
    lines = ["# torch.compile and `__torch_function__`: divergences from eager", "",
             f"{len(causes)} root causes, each found by tfmode-conformance's compiled "
             "certification (`torch.compile(fn, backend=\"eager\")` against eager torch). Each "
             "repro uses plain torch, prints `EAGER:` and `COMPILED:`, and exits 1 when they "
             "differ.", ""]
    for cause in causes.values():
        lines += [f"## {cause.title}", "",
                  f"- **Severity:** {cause.severity}",
                  f"- **Rules it fails in the suite:** {', '.join(_rules(cause))}",
                  f"- **Holds on:** torch {_releases(cause)}",
                  *([f"- **Repro exits 0 on:** torch {', '.join(_absent(cause))}"]
                    if _absent(cause) else []),
                  f"- **Upstream:** {'; '.join(cause.upstream) if cause.upstream else 'none found'}",
                  "", "```python", cause.repro.strip("\n"), "```", ""]
    return "\n".join(lines)


def _plain(text: str) -> str:
    """``text`` for reStructuredText: an underscore ending a word (``copy_``,
    ``__torch_function__``) would make a hyperlink reference of it."""
    return re.sub(r"(?<=\w)_(?=\W|$)", r"\\_", text)


def rst(causes: Mapping[str, Cause]) -> str:
    """The same for the docs (docs/_generated/compiled-causes.rst)."""
    lines = [".. Generated by python -m conformance.matrix from "
             "conformance/expected_failures; do not edit.", ""]
    for cause in causes.values():
        title = _plain(cause.title)
        upstream = "; ".join(_plain(u) for u in cause.upstream) or "none found"
        lines += [f".. _cause-{cause.name}:", "", title, "-" * len(title), "",
                  f"| **Severity:** {cause.severity}",
                  f"| **Rules it fails in the suite:** {', '.join(f':rule:`{r}`' for r in _rules(cause))}",
                  f"| **Holds on:** torch {_releases(cause)}",
                  *([f"| **Repro exits 0 on:** torch {', '.join(_absent(cause))}"]
                    if _absent(cause) else []),
                  f"| **Upstream:** {upstream}",
                  "", ".. code-block:: python", ""]
        lines += [f"   {line}" if line else "" for line in cause.repro.strip("\n").splitlines()]
        lines.append("")
    return "\n".join(lines)
