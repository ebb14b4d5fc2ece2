"""The mutants themselves: well declared, independent copies, each really mutated."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

import pytest

import reference_impl
from spec.catalogue import load_catalogue
from tests.mutants import MUTANTS
from tests.mutants._build import REFERENCE_DIR, Mutation, MutationError, build, mutated_sources

MUTANTS_DIR = Path(__file__).resolve().parent.parent / "mutants"


def test_the_list_names_every_mutant_module() -> None:
    files = {p.stem for p in MUTANTS_DIR.glob("*.py") if not p.stem.startswith("_")}
    assert files == set(MUTANTS)


def test_each_mutant_breaks_a_different_must_or_should_rule_of_2022() -> None:
    assert len(MUTANTS) >= 20
    # One rule has two mutants, one per path that hands the handlers their arguments: the
    # Python path (split's own call of handle_torch_function) and the native dispatcher (add).
    shared = {"TFM_ARGS_002": ["split_keyword_positional", "add_replaces_other"]}
    by_rule: dict[str, list[str]] = {}
    for name, rule_id in MUTANTS.items():
        by_rule.setdefault(rule_id, []).append(name)
    assert {r: n for r, n in by_rule.items() if len(n) > 1} == shared, "two mutants name the same rule"
    catalogue = load_catalogue()
    for name, rule_id in MUTANTS.items():
        rule = catalogue.by_id(rule_id)
        assert rule.level in ("MUST", "SHOULD") and "2022" in rule.generations, (name, rule_id)


@pytest.mark.parametrize("name", list(MUTANTS))
def test_the_mutant_is_an_independent_copy(name: str) -> None:
    module = importlib.import_module(f"tests.mutants.{name}")
    assert sys.modules[f"tests.mutants.{name}"] is module
    assert module.__name__ == f"tests.mutants.{name}"
    assert MUTANTS[name] == module.RULE
    assert module.BUG and "\n" not in module.BUG
    # Its own module objects, its own slot, its own Tensor; nothing shared with reference_impl.
    assert module._C is not reference_impl._C
    assert module._C._tls is not reference_impl._C._tls
    assert module.Tensor is not reference_impl.Tensor
    assert module._C._tensor_class is module.Tensor
    assert module.overrides.Tensor is module.Tensor
    for sub in ("_C", "_dispatch", "_functions", "_tensor", "functional", "overrides"):
        submodule = sys.modules[f"tests.mutants.{name}.{sub}"]
        for value in vars(submodule).values():
            origin = value.__name__ if isinstance(value, ModuleType) else getattr(
                value, "__module__", None)
            assert not str(origin).startswith("reference_impl"), (sub, value)
    # The mutated text really is what runs.
    sources = mutated_sources(module.__name__, module.MUTATIONS)
    pristine = mutated_sources(module.__name__, ())
    changed = {file for file in sources if sources[file] != pristine[file]}
    assert changed == {m.file for m in module.MUTATIONS}


def test_a_snippet_that_is_gone_or_ambiguous_breaks_the_build_loudly() -> None:
    with pytest.raises(MutationError, match="occurs 0 times"):
        mutated_sources("x", [Mutation("_C.py", "this text is not in _C.py", "")])
    with pytest.raises(MutationError, match=r"occurs \d+ times"):
        mutated_sources("x", [Mutation("_C.py", "_tls", "_TLS")])
    with pytest.raises(MutationError, match="no file"):
        mutated_sources("x", [Mutation("nope.py", "a", "b")])
    with pytest.raises(MutationError, match="does not compile"):
        mutated_sources("x", [Mutation("_C.py", "def _get_torch_function_mode()", "def (")])
    # An indented snippet must start a line: four spaces of it do not match inside eight.
    with pytest.raises(MutationError, match="occurs 0 times"):
        mutated_sources("x", [Mutation("_C.py", "   return _tls.mode\n", "   return None\n")])


def test_building_twice_gives_two_fresh_copies() -> None:
    first = build("tests.mutants._fresh")
    second = build("tests.mutants._fresh")
    assert first is not second
    assert first._C._tls is not second._C._tls
    assert sys.modules["tests.mutants._fresh"] is second
    assert second.overrides._C is second._C


def test_mutants_are_built_from_reference_impl_sources() -> None:
    assert Path(reference_impl.__file__).resolve().parent == REFERENCE_DIR
    assert not any(p.name.startswith("_C") for p in MUTANTS_DIR.iterdir())
