"""``registry.toml``: how each shown command is exercised, read and checked for consistency.

The file has one section per way of exercising a command and one line per command, keyed by
the command exactly as shown (see the file's own header for the fields).
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

KINDS = ("run", "equivalent", "named", "ci")
VERDICTS = ("pass", "fail", "expected_failure", "not_applicable", "untested")
CERTIFICATE_KEYS = frozenset({*VERDICTS, "complete", "level", "implementation", "certify",
                              "verdicts", "stale"})
#: The modules an entry may need; where one is missing, its test is not defined.
NEEDS = frozenset({"torch", "sphinx"})
_PROPERTIES = ("output", "certificate", "writes", "badge")
#: How a command is exercised from the installed wheel, outside the checkout (``wheel``).
WHEEL_MODES = ("run", "refuses", "checkout")
_WHEEL = ("wheel", "wheel_shorter", "wheel_reason")
_FIELDS: dict[str, frozenset[str]] = {
    "run": frozenset({"status", *_PROPERTIES, "with", "files", "before", "after", "needs",
                      "shorter", "reason", "timeout", *_WHEEL}),
    "named": frozenset({"status", "output", "timeout", *_WHEEL}),
    "ci": frozenset({"reason", "with", "ci_run", "check", "status", "output", "timeout", *_WHEEL}),
}
_FIELDS["equivalent"] = _FIELDS["run"] - set(_WHEEL)  # a tox command runs in a checkout only


class RegistryError(Exception):
    """registry.toml says something inconsistent (one line, naming the entry)."""


@dataclass(frozen=True)
class Entry:
    """How one shown command is exercised; the fields are those of registry.toml."""

    shown: str
    kind: str
    status: int = 0
    output: str | None = None
    certificate: dict[str, Any] = field(default_factory=dict)
    writes: tuple[str, ...] = ()
    placeholders: dict[str, str] = field(default_factory=dict)
    files: dict[str, str] = field(default_factory=dict)
    before: tuple[str, ...] = ()
    after: str | None = None
    needs: tuple[str, ...] = ()
    shorter: str | None = None
    reason: str | None = None
    ci_run: bool = False
    check: str | None = None
    timeout: float = 180.0
    badge: str | None = None
    wheel: str | None = None
    wheel_shorter: str | None = None
    wheel_reason: str | None = None

    @property
    def command(self) -> str:
        """The command as run: the shown one with its placeholders filled in."""
        text = self.shown
        for name, value in self.placeholders.items():
            text = _word(name).sub(value.replace("\\", "\\\\"), text)
        return text

    def label(self) -> str:
        first = " ".join(self.shown.split("\n")[0].split())
        return first if len(first) <= 80 else first[:77] + "..."


def _word(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w.:/-]){re.escape(name)}(?![\w.:/-])")


def _typed(where: str, key: str, value: Any, kind: type | tuple[type, ...]) -> Any:
    if isinstance(value, bool) != (kind is bool) or not isinstance(value, kind):
        raise RegistryError(f"{where}: {key} has the wrong type ({type(value).__name__})")
    return value


def _strings(where: str, key: str, value: Any) -> tuple[str, ...]:
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not all(isinstance(x, str) for x in items):
        raise RegistryError(f"{where}: {key} must be a string or a list of strings")
    return tuple(items)


def _entry(kind: str, shown: str, data: Any) -> Entry:
    where = f"registry.toml [{kind}] {shown.splitlines()[0]!r}"
    if not isinstance(data, dict):
        raise RegistryError(f"{where}: the value must be an inline table {{...}}")
    unknown = sorted(set(data) - _FIELDS[kind])
    if unknown:
        raise RegistryError(f"{where}: unknown field(s) {', '.join(unknown)} for [{kind}]")
    placeholders = _typed(where, "with", data.get("with", {}), dict)
    for name, value in placeholders.items():
        _typed(where, f"with.{name}", value, str)
        if not _word(name).search(shown):
            raise RegistryError(f"{where}: placeholder {name!r} is not a word of the command")
    certificate = _typed(where, "certificate", data.get("certificate", {}), dict)
    if set(certificate) - CERTIFICATE_KEYS:
        raise RegistryError(f"{where}: certificate keys are {', '.join(sorted(CERTIFICATE_KEYS))}")
    entry = Entry(
        shown=shown, kind=kind, status=_typed(where, "status", data.get("status", 0), int),
        output=_typed(where, "output", data.get("output", "usage:" if kind == "named" else ""),
                      str) or None,
        certificate=certificate, writes=_strings(where, "writes", data.get("writes", [])),
        placeholders=placeholders, files=_typed(where, "files", data.get("files", {}), dict),
        before=_strings(where, "before", data.get("before", [])),
        after=_typed(where, "after", data.get("after", ""), str) or None,
        needs=_strings(where, "needs", data.get("needs", [])),
        shorter=_typed(where, "shorter", data.get("shorter", ""), str) or None,
        reason=_typed(where, "reason", data.get("reason", ""), str) or None,
        ci_run=_typed(where, "ci_run", data.get("ci_run", False), bool),
        check=_typed(where, "check", data.get("check", ""), str) or None,
        timeout=float(_typed(where, "timeout", data.get("timeout", 180), (int, float))),
        badge=_typed(where, "badge", data.get("badge", ""), str) or None,
        wheel=_typed(where, "wheel", data.get("wheel", ""), str) or None,
        wheel_shorter=_typed(where, "wheel_shorter", data.get("wheel_shorter", ""), str) or None,
        wheel_reason=_typed(where, "wheel_reason", data.get("wheel_reason", ""), str) or None)
    _check_kind(where, entry)
    _check_wheel(where, entry)
    return entry


def _check_wheel(where: str, entry: Entry) -> None:
    if entry.wheel is None:
        if entry.wheel_shorter or entry.wheel_reason:
            raise RegistryError(f"{where}: wheel_shorter and wheel_reason go with wheel")
        return
    if entry.wheel not in WHEEL_MODES:
        raise RegistryError(f"{where}: wheel is one of {', '.join(WHEEL_MODES)}")
    if entry.after is not None:
        raise RegistryError(f"{where}: an entry run after another is run from the wheel as that "
                            "one is: no wheel of its own")
    if entry.kind == "ci" and entry.wheel != "checkout" and entry.check is None:
        raise RegistryError(f"{where}: from the wheel, a [ci] entry's check is run: state one")
    if entry.wheel_shorter and entry.wheel != "run":
        raise RegistryError(f"{where}: wheel_shorter is for wheel = \"run\"")
    if (entry.wheel_shorter or entry.wheel == "checkout") and not entry.wheel_reason:
        raise RegistryError(f"{where}: wheel_shorter and wheel = \"checkout\" need a wheel_reason")


def _check_kind(where: str, entry: Entry) -> None:
    is_tox = re.match(r"^(?:[A-Z][A-Z0-9_]*=\S*\s+)*tox(\s|$)", entry.shown) is not None
    if set(entry.needs) - NEEDS:
        raise RegistryError(f"{where}: needs may name only {', '.join(sorted(NEEDS))}")
    if entry.kind in ("run", "equivalent"):
        if entry.kind == "run" and is_tox:
            raise RegistryError(f"{where}: a tox command is [equivalent] or [ci], never [run]")
        if entry.kind == "equivalent" and not entry.shown.startswith("tox -e "):
            raise RegistryError(f"{where}: [equivalent] is for tox -e ENV [-- ARGS] commands")
        if not (entry.output or entry.certificate or entry.writes):  # badge goes with certificate
            raise RegistryError(f"{where}: state a property of the run (output, certificate or "
                                "writes) besides its exit status")
        if entry.badge and not entry.certificate:
            raise RegistryError(f"{where}: badge goes with certificate (the run writes both)")
        if entry.shorter and not entry.reason:
            raise RegistryError(f"{where}: a shorter run needs the reason the shown one is not run")
    if entry.kind == "ci":
        if not entry.reason:
            raise RegistryError(f"{where}: a [ci] entry needs the reason it is not run here")
        if not (is_tox or entry.ci_run or entry.check):
            raise RegistryError(f"{where}: a [ci] entry that is not a tox command needs ci_run "
                                "or a check command")


def load_registry(path: Path) -> dict[str, Entry]:
    """Every entry of the registry, by its shown command; RegistryError when inconsistent."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise RegistryError(f"{path.name}: not valid TOML: {exc}") from None
    entries: dict[str, Entry] = {}
    for kind, table in data.items():
        if kind not in KINDS or not isinstance(table, dict):
            raise RegistryError(f"{path.name}: unknown section [{kind}] (sections: {', '.join(KINDS)})")
        for shown, value in table.items():
            if shown in entries:
                raise RegistryError(f"{path.name}: {shown.splitlines()[0]!r} is in "
                                    f"[{entries[shown].kind}] and [{kind}]")
            entries[shown] = _entry(kind, shown, value)
    for entry in entries.values():
        if entry.after is not None:
            first = entries.get(entry.after)
            if first is None or first.kind not in ("run", "equivalent"):
                raise RegistryError(f"{path.name}: {entry.label()!r} runs after "
                                    f"{entry.after!r}, which is no [run] or [equivalent] entry")
            seen = {entry.shown}
            while first is not None and first.after is not None:
                if first.shown in seen:
                    raise RegistryError(f"{path.name}: {entry.label()!r}: after makes a cycle")
                seen.add(first.shown)
                first = entries.get(first.after)
    return entries


def chains(entries: dict[str, Entry]) -> list[list[Entry]]:
    """The [run], [equivalent] and [named] entries grouped into chains: an entry first, then (in
    the registry's order) every entry that runs after it in the same copy, and so on."""
    result = []
    for entry in entries.values():
        if entry.kind in ("run", "equivalent", "named") and entry.after is None:
            chain, i = [entry], 0
            while i < len(chain):
                chain += [e for e in entries.values() if e.after == chain[i].shown]
                i += 1
            result.append(chain)
    return result
