"""The child's tripwire (conformance.sandbox.integrity): each way of changing the suite's code that the
hostile battery uses is noticed, and leaving the suite's code alone is not."""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from conformance.sandbox.integrity import MAX_NAMED, Snapshot

SOURCE = '''
def resolve(target):
    return target

def helper(x=1):
    return x

class Run:
    def execute(self):
        return "real"

    @staticmethod
    def fixed():
        return 1

    @property
    def naming(self):
        return "n"
'''


@pytest.fixture
def suite() -> Iterator[types.ModuleType]:
    """A stand-in suite package with one module, in sys.modules for the test's duration."""
    package = types.ModuleType("tfmsuite")
    module = types.ModuleType("tfmsuite.child")
    exec(compile(SOURCE, "tfmsuite/child.py", "exec"), vars(module))
    for value in vars(module).values():
        if isinstance(value, (types.FunctionType, type)):
            value.__module__ = "tfmsuite.child"
    sys.modules["tfmsuite"], sys.modules["tfmsuite.child"] = package, module
    try:
        yield module
    finally:
        del sys.modules["tfmsuite"], sys.modules["tfmsuite.child"]


def snapshot() -> Snapshot:
    return Snapshot(("tfmsuite",))


def test_nothing_changed_is_no_change(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.counter = 3           # data the suite keeps may change
    suite.Run().execute()
    assert taken.changes() == []


def test_a_replaced_function_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.resolve = lambda target: "reference_impl"
    assert taken.changes() == ["tfmsuite.child.resolve replaced"]


def test_code_swapped_in_place_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.helper.__code__ = (lambda x=1: 2).__code__
    assert taken.changes() == ["tfmsuite.child.helper changed in place"]


def test_defaults_swapped_in_place_are_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.helper.__defaults__ = (2,)
    assert taken.changes() == ["tfmsuite.child.helper changed in place"]


def test_a_replaced_method_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.Run.execute = lambda self: "forged"
    suite.Run.naming = property(lambda self: "forged")
    assert taken.changes() == ["tfmsuite.child.Run.execute replaced", "tfmsuite.child.Run.naming replaced"]


def test_a_method_added_to_a_class_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    suite.Run.__call__ = lambda self: "forged"
    assert taken.changes() == ["tfmsuite.child.Run.__call__ added"]


def test_a_replaced_module_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    sys.modules["tfmsuite.child"] = types.ModuleType("tfmsuite.child")
    assert taken.changes() == ["sys.modules['tfmsuite.child'] replaced"]


def test_a_removed_module_is_named(suite: types.ModuleType) -> None:
    taken = snapshot()
    del sys.modules["tfmsuite.child"]
    sys.modules["tfmsuite.child"] = suite  # put back for the fixture, then remove it again
    del sys.modules["tfmsuite.child"]
    try:
        assert taken.changes() == ["sys.modules['tfmsuite.child'] replaced"]
    finally:
        sys.modules["tfmsuite.child"] = suite


def test_many_changes_are_cut(suite: types.ModuleType) -> None:
    taken = snapshot()
    for i in range(MAX_NAMED + 3):
        setattr(suite.Run, f"m{i}", lambda self: None)
    assert len(taken.changes()) == MAX_NAMED


def test_the_real_suite_is_unchanged_by_a_scenario_run() -> None:
    """The guarded packages themselves: running scenarios on reference_impl changes nothing the
    tripwire watches (no false alarm in a clean run)."""
    import reference_impl
    from conformance.adapter import load_adapter
    from conformance.target.runner import Run
    from spec.model.codec import load_scenario

    taken = Snapshot()
    adapter = load_adapter("reference_impl", "--impl reference_impl")
    assert reference_impl is not None
    folder = Path(__file__).resolve().parents[1] / "spec" / "scenarios"
    paths = sorted(folder.glob("*.toml"))
    assert paths
    for path in paths:
        scenario = load_scenario(path)
        Run(scenario, adapter).execute()
        adapter.reset()
    assert taken.changes() == []


def test_a_module_the_suite_imports_later_is_guarded_once_taken(suite: types.ModuleType) -> None:
    taken = snapshot()
    later = types.ModuleType("tfmsuite.later")
    exec("def body():\n    return 1\n", vars(later))
    later.body.__module__ = "tfmsuite.later"
    sys.modules["tfmsuite.later"] = later
    try:
        assert taken.guards("tfmsuite.later") and not taken.guards("elsewhere")
        assert not taken.knows("tfmsuite.later")
        taken.extend()
        assert taken.knows("tfmsuite.later") and taken.changes() == []
        later.body = lambda: 2
        assert taken.changes() == ["tfmsuite.later.body replaced"]
    finally:
        del sys.modules["tfmsuite.later"]


def test_extend_reads_sys_modules_again_only_when_its_size_changed(suite: types.ModuleType) -> None:
    """Each request extends the snapshot, and with torch loaded a read of sys.modules takes
    milliseconds: it is read again only when an import changed its number of entries."""
    taken = snapshot()
    later = types.ModuleType("tfmsuite.later")
    placeholder = types.ModuleType("tfm_placeholder")
    sys.modules["tfm_placeholder"] = placeholder
    try:
        taken.extend()  # reads the new size
        del sys.modules["tfm_placeholder"]
        sys.modules["tfmsuite.later"] = later  # the same number of entries
        taken.extend()
        assert not taken.knows("tfmsuite.later")
        sys.modules["tfm_placeholder"] = placeholder
        taken.extend()
        assert taken.knows("tfmsuite.later") and taken.changes() == []
    finally:
        sys.modules.pop("tfmsuite.later", None)
        sys.modules.pop("tfm_placeholder", None)
