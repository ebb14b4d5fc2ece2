"""Hostile: the adapter (``tests.hostile.wire_meta:ADAPTER``) says its name is 20 MB long and
full of ANSI escapes (a green "150 passed" among them), and its version holds escapes and a
newline. mean raises."""

from typing import Any

from conformance.adapter import NamespaceAdapter
from tests.hostile._base import mean_raises
from tests.mutants._build import install

_package = install(__name__, "-", "a 20 MB name and a version with escapes", (mean_raises(),))
FAKE = "\x1b[32m150 passed\x1b[0m"


class _Adapter(NamespaceAdapter):
    def error_name(self, name: str) -> str:  # error texts name the package, not the claim
        return f"{self.ns.__name__}.{name}" if name != "split" else super().error_name(name)


ADAPTER: Any = _Adapter(_package)
ADAPTER.name = FAKE + "\r\n" + "\x1b[2K" * 5_000_000
ADAPTER.version = f"1.0\n{FAKE}\x07" + "9" * 1000
_package.ADAPTER = ADAPTER
