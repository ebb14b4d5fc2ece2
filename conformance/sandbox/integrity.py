"""A tripwire in the sandbox's child: notices the implementation changing the suite's own code.

The suite records a scenario's trace in the child, the implementation's own interpreter, so code
the implementation runs there (at import, or inside a call) could replace the recorder: swap the
function that resolves requests, a method of the runner, a function's ``__code__``. Before the
child imports the implementation it imports every suite module it will use and takes a
:class:`Snapshot` of them: each module object in ``sys.modules``, each function and class a
module defines, each function's code and defaults, each class's methods. After the import and
after every request, :meth:`Snapshot.changes` says what is no longer as it was; the child then
reports the run as tampered with, and the suite's process fails every later request of the run.

This is a tripwire, not a wall: code that sets out to cheat inside its own process can also
defeat a check that runs there (docs/trust.rst, "What a certificate cannot rule out"). It only
reads objects; it imports nothing of the suite itself, and no suite module imports it but the
child.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["SUITE_PACKAGES", "Snapshot"]

#: The top-level packages whose modules the tripwire guards.
SUITE_PACKAGES = ("conformance", "spec")
#: How many changes :meth:`Snapshot.changes` names at most.
MAX_NAMED = 5


def _ours(name: str, packages: Iterable[str]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in packages)


def _function_state(function: types.FunctionType) -> tuple[Any, ...]:
    return (function.__code__, function.__defaults__, function.__kwdefaults__)


def _member(value: Any) -> Any:
    """What stands behind a class attribute that is code (a method, a static or class method,
    a property's getter), or None."""
    if isinstance(value, (staticmethod, classmethod)):
        value = value.__func__
    if isinstance(value, property):
        value = value.fget
    return value if isinstance(value, types.FunctionType) else None


class Snapshot:
    """The suite's modules, functions and classes as they are now (see the module docstring)."""

    def __init__(self, packages: Iterable[str] = SUITE_PACKAGES) -> None:
        self.packages = tuple(packages)
        #: module name -> module object
        self._modules: dict[str, types.ModuleType] = {}
        #: (where, namespace, key, object): namespace[key] must still be object
        self._bindings: list[tuple[str, Mapping[str, Any], str, Any]] = []
        #: (where, function, (code, defaults, kwdefaults))
        self._functions: list[tuple[str, types.FunctionType, tuple[Any, ...]]] = []
        #: (where, class, the names of its attributes that were code)
        self._classes: list[tuple[str, type, frozenset[str], int]] = []
        #: How many entries sys.modules had when it was last read: :meth:`extend` reads it
        #: again only when that changed (with torch loaded, a read takes milliseconds).
        self._scanned = -1
        self.extend()

    def guards(self, name: str) -> bool:
        """Whether the module ``name`` belongs to the packages this snapshot guards."""
        return _ours(name, self.packages)

    def knows(self, name: str) -> bool:
        """Whether the snapshot took the module ``name``."""
        return name in self._modules

    def extend(self) -> None:
        """Take the guarded modules imported since (by the suite itself: a request's module).

        ``sys.modules`` is read again only when its number of entries changed since the last
        read, as an import changes it; a module replaced in it is :meth:`changes`' to find."""
        if len(sys.modules) == self._scanned:
            return
        for name, module in list(sys.modules.items()):
            if module is not None and name not in self._modules and _ours(name, self.packages) \
                    and name != "__main__":
                self._modules[name] = module
                self._take(name, module)
        self._scanned = len(sys.modules)

    def _take(self, name: str, module: types.ModuleType) -> None:
        namespace = vars(module)
        for key, value in list(namespace.items()):
            where = f"{name}.{key}"
            if isinstance(value, types.FunctionType) and value.__module__ == name:
                self._bindings.append((where, namespace, key, value))
                self._functions.append((where, value, _function_state(value)))
            elif isinstance(value, type) and value.__module__ == name:
                self._bindings.append((where, namespace, key, value))
                self._take_class(where, value)

    def _take_class(self, where: str, cls: type) -> None:
        members = vars(cls)
        code_names = []
        for key, value in list(members.items()):
            function = _member(value)
            if function is None:
                continue
            code_names.append(key)
            # vars(cls) is a live view of the class's own attributes
            self._bindings.append((f"{where}.{key}", members, key, value))
            self._functions.append((f"{where}.{key}", function, _function_state(function)))
        self._classes.append((where, cls, frozenset(code_names), len(members)))

    def changes(self) -> list[str]:
        """What is no longer as the snapshot found it, at most :data:`MAX_NAMED` names (empty:
        nothing changed). Run after every request: under a millisecond, for some 1,600 names."""
        modules = sys.modules
        found = [f"sys.modules[{name!r}] replaced" for name, module in self._modules.items()
                 if modules.get(name) is not module]
        found += [f"{where} replaced" for where, namespace, key, value in self._bindings
                  if namespace.get(key, _MISSING) is not value]
        found += [f"{where} changed in place" for where, function, (code, defaults, kwdefaults)
                  in self._functions
                  if function.__code__ is not code or function.__defaults__ is not defaults
                  or function.__kwdefaults__ is not kwdefaults]
        for where, cls, code_names, size in self._classes:
            if len(vars(cls)) != size:
                found += [f"{where}.{k} added" for k, v in vars(cls).items()
                          if k not in code_names and _member(v) is not None]
        return list(dict.fromkeys(found))[:MAX_NAMED]


_MISSING = object()

