"""The contract page lists exactly the names the adapter checks, and says what it checks.

For each generation, the names on the page are the contract's names of that generation; the
ones marked required are exactly those whose removal from a namespace of that generation makes
NamespaceAdapter refuse it, and the optional ones are those whose removal it accepts. The
features table has every feature, with the detection the adapter applies.
"""

from __future__ import annotations

import types
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest
from htmlpage import Element, parse

from conformance.adapter import FEATURES, AdapterError, NamespaceAdapter
from conformance.target import namespace as contract
from tests.namespace_copies import copy_2022, copy_stack, remove

COPIES: dict[contract.Generation, Callable[[], ModuleType]] = {"2022": copy_2022,
                                                              "stack": copy_stack}


@pytest.fixture(scope="module")
def page(html: Path) -> Element:
    return parse(html / "contract.html")


def rows(section: Element) -> dict[str, str]:
    """Each name listed in a section's tables, with the text of its "needed" cell."""
    out: dict[str, str] = {}
    for row in section.walk():
        if row.tag != "tr":
            continue
        names = row.by_class("tfm-contract-name")
        if names:
            cells = [c for c in row.children if isinstance(c, Element) and c.tag == "td"]
            name = names[0].text()
            assert name not in out, f"{name} listed twice"
            out[name] = cells[1].text().strip()
    return out


def accepted(generation: contract.Generation, path: str, *, present: bool) -> bool:
    """Whether the adapter accepts a namespace of ``generation`` with (or without) ``path``."""
    ns = COPIES[generation]()
    *parents, last = path.split(".")
    owner = ns
    for part in parents:
        if not hasattr(owner, part):
            if not present:
                break  # absent with its parent: nothing to remove
            setattr(owner, part, types.SimpleNamespace())
        owner = getattr(owner, part)
    if present and not hasattr(owner, last):
        setattr(owner, last, object)
    if not present and hasattr(owner, last):
        remove(ns, path)
    try:
        NamespaceAdapter(ns)
    except AdapterError:
        return False
    return True


@pytest.mark.parametrize("generation", contract.GENERATIONS)
def test_the_page_lists_exactly_the_names_the_adapter_checks(
        page: Element, generation: contract.Generation) -> None:
    listed = rows(page.by_id(f"contract-{generation}"))
    expected = {n.path: n.status(generation) for n in contract.NAMES
                if n.status(generation) is not None}
    assert set(listed) == set(expected)
    for name, needed in listed.items():
        assert needed.split(",")[0].split(":")[0] == expected[name], (name, needed)


@pytest.mark.parametrize("generation", contract.GENERATIONS)
def test_required_on_the_page_is_what_the_adapter_refuses_without(
        page: Element, generation: contract.Generation) -> None:
    for name, needed in rows(page.by_id(f"contract-{generation}")).items():
        assert accepted(generation, name, present=True), name
        if needed.startswith("required"):
            assert not accepted(generation, name, present=False), (
                f"{name}: the page says required, the adapter accepts a namespace without it")
        else:
            assert accepted(generation, name, present=False), (
                f"{name}: the page says optional, the adapter refuses a namespace without it")


def test_the_features_table_has_every_feature_with_its_detection(page: Element) -> None:
    section = page.by_id("contract-features")
    shown = {}
    for row in section.walk():
        if row.tag == "tr" and row.by_class("tfm-contract-feature"):
            cells = [c for c in row.children if isinstance(c, Element) and c.tag == "td"]
            shown[cells[0].text().strip()] = " ".join(cells[3].text().split())
    assert list(shown) == list(FEATURES)
    for feature in contract.FEATURES:
        assert shown[feature.name] == contract.detection(feature).replace("`", "")
