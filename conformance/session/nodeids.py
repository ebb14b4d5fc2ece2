"""The node IDs of the suite's tests: ``conformance/suite/test_examples.py::test_example[...]``
wherever the package is installed.

pytest names a test by its file's path relative to the rootdir, so a suite installed in a
virtual environment inside the project (``tox -e conformance``: ``.tox/conformance/lib/
python3.11/site-packages``) would be shown, selected and reported as ``.tox/conformance/lib/
.../site-packages/conformance/suite/test_examples.py::...``, and a run from elsewhere as
``test_examples.py::...``. The suite's modules are made with the node ID the checkout gives
them instead, the same in every run: what the terminal shows, ``--deselect`` takes, junit.xml
and the certificate record.
"""

from __future__ import annotations

from pathlib import Path

import pytest

__all__ = ["SUITE_DIR", "pytest_pycollect_makemodule", "suite_nodeid"]

#: The folder of the suite's test modules, in this installation of the package.
SUITE_DIR = Path(__file__).resolve().parents[1] / "suite"


def suite_nodeid(module_path: Path) -> str | None:
    """The node ID of the suite's test module at ``module_path``; None for any other file."""
    if module_path.resolve().parent != SUITE_DIR:
        return None
    return f"conformance/suite/{module_path.name}"


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makemodule(module_path: Path, parent: pytest.Collector) -> pytest.Module | None:
    nodeid = suite_nodeid(module_path)
    if nodeid is None:
        return None
    return pytest.Module.from_parent(parent, path=module_path, nodeid=nodeid)
