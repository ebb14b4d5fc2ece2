"""What a bounded-exhaustive run enumerates: a :class:`Scope`, the named ones, and the text of
``--exhaustive`` that declares one."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

from spec.model.functions import FORMS, FUNCS

#: What a handler may do, by name (see :mod:`spec.model.scenario`'s actions): ``forward`` calls
#: the function again (a subclass inside DisableTorchFunction), ``notimpl`` declines, ``return``
#: answers an int, ``raise`` / ``typeerror`` raise, ``default`` calls Tensor's handler
#: (``super()``), ``defer`` declines when types is not empty (modes only), ``redispatch`` calls a
#: later function of the call's family with the same arguments, ``reenter`` does so with the
#: mode re-entered (modes only), ``push`` enters a mode inside the handler, then forwards.
BEHAVIOURS = ("forward", "notimpl", "return", "raise", "typeerror", "default", "defer",
              "redispatch", "reenter", "push")
#: The functions a scope may call: the namespace's functions and the syntactic forms.
CALLABLE = (*FUNCS, *FORMS)


class ScopeError(ValueError):
    """A declared scope that cannot be enumerated (its text names the problem)."""


@dataclass(frozen=True)
class Scope:
    """The bounds of an enumeration: at most ``modes`` modes, ``classes`` classes (Tensor
    subclasses or duck types with a handler), ``setup`` nested set-up steps and ``args``
    tensors in a list argument; handlers doing one of ``behaviours``; one call of one of
    ``functions``; with ``keywords``, tensors passed by keyword and ``alpha=`` too."""

    name: str = "custom"
    modes: int = 1
    classes: int = 1
    setup: int = 1
    args: int = 2
    behaviours: tuple[str, ...] = BEHAVIOURS
    functions: tuple[str, ...] = tuple(FUNCS)
    keywords: bool = True

    def to_json(self) -> dict[str, Any]:
        return {f.name: (list(v) if isinstance(v := getattr(self, f.name), tuple) else v)
                for f in fields(self)}

    def describe(self) -> str:
        """One line: the bounds, in the form ``--exhaustive`` reads."""
        parts = [f"modes={self.modes}", f"classes={self.classes}", f"setup={self.setup}",
                 f"args={self.args}", f"keywords={'yes' if self.keywords else 'no'}",
                 "behaviours=" + ("all" if self.behaviours == BEHAVIOURS else "|".join(self.behaviours)),
                 "functions=" + ("all" if self.functions == tuple(FUNCS) else "|".join(self.functions))]
        return ",".join(parts)


#: The scope every certification enumerates, by generation: one mode, one class, one set-up
#: step, every behaviour, and a function of each shape (the 2022 generation has five times as
#: many set-up steps to choose from, so its tensors go positional only and it calls fewer
#: functions). Each is at least 50,000 scenarios (tests/test_exhaustive.py).
DEFAULTS: dict[str, Scope] = {
    "stack": Scope("default", functions=("add", "max", "Tensor.add", "neg", "Tensor.neg", "cat",
                                         "ones", "split", "has_torch_function",
                                         "has_torch_function_unary",
                                         "has_torch_function_variadic")),
    "2022": Scope("default", keywords=False,
                  functions=("add", "Tensor.add", "neg", "cat", "split", "has_torch_function",
                             "has_torch_function_variadic")),
}
#: A larger documented scope, for a nightly run (.github/workflows/nightly.yml): the default
#: scope's functions with two modes and two nested set-up steps.
LARGES: dict[str, Scope] = {generation: Scope("large", modes=2, classes=1, setup=2,
                                              keywords=scope.keywords, functions=scope.functions)
                            for generation, scope in DEFAULTS.items()}
LIMITS = {"modes": 3, "classes": 4, "setup": 3, "args": 3}


def default_scope(generation: str) -> Scope:
    return DEFAULTS[generation]


def parse_scope(text: str, generation: str) -> Scope:
    """A scope from ``--exhaustive``'s text: ``default``, ``large``, or bounds such as
    ``modes=2,classes=1,setup=2,functions=add|neg,behaviours=forward|raise`` (each bound not
    given is the default scope's, for ``generation``). Raises :class:`ScopeError` with one line."""
    text = text.strip()
    if text == "default":
        return default_scope(generation)
    if text == "large":
        return LARGES[generation]
    if not text:
        raise ScopeError("an empty scope: give default, large, or bounds like modes=2,setup=1")
    scope = replace(default_scope(generation), name="custom")
    seen: set[str] = set()
    for part in text.split(","):
        key, eq, value = (s.strip() for s in part.partition("="))
        if not eq or not value:
            raise ScopeError(f"{part.strip()!r} is not KEY=VALUE (or a named scope: default, large)")
        if key in seen:
            raise ScopeError(f"{key} given twice")
        seen.add(key)
        scope = _with(scope, key, value)
    return scope


def _with(scope: Scope, key: str, value: str) -> Scope:
    if key in LIMITS:
        if not value.isdigit() or not 0 <= int(value) <= LIMITS[key]:
            raise ScopeError(f"{key} must be a whole number from 0 to {LIMITS[key]}, not {value!r}")
        bounds = {name: getattr(scope, name) for name in LIMITS}
        bounds[key] = int(value)
        return replace(scope, **bounds)
    if key == "keywords":
        if value not in ("yes", "no"):
            raise ScopeError(f"keywords is yes or no, not {value!r}")
        return replace(scope, keywords=value == "yes")
    if key in ("behaviours", "functions"):
        known = BEHAVIOURS if key == "behaviours" else CALLABLE
        names = tuple(n.strip() for n in value.split("|"))
        if value == "all":
            names = BEHAVIOURS if key == "behaviours" else tuple(FUNCS)
        unknown = [n for n in names if n not in known]
        if unknown:
            raise ScopeError(f"unknown {key[:-1]} {unknown[0]!r} (known: {', '.join(known)})")
        if len(set(names)) != len(names):
            raise ScopeError(f"a {key[:-1]} is named twice in {value!r}")
        return replace(scope, behaviours=names) if key == "behaviours" else replace(scope, functions=names)
    known_bounds = ", ".join([*LIMITS, "keywords", "behaviours", "functions"])
    raise ScopeError(f"unknown bound {key!r} (known: {known_bounds})")
