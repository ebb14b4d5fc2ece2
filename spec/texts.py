"""The protocol's error and warning texts per release: load and query ``spec/texts.toml``.

Exception types are normative in the rules of their areas; the exact texts differ between
releases (typos included) and are data, checked by the TEXT rules. A release is named by its
table key: ``"pr75154"`` (the 2022 design as the pull request wrote it), or a torch release's
``major.minor`` (``"1.12"``, ``"2.0"``, ...). For each kind of text and each release the table
holds the text, or says the release has no such text (``absent``) or that it is not
established (``unknown``): the model then predicts any text, and the rule is untested there.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

__all__ = ["TEXTS_FILE", "Entry", "Kind", "TextTable", "TextsError", "default_release",
           "load_texts", "release_key"]

#: Where the shipped table lives.
TEXTS_FILE: Final = Path(__file__).resolve().parent / "texts.toml"

Status = Literal["text", "unknown", "absent"]
_STATUSES: Final = ("unknown", "absent")
_EVIDENCE_KINDS: Final = ("pr", "test", "source", "measurement", "inference")
_PLACEHOLDER: Final = re.compile(r"\{([a-z]+)\}")


class TextsError(ValueError):
    """The texts table is malformed; the message is one line."""


@dataclass(frozen=True)
class Entry:
    """What one kind of text is in some releases."""

    releases: tuple[str, ...]
    status: Status
    text: str | None
    evidence: tuple[str, str, str]  # kind, ref, note


@dataclass(frozen=True)
class Kind:
    """One kind of text, the TEXT rule that checks it, and its entries in release order."""

    name: str
    rule: str
    title: str
    entries: tuple[Entry, ...]

    def entry(self, release: str) -> Entry | None:
        return next((e for e in self.entries if release in e.releases), None)

    @property
    def placeholders(self) -> frozenset[str]:
        return frozenset(p for e in self.entries if e.text for p in _PLACEHOLDER.findall(e.text))


@dataclass(frozen=True)
class TextTable:
    """Every kind of text, over the releases the table knows, oldest first."""

    releases: tuple[str, ...]
    kinds: Mapping[str, Kind]

    def status(self, kind: str, release: str | None) -> Status:
        """``text``, ``unknown`` or ``absent``; a release outside the table is ``unknown``."""
        entry = self.kinds[kind].entry(release) if release is not None else None
        return "unknown" if entry is None else entry.status

    def text(self, kind: str, release: str | None) -> str | None:
        """The text of ``kind`` in ``release``; ``None`` unless the table establishes it."""
        entry = self.kinds[kind].entry(release) if release is not None else None
        return entry.text if entry is not None and entry.status == "text" else None

    def rule_kinds(self, rule: str) -> tuple[str, ...]:
        return tuple(name for name, kind in self.kinds.items() if kind.rule == rule)

    def rule_status(self, rule: str, release: str | None) -> Status:
        """``text`` if some text of ``rule`` is known in ``release``; ``absent`` if the release
        has none of its texts; ``unknown`` otherwise."""
        statuses = {self.status(kind, release) for kind in self.rule_kinds(rule)}
        if "text" in statuses:
            return "text"
        return "absent" if statuses == {"absent"} else "unknown"

    def every_text(self, *kinds: str) -> frozenset[str]:
        """Every text of ``kinds`` that any release has."""
        return frozenset(e.text for k in kinds for e in self.kinds[k].entries if e.text is not None)


def release_key(version: str | None) -> str | None:
    """The table key of an implementation's version: ``"1.12.1+cpu"`` → ``"1.12"``,
    ``"pr75154"`` as it is; ``None`` for a version that names no release."""
    if version is None:
        return None
    if version == "pr75154":
        return version
    match = re.match(r"^(\d+)\.(\d+)(?:\.\d+)?(?:[a-z]+\d*)?(?:\.post\d+)?(?:\.dev\d+)?(?:\+.*)?$",
                     version.strip())
    return f"{int(match.group(1))}.{int(match.group(2))}" if match else None


def default_release(generation: str, stack_version: str | None = None) -> str:
    """The release whose texts the model predicts when the implementation names none: the
    PR's for the 2022 generation, 1.13's, or the latest measured 2.x release's (2.13)."""
    if generation == "2022":
        return "pr75154"
    return "1.13" if stack_version == "1.13" else "2.13"


def _fail(problem: str) -> TextsError:
    return TextsError(f"{TEXTS_FILE.name}: " + " ".join(problem.split()))


def _span(spec: object, releases: tuple[str, ...], where: str) -> tuple[str, ...]:
    if not isinstance(spec, str):
        raise _fail(f"{where}: releases must be a string")
    first, _, last = spec.partition("..")
    last = last or first
    if first not in releases or last not in releases:
        raise _fail(f"{where}: unknown release in {spec!r}")
    lo, hi = releases.index(first), releases.index(last)
    if lo > hi:
        raise _fail(f"{where}: {spec!r} runs backwards")
    return releases[lo:hi + 1]


def _entry(raw: Any, releases: tuple[str, ...], where: str) -> Entry:
    if not isinstance(raw, dict) or set(raw) - {"releases", "text", "status", "evidence"}:
        raise _fail(f"{where}: an entry has releases, text or status, and evidence")
    span = _span(raw.get("releases"), releases, where)
    text, status = raw.get("text"), raw.get("status")
    if (text is None) == (status is None) or (status is not None and status not in _STATUSES):
        raise _fail(f"{where}: give either text or status = 'unknown' / 'absent'")
    if text is not None and (not isinstance(text, str) or not text):
        raise _fail(f"{where}: text must be a non-empty string")
    ev = raw.get("evidence")
    if (not isinstance(ev, dict) or set(ev) != {"kind", "ref", "note"}
            or ev["kind"] not in _EVIDENCE_KINDS or not all(isinstance(v, str) for v in ev.values())):
        raise _fail(f"{where}: evidence must be {{kind, ref, note}} with kind one of {_EVIDENCE_KINDS}")
    kind: Status = "text" if text is not None else ("unknown" if status == "unknown" else "absent")
    return Entry(span, kind, text, (ev["kind"], ev["ref"], ev["note"]))


def parse_texts(document: Mapping[str, Any]) -> TextTable:
    """Build and check a table: every kind covers every release exactly once."""
    releases = document.get("releases")
    if not isinstance(releases, list) or not all(isinstance(r, str) for r in releases) or not releases:
        raise _fail("releases must be a non-empty list of strings")
    order = tuple(releases)
    kinds: dict[str, Kind] = {}
    for name, raw in dict(document.get("kind", {})).items():
        if not isinstance(raw, dict) or not re.match(r"^TFM_TEXT_\d{3}$", str(raw.get("rule"))):
            raise _fail(f"kind {name}: needs rule = 'TFM_TEXT_NNN'")
        entries = tuple(_entry(e, order, f"kind {name}") for e in raw.get("entry", []))
        covered = [r for e in entries for r in e.releases]
        if sorted(covered, key=order.index) != list(order):
            wrong = [r for r in order if covered.count(r) != 1]
            raise _fail(f"kind {name}: each release needs exactly one entry; {wrong} do not have one")
        kinds[name] = Kind(name, raw["rule"], str(raw.get("title", name)), entries)
    if not kinds:
        raise _fail("no [kind.*] tables")
    return TextTable(order, kinds)


@functools.cache
def load_texts(path: Path = TEXTS_FILE) -> TextTable:
    """The table at ``path`` (the shipped one by default), checked."""
    try:
        with path.open("rb") as handle:
            document = tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise _fail(f"unreadable: {exc}") from None
    return parse_texts(document)
