"""Makes ``--dist loadgroup`` keep each ``xdist_group`` on one worker, whatever pytest's version.

pytest-xdist tags a grouped test by appending ``@GROUP`` to ``item._nodeid`` on the worker; the
controller's scheduler reads the group back from the node id. From pytest 9.2 a node's id is
held in ``item._id`` and ``_nodeid`` is no longer read, so the tag is lost: every grouped test
is scheduled on its own, and the module-scoped pools of the quality suites start their whole
batch of certifications on both workers (the same commands run twice). This plugin applies the
tag where the pytest in use reads it, after pytest-xdist's own hook; where the tag already took
effect it does nothing. ``tests/test_xdist_groups.py`` runs a pool-like module on two workers
and fails if both start it.
"""

from __future__ import annotations

import pytest


def _groups(item: pytest.Item) -> list[str]:
    names = {str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
             for mark in item.iter_markers("xdist_group")}
    return sorted(names)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not hasattr(config, "workerinput") or not config.getvalue("loadgroup"):
        return
    for item in items:
        names = _groups(item)
        if not names:
            continue
        suffix = "@" + "_".join(names)
        if item.nodeid.endswith(suffix):
            continue  # the pytest in use reads _nodeid: xdist's tag took effect
        node_id = getattr(item, "_id", None)
        if node_id is None:
            continue
        item._id = type(node_id).parse(item.nodeid + suffix)  # type: ignore[attr-defined]
