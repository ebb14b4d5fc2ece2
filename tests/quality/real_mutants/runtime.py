"""Serves one module of an installed package with one edit applied, leaving its files untouched.

The harness writes a module ``tfmode_variant_<name>`` made of this file's text followed by one
call of :func:`install`. Importing it puts a finder first on ``sys.meta_path`` that answers for
the target module alone (``torch.overrides``): it reads the installed file, applies the edit
(an exact text that must occur once, replaced by another), and executes the result as the
target module, under the installed file's name. Then it imports the package, so every
``from <target> import ...`` inside the package gets the edited functions, and makes the
variant's own name resolve to the package: ``--impl tfmode_variant_<name>`` drives it.

Only the standard library is used: the generated module imports on its own, in any process.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from types import ModuleType

#: The attribute set on the edited module: the variant's name (a direct check that it is loaded).
MARKER = "__tfmode_variant__"


def apply_edit(source: str, old: str, new: str) -> str:
    """``source`` with its one occurrence of ``old`` replaced by ``new`` (ValueError otherwise)."""
    if old == new:
        raise ValueError("the old and the new text are the same")
    count = source.count(old)
    if count != 1:
        raise ValueError(f"the old text occurs {count} times, not exactly once")
    return source.replace(old, new, 1)


def read_source(path: str) -> str:
    """A Python file's text, decoded as the interpreter would (encoding declaration honoured)."""
    with open(path, "rb") as handle:
        return importlib.util.decode_source(handle.read())


class EditingFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the target module where the path finder would, and loads it edited."""

    def __init__(self, variant: str, target: str, old: str, new: str) -> None:
        self.variant, self.target, self.old, self.new = variant, target, old, new
        #: The installed file, once found.
        self.origin: str | None = None

    def find_spec(self, fullname: str, path: Sequence[str] | None,
                  target: ModuleType | None = None) -> ModuleSpec | None:
        if fullname != self.target:
            return None
        found = importlib.machinery.PathFinder.find_spec(fullname, path)
        if found is None or not found.has_location or found.origin is None:
            return None
        self.origin = found.origin
        return importlib.util.spec_from_file_location(
            fullname, found.origin, loader=self,
            submodule_search_locations=found.submodule_search_locations)

    def create_module(self, spec: ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        source = self.get_source(module.__name__)
        setattr(module, MARKER, self.variant)
        # The code's file name is not the installed file's, whose lines may no longer match: a
        # traceback reads the edited text through get_source. dont_inherit: this file's
        # __future__ imports must not reach the edited module.
        code = compile(source, f"{self.origin} [variant {self.variant}]", "exec", dont_inherit=True)
        exec(code, module.__dict__)

    def get_source(self, fullname: str) -> str:
        if fullname != self.target or self.origin is None:
            raise ImportError(f"variant {self.variant}: no source for {fullname}")
        try:
            return apply_edit(read_source(self.origin), self.old, self.new)
        except ValueError as exc:
            raise ImportError(f"variant {self.variant} does not apply to {self.origin}: "
                              f"{exc}") from None


def install(alias: str, variant: str, target: str, package: str, old: str, new: str) -> ModuleType:
    """Import ``package`` with ``target`` edited and make ``alias`` resolve to the package."""
    for name in (package, target):
        if name in sys.modules:
            raise ImportError(f"variant {variant}: {name} was imported before the variant "
                              f"could edit {target}")
    finder = EditingFinder(variant, target, old, new)
    sys.meta_path.insert(0, finder)
    module = importlib.import_module(package)
    edited = importlib.import_module(target)
    if getattr(edited, MARKER, None) != variant:
        raise ImportError(f"variant {variant}: {target} was loaded by another loader")
    sys.modules[alias] = module
    return module
