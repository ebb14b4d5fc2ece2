"""The implementer's expected-failures file: TOML tables keyed by rule ID, each with a reason."""

from __future__ import annotations

import re
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

from spec.model.functions import FORMS, FUNCS, HANDED
from spec.model.trace import UNLISTED_RULE

from ..judge.excusal import COMPILED_WORDS, OWN_FUNCTION

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

__all__ = ["ExpectationsError", "load_expectations", "load_scopes", "load_surface_scopes",
           "parse_expectations", "parse_scopes", "parse_surface_scopes", "stale_entries",
           "unused_scope"]

#: The keys of an entry: the reason (required), a reproduction (optional, for readers), and the
#: functions whose dispatch the divergence is seen in (optional; without it, any function).
_KEYS = ("reason", "snippet", "functions", "surface", "causes")
_CAUSE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
#: A callable outside the vocabulary, as a failure of TFM_REACH_010 names the one a handler was
#: handed (``Tensor.size``, ``Tensor.shape.__get__``, ``tensor``).
_HANDED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
#: Verdicts under which an expected-failure entry is in use (see :mod:`conformance.report.verdicts`).
_FAILING = ("fail", "expected_failure")
#: The scope of an entry that lists only ``surface`` callables: it excuses no scenario's
#: divergence (no function of the vocabulary has this name).
NOWHERE = frozenset({"(surface callables only)"})


class ExpectationsError(ValueError):
    """The expected-failures file cannot be used; the message is one line naming the problem."""


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def parse_expectations(text: str, known: Collection[str], where: str = "<text>") -> dict[str, str]:
    """``{rule_id: reason}`` from the TOML ``text``; ``known`` is the set of valid rule IDs.

    Each entry is a table with a non-empty ``reason`` and, optionally, a ``snippet`` (a
    minimal reproduction for readers of the file); any other key is an error.
    """
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ExpectationsError(f"{where}: invalid TOML: {_one_line(str(exc))}") from None
    out: dict[str, str] = {}
    for rule_id, entry in data.items():
        if rule_id not in known:
            raise ExpectationsError(f"{where}: unknown rule ID {rule_id!r}")
        if not isinstance(entry, dict):
            raise ExpectationsError(f"{where}: [{rule_id}] must be a table with a reason")
        unknown = sorted(set(entry) - set(_KEYS))
        if unknown:
            raise ExpectationsError(f"{where}: [{rule_id}] has unknown key {unknown[0]!r} "
                                    f"(allowed: {', '.join(_KEYS)})")
        if "snippet" in entry and not isinstance(entry["snippet"], str):
            raise ExpectationsError(f"{where}: [{rule_id}] snippet must be a string")
        reason = entry.get("reason")
        if reason is None:
            raise ExpectationsError(f"{where}: [{rule_id}] has no reason")
        if not isinstance(reason, str) or not reason.strip():
            raise ExpectationsError(f"{where}: [{rule_id}] reason must be a non-empty string")
        functions = entry.get("functions", [])
        scoped = (*FUNCS, *HANDED, *FORMS, OWN_FUNCTION, *COMPILED_WORDS)
        if rule_id == UNLISTED_RULE:  # the callables handed that no one but the implementation called
            if not isinstance(functions, list) or not all(
                    f in scoped or (isinstance(f, str) and _HANDED_NAME.fullmatch(f))
                    for f in functions):
                raise ExpectationsError(f"{where}: [{rule_id}] functions must be an array of the "
                                        "names of the callables handed, as its failures name "
                                        "them (Tensor.size, Tensor.shape.__get__), or of the "
                                        "scope words")
        elif not isinstance(functions, list) or not all(f in scoped for f in functions):
            raise ExpectationsError(f"{where}: [{rule_id}] functions must be an array of the "
                                    f"vocabulary's function names ({', '.join(FUNCS)}), the "
                                    f"callables handed for syntax ({', '.join(HANDED)}), the "
                                    f"syntactic forms ({', '.join(FORMS)}), {OWN_FUNCTION!r} "
                                    "(a function the scenario defines) or a word for what holds "
                                    "of a compiled run ("
                                    f"{', '.join(repr(w) for w in COMPILED_WORDS)})")
        surface = entry.get("surface", [])
        if not isinstance(surface, list) or not all(isinstance(f, str) and f for f in surface):
            raise ExpectationsError(f"{where}: [{rule_id}] surface must be an array of the names "
                                    "of listed callables (as the certificate's surface table shows them)")
        causes = entry.get("causes", [])
        if not isinstance(causes, list) or not all(
                isinstance(c, str) and _CAUSE.fullmatch(c) for c in causes):
            raise ExpectationsError(f"{where}: [{rule_id}] causes must be an array of names of "
                                    "root causes, in lower case with hyphens")
        out[rule_id] = _one_line(reason)
    return out


def parse_scopes(text: str, known: Collection[str], where: str = "<text>") -> dict[str, frozenset[str]]:
    """``{rule_id: functions}``: where each entry excuses a divergence (empty: anywhere).

    With ``functions``, an entry excuses only a divergence seen in the dispatch of one of
    those functions (a handler run for it, or the scenario's call of it), so the same rule
    broken elsewhere still fails.
    """
    parse_expectations(text, known, where)
    data = tomllib.loads(text)
    return {rule_id: frozenset(entry.get("functions", [])) if "functions" in entry or
            "surface" not in entry else NOWHERE for rule_id, entry in data.items()}


def _read(path: str | Path) -> str:
    try:
        return Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        problem = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise ExpectationsError(f"{path}: cannot read the expected-failures file: "
                                f"{_one_line(problem)}") from None


def load_expectations(path: str | Path, known: Collection[str]) -> dict[str, str]:
    """Read and check the expected-failures file at ``path``."""
    return parse_expectations(_read(path), known, str(path))


def load_scopes(path: str | Path, known: Collection[str]) -> dict[str, frozenset[str]]:
    """The entries' scopes (see :func:`parse_scopes`) of the file at ``path``."""
    return parse_scopes(_read(path), known, str(path))


def parse_surface_scopes(text: str, known: Collection[str],
                         where: str = "<text>") -> dict[str, frozenset[str] | None]:
    """``{rule_id: callables}``: where each entry excuses a divergence of the surface sweep.

    ``surface`` lists the callables; an entry scoped to ``functions`` only excuses none of the
    sweep's; an entry with neither excuses the rule everywhere (``None``).
    """
    parse_expectations(text, known, where)
    data = tomllib.loads(text)
    return {rule_id: (frozenset(entry["surface"]) if "surface" in entry
                      else frozenset() if "functions" in entry else None)
            for rule_id, entry in data.items()}


def load_surface_scopes(path: str | Path, known: Collection[str]) -> dict[str, frozenset[str] | None]:
    """The surface scopes (see :func:`parse_surface_scopes`) of the file at ``path``."""
    return parse_surface_scopes(_read(path), known, str(path))


def stale_entries(expected: Mapping[str, str], verdicts: Mapping[str, str]) -> list[str]:
    """Entries whose rule did not fail in this run, in file order."""
    return [rule_id for rule_id in expected if verdicts.get(rule_id) not in _FAILING]


def unused_scope(scopes: Mapping[str, frozenset[str]], verdicts: Mapping[str, str],
                 used: Mapping[str, Collection[str]]) -> dict[str, list[str]]:
    """``{rule_id: elements}``: the elements of each entry's ``functions`` (function names and
    scope words) that excused no divergence in this run, in sorted order, for entries whose
    rule was an expected failure. A scoped entry is only ever used where its scope is read
    (see TestOutcome.excused), so an entry none of whose elements was used was used through
    ``surface`` alone and is left out; an empty scope (any function) and a ``surface``-only
    one have no elements."""
    out: dict[str, list[str]] = {}
    for rule_id, scope in scopes.items():
        if (verdicts.get(rule_id) != "expected_failure" or not scope or scope == NOWHERE
                or not used.get(rule_id)):
            continue
        left = sorted(scope - set(used[rule_id]))
        if left:
            out[rule_id] = left
    return out
