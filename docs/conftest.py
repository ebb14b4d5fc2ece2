"""The docs tests read a built HTML tree: ``TFMODE_DOCS_HTML`` if it is set (tox -e docs points
it at the build it has just made), else one build of this checkout made once for the session."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent


@pytest.fixture(scope="session")
def html(tmp_path_factory: pytest.TempPathFactory) -> Path:
    given = os.environ.get("TFMODE_DOCS_HTML")
    if given:
        out = Path(given)
        if not (out / "index.html").is_file():
            pytest.fail(f"TFMODE_DOCS_HTML={given}: no HTML build there "
                        f"(run sphinx-build -b html docs {given} first)")
        return out
    out = tmp_path_factory.mktemp("html")
    done = subprocess.run([sys.executable, "-m", "sphinx", "-q", "-b", "html", str(DOCS), str(out)],
                          capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        pytest.fail(f"the docs build failed:\n{done.stderr[-4000:]}")
    return out
