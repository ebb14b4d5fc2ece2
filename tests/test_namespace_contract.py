"""The namespace contract (conformance.target.namespace) is what NamespaceAdapter checks, name by name.

A copy of reference_impl (2022) and a stack-shaped copy of it lose one required name at a time;
the adapter must refuse each copy with one line naming exactly what was removed. The adapter's
lookups are recorded to show that it asks for the contract's names and no others.
"""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from conformance.adapter import AdapterError, NamespaceAdapter
from conformance.target import namespace as contract
from tests.namespace_copies import copy_2022, copy_stack, remove

ROOT = Path(__file__).resolve().parents[1]
PREFIX = " is not a torch-like namespace"


def refusal(ns: types.ModuleType) -> str:
    with pytest.raises(AdapterError) as caught:
        NamespaceAdapter(ns)
    return str(caught.value)


def named(message: str) -> list[str]:
    """The names an error lists after "it has no "."""
    head, sep, names = message.partition(": it has no ")
    assert sep and PREFIX in head, message
    return names.split(", ")


def test_the_copies_are_namespaces_of_their_generation() -> None:
    assert NamespaceAdapter(copy_2022()).generation == "2022"
    stack = NamespaceAdapter(copy_stack())
    assert stack.generation == "stack"
    assert stack.features == {"python-path", "surface", "syntax", "more-syntax", "setitem", "slicing",
                              "comparisons", "more-operators", "conversions", "properties",
                              "wrap-torch-function"}


@pytest.mark.parametrize("path", contract.required() + contract.required("2022"))
def test_each_required_name_of_the_2022_generation_is_named_alone(path: str) -> None:
    ns = copy_2022()
    remove(ns, path)
    message = refusal(ns)
    assert "\n" not in message
    # Removing Tensor takes its methods with it: those are missing too, and named.
    gone = [path, *(p for p in contract.required() if p.startswith(path + "."))]
    assert named(message) == gone
    assert message.startswith("halfns" + PREFIX)


@pytest.mark.parametrize("path", contract.required() + contract.required("stack"))
def test_each_required_name_of_the_stack_generation_is_named_alone(path: str) -> None:
    ns = copy_stack()
    remove(ns, path)
    message = refusal(ns)
    assert "\n" not in message
    needed = contract.required() + contract.required("stack")
    gone = [path, *(p for p in needed if p.startswith(path + "."))]
    assert named(message) == gone


def test_a_partial_generation_is_named_in_the_error() -> None:
    ns = copy_2022()
    remove(ns, "_C._set_torch_function_mode")
    remove(ns, "Tensor.tolist")
    assert refusal(ns) == ("halfns is not a torch-like namespace of the 2022 generation: it has no "
                           "Tensor.tolist, _C._set_torch_function_mode")


def test_a_namespace_of_no_generation_is_told_both_lists() -> None:
    ns = copy_stack("nogen")
    for path in contract.required("stack"):
        remove(ns, path)
    message = refusal(ns)
    assert "\n" not in message
    assert message.startswith("nogen is not a torch-like namespace: it has none of the names of "
                              "either generation")
    for path in contract.required("2022") + contract.required("stack"):
        assert path in message


def test_optional_names_give_features_not_errors() -> None:
    ns = copy_stack()
    ns._C.DisableTorchFunctionSubclass = object
    assert NamespaceAdapter(ns).features == {"python-path", "disable-subclass", "surface", "syntax",
                                             "more-syntax", "setitem", "slicing", "comparisons",
                                             "more-operators", "conversions", "properties",
                                             "wrap-torch-function"}
    assert NamespaceAdapter(copy_2022()).features == {
        "python-path", "subclass-as-mode", "raw-slot", "surface", "syntax", "more-syntax",
        "setitem", "slicing", "comparisons", "more-operators", "conversions", "properties",
        "wrap-torch-function"}
    ns = copy_2022()
    ns._C.DisableTorchFunctionSubclass = object
    assert "disable-subclass" in NamespaceAdapter(ns).features


def test_every_feature_has_a_detection_rule_and_every_name_is_in_the_contract() -> None:
    paths = set(contract.by_path())
    assert len(paths) == len(contract.NAMES)
    for feature in contract.FEATURES:
        assert set(feature.names) <= paths, feature.name
        assert contract.detection(feature).startswith("Declared for ")
    for name in contract.NAMES:
        assert name.meaning and "\n" not in name.meaning, name.path
        assert name.required or name.optional, name.path
        assert not set(name.required) & set(name.optional), name.path


class Recorder:
    """Stands in for a namespace and records every dotted name looked up from it."""

    def __init__(self, target: object, seen: set[str], prefix: str = "") -> None:
        self._target, self._seen, self._prefix = target, seen, prefix

    def __getattr__(self, name: str) -> Any:
        path = self._prefix + name
        self._seen.add(path)
        return Recorder(getattr(self._target, name), self._seen, path + ".")


@pytest.mark.parametrize("make", [copy_2022, copy_stack], ids=["2022", "stack"])
def test_the_adapter_looks_up_exactly_the_contracts_names(make: Any) -> None:
    seen: set[str] = set()
    NamespaceAdapter(Recorder(make(), seen))  # type: ignore[arg-type]
    # Besides the contract's names: the module's import name, whether it is a package (whose
    # submodules of contract.SUBMODULES the adapter imports), and the three submodules the
    # dotted names are reached through; the copies have no `utils`, so nothing below it is
    # reached.
    assert seen - set(contract.by_path()) == {"__name__", "__path__", "overrides", "_C", "utils"}
    assert set(contract.by_path()) - seen == {"utils._device.DeviceContext"}


def test_the_suite_reports_a_missing_method_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notolist.py").write_text(
        "from tests.namespace_copies import copy_2022, remove\n"
        "ns = copy_2022('notolist')\n"
        "remove(ns, 'Tensor.tolist')\n"
        "globals().update({k: v for k, v in vars(ns).items() if not k.startswith('__')})\n",
        encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("TFMODE_IMPL", None)
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--pyargs", "conformance.suite",
         "--impl-path", str(tmp_path), "--impl", "notolist", "--reports-dir", str(tmp_path / "r")],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300, check=False)
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == pytest.ExitCode.USAGE_ERROR, done.stdout + done.stderr
    assert errors == ["ERROR: notolist is not a torch-like namespace: it has no Tensor.tolist"]
