"""Per-rule example scenarios: load and validate the TOML files under ``spec/examples``.

Each area file ``spec/examples/<area>.toml`` holds ``[[example]]`` tables::

    [[example]]
    name = "test_mode_stack"
    rules = ["TFM_PUSH_004", "TFM_REENTRY_004"]
    title = "Nested pushes dispatch innermost first"
    [example.scenario]
    modes = [{ name = "A", behaviour = "forward" }, { name = "B", behaviour = "forward" }]
    setup = [{ push = "A" }, { push = "B" }]
    call = { func = "mean", args = ["plain"] }

``name`` is unique across all files (the PR test's name where the example ports one),
``rules`` are catalogue rule IDs the scenario exercises, and ``scenario`` is a scenario
in the form :mod:`spec.model.codec` reads. A stack-generation example (``generation =
"stack"`` in its scenario) may add ``version = "1.13"`` or ``version = "2.x"``: the torch
version whose behaviour it shows (no ``version``: whatever both share, checked as 2.x). An
example may say where the boundary of compilation lies when the suite runs it under
``torch.compile`` (``--compile``; eager runs ignore it, see :mod:`spec.boundary`):
``compile_outside = K`` enters its first K set-up steps outside the compiled function, active when
it is called (the default, 0: every step inside it); ``compile_break = K`` forces a graph break
inside the compiled function after K set-up steps; ``compile_made_inside = true`` makes the
call's tensors inside the compiled function rather than before it is called.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from spec.boundary import EVERYTHING_INSIDE, Boundary
from spec.catalogue import STACK_VERSIONS, load_catalogue
from spec.model.codec import scenario_from_dict
from spec.model.scenario import Scenario
from spec.model.validate import ScenarioError

if sys.version_info >= (3, 11):
    import tomllib
else:  # Python 3.10
    import tomli as tomllib

__all__ = ["EXAMPLES_DIR", "Example", "ExampleError", "examples_for", "load_examples"]

#: Where the shipped examples live.
EXAMPLES_DIR: Final = Path(__file__).resolve().parent / "examples"

_NAME_RE: Final = re.compile(r"^[a-z][a-z0-9_]*$")
_KEYS: Final = ("name", "rules", "title", "scenario")
_OPTIONAL: Final = ("version", "compile_outside", "compile_break", "compile_made_inside")


class ExampleError(ValueError):
    """An example file is malformed; the message is one line naming the file, the example and the problem."""


@dataclass(frozen=True)
class Example:
    """One scenario that demonstrates the rules it names."""

    name: str
    rules: tuple[str, ...]
    title: str
    scenario: Scenario
    #: The area file it comes from (its stem, e.g. ``"push"``).
    area: str
    #: Stack generation only: the torch version it is about (``"1.13"`` or ``"2.x"``), or ``None``.
    version: str | None = None
    #: Under ``--compile``: where the boundary of compilation lies.
    compile_boundary: Boundary = EVERYTHING_INSIDE


def _one_line(text: str) -> str:
    return " ".join(text.split())


def _fail(path: Path, where: str | None, problem: str) -> ExampleError:
    prefix = f"{path.name}: " if where is None else f"{path.name}: {where}: "
    return ExampleError(_one_line(prefix + problem))


def _build(raw: Any, index: int, path: Path, known: frozenset[str]) -> Example:
    where = f"example[{index}]"
    if not isinstance(raw, dict):
        raise _fail(path, where, f"expected a table, got {type(raw).__name__}")
    name = raw.get("name")
    if isinstance(name, str):
        where = f"example {name!r}"
    unknown = sorted(set(raw) - set(_KEYS) - set(_OPTIONAL))
    if unknown:
        allowed = ", ".join((*_KEYS, *_OPTIONAL))
        raise _fail(path, where, f"unknown key {unknown[0]!r} (allowed: {allowed})")
    missing = [key for key in _KEYS if key not in raw]
    if missing:
        raise _fail(path, where, f"missing key {missing[0]!r}")
    if not isinstance(name, str) or not _NAME_RE.match(name):
        raise _fail(path, where, f"name must be a snake_case string, got {name!r}")
    title = raw["title"]
    if not isinstance(title, str) or not title.strip():
        raise _fail(path, where, "title must be a non-empty string")
    rules = raw["rules"]
    if (not isinstance(rules, list) or not rules
            or not all(isinstance(rule, str) for rule in rules)):
        raise _fail(path, where, "rules must be a non-empty list of rule IDs")
    for rule in rules:
        if rule not in known:
            raise _fail(path, where, f"unknown rule ID {rule!r}")
    if len(set(rules)) != len(rules):
        raise _fail(path, where, "a rule ID is listed twice")
    try:
        scenario = scenario_from_dict(raw["scenario"])
    except ScenarioError as exc:
        text = str(exc)
        raise _fail(path, where, text if text.startswith("scenario") else f"scenario: {text}") from None
    version = raw.get("version")
    if version is not None:
        if not isinstance(version, str) or version not in STACK_VERSIONS:
            choices = " or ".join(repr(v) for v in STACK_VERSIONS)
            raise _fail(path, where, f"version must be {choices}, got {version!r}")
        if scenario.generation != "stack":
            raise _fail(path, where, f"version {version!r} is only for generation 'stack' "
                                     f"scenarios (this one is {scenario.generation!r})")
    boundary = Boundary(raw.get("compile_outside", 0), raw.get("compile_break"),
                        raw.get("compile_made_inside", False))
    problem = boundary.problem(len(scenario.setup))
    if problem is not None:
        raise _fail(path, where, f"compile_{problem}")
    if not scenario.title:
        scenario = dataclasses.replace(scenario, title=title)
    return Example(name, tuple(rules), title, scenario, path.stem, version, boundary)


def _read(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except tomllib.TOMLDecodeError as exc:
        raise _fail(path, None, f"invalid TOML: {exc}") from None
    except OSError as exc:
        raise _fail(path, None, f"cannot read: {exc.strerror or exc}") from None


def _load(directory: Path) -> tuple[Example, ...]:
    if not directory.is_dir():
        raise ExampleError(f"{directory}: not a directory of example files")
    paths = sorted(directory.glob("*.toml"))
    if not paths:
        raise ExampleError(f"{directory}: no *.toml example files")
    known = frozenset(load_catalogue().ids())
    examples: list[Example] = []
    owner: dict[str, Path] = {}
    for path in paths:
        document = _read(path)
        unknown = sorted(set(document) - {"example"})
        if unknown:
            raise _fail(path, None, f"unknown key {unknown[0]!r} (allowed: example)")
        entries = document.get("example")
        if not isinstance(entries, list) or not entries:
            raise _fail(path, None, "expected one or more [[example]] tables")
        for index, raw in enumerate(entries):
            example = _build(raw, index, path, known)
            if example.name in owner:
                raise _fail(path, f"example {example.name!r}",
                            f"duplicate name (also in {owner[example.name].name})")
            owner[example.name] = path
            examples.append(example)
    return tuple(examples)


@functools.lru_cache(maxsize=1)
def _load_default() -> tuple[Example, ...]:
    return _load(EXAMPLES_DIR)


def load_examples(path: Path | None = None) -> tuple[Example, ...]:
    """Every example in the ``*.toml`` files of ``path`` (default: the shipped ones), file by file.

    Raises :class:`ExampleError` (one line) for invalid TOML, unknown or missing keys,
    duplicate names, rule IDs that are not in the catalogue, malformed scenarios, a
    ``version`` that is not a stack version or is given for a 2022 scenario, and a
    ``compile_*`` key that does not fit the scenario (:meth:`spec.boundary.Boundary.problem`).
    The default examples are loaded once and cached.
    """
    if path is None:
        return _load_default()
    return _load(Path(path))


def examples_for(rule_id: str, examples: tuple[Example, ...] | None = None) -> tuple[Example, ...]:
    """The examples (default: the shipped ones) that name ``rule_id``; ``KeyError`` for an unknown ID."""
    load_catalogue().by_id(rule_id)
    pool = load_examples() if examples is None else examples
    return tuple(example for example in pool if rule_id in example.rules)
