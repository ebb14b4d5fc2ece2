"""What ``tox -e ENV -- ARGS`` would run, read from ``tox.ini``, without tox or a tox environment.

Only what this repository's ``tox.ini`` uses is understood: ``{posargs}`` and
``{posargs:DEFAULT}``, ``{toxinidir}``, ``{[section]key}`` references, ``\\`` line continuations,
``#`` comment lines, and factor conditions (``py310,py311: cmd``, ``!py310-!py311: cmd``).
Anything else in braces is an error, so a new construct is noticed rather than misread.
"""

from __future__ import annotations

import configparser
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

_REFERENCE = re.compile(r"\{\[([^\]]+)\]([\w-]+)\}")
_POSARGS = re.compile(r"\{posargs(?::([^}]*))?\}")
_FACTORS = re.compile(r"^([!\w.]+(?:[-,][!\w.]+)*):\s+(.*)$")
_ALIASES = {"set_env": "setenv", "pass_env": "passenv", "env_list": "envlist"}


class ToxIniError(Exception):
    """tox.ini or a tox command line uses something this reader does not understand."""


@dataclass(frozen=True)
class ToxCommand:
    """A ``[VAR=value ...] tox [p] [-e ENV[,ENV]] [-- ARGS]`` command line, taken apart."""

    variables: dict[str, str]
    envs: tuple[str, ...]  # empty: tox's env_list
    posargs: tuple[str, ...]
    #: ``tox p`` (``run-parallel``): the same envs, several at a time
    parallel: bool = False


def parse_tox_command(command: str) -> ToxCommand:
    """Take a shown ``tox`` command apart: its one subcommand may be ``p`` (``run-parallel``);
    any option other than ``-e`` is an error."""
    words = shlex.split(command)
    variables = {}
    while words and re.match(r"^[A-Z][A-Z0-9_]*=", words[0]):
        name, _, value = words.pop(0).partition("=")
        variables[name] = value
    if not words or words[0] != "tox":
        raise ToxIniError(f"not a tox command: {command!r}")
    words.pop(0)
    parallel = bool(words) and words[0] in ("p", "run-parallel")
    if parallel:
        words.pop(0)
    envs: list[str] = []
    while words and words[0] != "--":
        option = words.pop(0)
        if option != "-e" or not words:
            raise ToxIniError(f"{command!r}: only -e ENV and -- ARGS are understood, not {option!r}")
        envs += words.pop(0).split(",")
    return ToxCommand(variables, tuple(envs), tuple(words[1:]), parallel)


class ToxIni:
    """One ``tox.ini``; ``root`` stands for ``{toxinidir}``."""

    def __init__(self, path: Path, root: Path | None = None) -> None:
        self.path = path
        self.root = root if root is not None else path.parent
        self._parser = configparser.ConfigParser(interpolation=None)
        self._parser.optionxform = str  # type: ignore[assignment,method-assign]
        self._parser.read_string(path.read_text(encoding="utf-8"))

    def _raw(self, section: str, key: str) -> str | None:
        if not self._parser.has_section(section):
            return None
        for name in (key, _ALIASES.get(key, key)):
            if self._parser.has_option(section, name):
                return self._parser.get(section, name)
        return None

    def _value(self, env: str, key: str) -> str:
        """``key`` of ``[testenv:env]``, else of ``[testenv]``; references resolved."""
        raw = self._raw(f"testenv:{env}", key)
        if raw is None:
            raw = self._raw("testenv", key) or ""
        return self._resolve(raw)

    def _resolve(self, text: str, depth: int = 0) -> str:
        if depth > 10:
            raise ToxIniError(f"{self.path.name}: references nest too deeply in {text!r}")

        def reference(match: re.Match[str]) -> str:
            value = self._raw(match.group(1), match.group(2))
            if value is None:
                raise ToxIniError(f"{self.path.name}: no {match.group(2)} in [{match.group(1)}]")
            return self._resolve(value, depth + 1)

        return _REFERENCE.sub(reference, text).replace("{toxinidir}", shlex.quote(str(self.root)))

    def env_list(self) -> list[str]:
        return [name for name in re.split(r"[\s,]+", self._raw("tox", "env_list") or "") if name]

    def has_env(self, env: str) -> bool:
        """Defined by a section of its own or listed in env_list (and made from [testenv])."""
        return self._parser.has_section(f"testenv:{env}") or env in self.env_list()

    def pass_env(self, env: str) -> list[str]:
        return [name for name in re.split(r"[\s,]+", self._value(env, "pass_env")) if name]

    def set_env(self, env: str) -> dict[str, str]:
        found = {}
        for line in self._value(env, "set_env").splitlines():
            if line.strip() and not line.strip().startswith("#"):
                name, equals, value = line.partition("=")
                if not equals:
                    raise ToxIniError(f"{self.path.name}: [testenv:{env}] set_env line {line!r}")
                found[name.strip()] = value.strip()
        return found

    def commands(self, env: str, posargs: tuple[str, ...] = ()) -> list[list[str]]:
        """The argument lists tox would run for ``env`` with ``posargs`` after ``--``."""
        if not self.has_env(env):
            raise ToxIniError(f"{self.path.name} defines no tox env {env!r}")
        text = re.sub(r"\\\n\s*", " ", self._value(env, "commands"))
        factors = set(env.split("-"))
        found = []
        for line in text.splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            condition = _FACTORS.match(line)
            if condition:
                if not _factors_hold(condition.group(1), factors):
                    continue
                line = condition.group(2)
            line = _POSARGS.sub(
                lambda m: shlex.join(posargs) if posargs else (m.group(1) or ""), line)
            if "{" in line:
                raise ToxIniError(f"{self.path.name}: [testenv:{env}] {line!r}: unknown substitution")
            found.append(shlex.split(line))
        return found

    def takes_posargs(self, env: str) -> bool:
        return "{posargs" in self._value(env, "commands")


def _factors_hold(expression: str, factors: set[str]) -> bool:
    """tox's factor conditions: ``,`` is or, ``-`` is and, ``!`` is not."""
    return any(all((part[1:] not in factors) if part.startswith("!") else (part in factors)
                   for part in group.split("-"))
               for group in expression.split(","))
