"""The namespace contract, as data: every name a torch-like namespace exposes to the suite.

``--impl MODULE`` wraps a module in :class:`~conformance.adapter.NamespaceAdapter`, which looks
up each name below from the module (``overrides.TorchFunctionMode`` is
``MODULE.overrides.TorchFunctionMode``; ``Tensor.tolist`` is the method of ``MODULE.Tensor``),
tells the generation by which generation's names the module has, reports every missing name at
once, and declares the optional features of :data:`FEATURES` by the rules written next to them.
The documentation's contract page is rendered from these tables, so the page and the check
cannot say different things.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

Generation = Literal["2022", "stack"]
GENERATIONS: tuple[Generation, ...] = ("2022", "stack")
BOTH: tuple[Generation, ...] = GENERATIONS


@dataclass(frozen=True)
class Name:
    """One name of the namespace, relative to the module.

    ``required``: the generations whose namespaces must have it. ``optional``: the generations
    in which the adapter uses it when it is there (a feature, or a piece of the report).
    ``meaning``: what the suite calls it for, with its signature, in one sentence (code in
    Markdown-style backticks, as in the rule catalogue).
    """

    path: str
    meaning: str
    required: tuple[Generation, ...] = ()
    optional: tuple[Generation, ...] = ()

    @property
    def is_method(self) -> bool:
        """A method (or attribute) of ``Tensor``, rather than a name of the module."""
        return self.path.startswith("Tensor.")

    def status(self, generation: Generation) -> Literal["required", "optional"] | None:
        if generation in self.required:
            return "required"
        return "optional" if generation in self.optional else None


@dataclass(frozen=True)
class Feature:
    """An optional feature and how :class:`~conformance.adapter.NamespaceAdapter` detects it:
    declared for a namespace of one of ``generations`` that has every name of ``names``."""

    name: str
    meaning: str
    generations: tuple[Generation, ...]
    names: tuple[str, ...]


NAMES: tuple[Name, ...] = (
    # -- the tensor class and the methods the suite calls on tensors ---------------------------
    Name("Tensor", "The tensor class: scenarios subclass it, and every tensor the suite makes "
         "is an instance of it.", required=BOTH),
    Name("Tensor.add", "`x.add(other, alpha=1)`: the method form of `add`, dispatched like "
         "`add` with `x` as the first argument.", required=BOTH),
    Name("Tensor.neg", "`x.neg()`: the method form of `neg`.", required=BOTH),
    Name("Tensor.tolist", "`x.tolist()`: the values as a (possibly nested) list of numbers; the "
         "suite reads every result with it, inside `_C.DisableTorchFunction()`.",
         required=BOTH),
    Name("Tensor.as_subclass", "`x.as_subclass(cls)`: the same values as an instance of the "
         "Tensor subclass `cls`, without dispatching; how the suite makes subclass arguments.",
         required=BOTH),
    Name("Tensor.__torch_function__", "The default handler, a classmethod `(func, types, "
         "args=(), kwargs=None)`: it returns `NotImplemented` unless `cls` is a subclass of "
         "every type in `types`; otherwise it computes `func` with the subclasses' handlers "
         "disabled and a current mode still called (TFM_DISABLE_004): under "
         "`DisableTorchFunctionSubclass` in the stack generation, under `DisableTorchFunction` "
         "in the 2022 generation, where that disables subclass handlers only; and it converts "
         "the result to `cls`: a Tensor itself, a "
         "tuple or list element by element. Scenarios call it as `super().__torch_function__`.",
         required=BOTH),
    # -- factories and the overridable functions of the model ---------------------------------
    Name("tensor", "`tensor(data)`: a plain Tensor holding `data`, a list of floats.",
         required=BOTH),
    Name("add", "`add(input, other, alpha=1)`: `input + alpha * other`, elementwise; "
         "dispatched natively.", required=BOTH),
    Name("sub", "`sub(input, other, alpha=1)`: `input - alpha * other`, elementwise; "
         "dispatched natively.", required=BOTH),
    Name("mul", "`mul(input, other)`: the elementwise product; dispatched natively.",
         required=BOTH),
    Name("div", "`div(input, other)`: the elementwise quotient; dispatched natively.",
         required=BOTH),
    Name("max", "`max(input, other)`: the elementwise maximum; dispatched natively.",
         required=BOTH),
    Name("neg", "`neg(input)`: the elementwise negation; dispatched natively.", required=BOTH),
    Name("mean", "`mean(input)`: a one-element tensor holding the mean; dispatched natively.",
         required=BOTH),
    Name("cat", "`cat(tensors)`: the tensors of a list or tuple joined end to end; dispatched "
         "natively, the list's tensors being the overloaded arguments.", required=BOTH),
    Name("ones", "`ones(*sizes)`: ones, as many as the product of `sizes`; dispatched "
         "natively with no tensor argument (a mode still sees the call).", required=BOTH),
    Name("split", "`split(tensor, split_size)`: a tuple of consecutive pieces of `split_size` "
         "elements; written in Python, it dispatches through `handle_torch_function`.",
         required=BOTH),
    # -- overrides: modes and the Python path -----------------------------------------------
    Name("overrides.TorchFunctionMode", "The mode base class that scenarios' modes subclass; "
         "the suite builds a mode up front as `cls(inner=None)` (2022) or `cls()` (stack).",
         required=BOTH),
    Name("overrides.BaseTorchFunctionMode", "The mode whose `__torch_function__` returns "
         "`func(*args, **(kwargs or {}))`: the bottom of a 2022 push chain, a pass-through "
         "mode on the stack.", required=BOTH),
    Name("overrides.handle_torch_function", "`handle_torch_function(public_api, "
         "relevant_args, *args, **kwargs)`: the Python path's dispatcher, which `split` and "
         "the functions a scenario defines call.", required=BOTH),
    Name("overrides.has_torch_function", "`has_torch_function(relevant_args)`: whether a "
         "sequence holds an object to dispatch on, or a mode is current.", required=BOTH),
    Name("overrides.has_torch_function_unary", "`has_torch_function_unary(obj)`: the same "
         "question for one object.", required=BOTH),
    Name("overrides.has_torch_function_variadic", "`has_torch_function_variadic(*args)`: the "
         "same question for its positional arguments.", required=BOTH),
    # -- _C: opting out and disabling --------------------------------------------------------
    Name("_C._disabled_torch_function_impl", "What a subclass assigns to `__torch_function__` "
         "to opt out of dispatch.", required=BOTH),
    Name("_C.DisableTorchFunction", "`DisableTorchFunction()`: a context manager inside "
         "which no overloaded argument's handler runs; a current mode is still called in the "
         "2022 generation and on 1.13, and stops too on 2.x (TFM_STACK_010).", required=BOTH),
    Name("_C.DisableTorchFunctionSubclass", "`DisableTorchFunctionSubclass()`: a context "
         "manager that disables the subclasses' handlers but not the modes.", optional=BOTH),
    Name("overrides.get_testing_overrides", "`get_testing_overrides()`: a dict from every "
         "overridable callable to a function with the same parameters (the surface sweep "
         "calls each).", optional=BOTH),
    Name("overrides.wrap_torch_function", "`wrap_torch_function(dispatcher)`: a decorator; "
         "`wrap_torch_function(dispatcher)(f)` is `f` made to dispatch on the Python path, on "
         "the objects `dispatcher` (of `f`'s parameters) returns, itself the handlers' func.",
         optional=BOTH),
    # -- the 2022 generation -------------------------------------------------------------------
    Name("overrides.push_torch_function_mode", "`push_torch_function_mode(ctor)`: a context "
         "manager that calls `ctor(inner=<the current mode>)`, makes the result current and "
         "yields it.", required=("2022",)),
    Name("overrides.enable_torch_function_mode", "`enable_torch_function_mode(mode, "
         "replace=None, ignore_preexisting=False)`: a context manager that makes `mode` (a "
         "mode object or a Tensor subclass) current.", required=("2022",)),
    Name("overrides.TorchFunctionModeMeta", "The metaclass of `TorchFunctionMode`, which "
         "stores the `inner` keyword before `__init__` runs; the suite checks only that it "
         "exists.", required=("2022",)),
    Name("_C._get_torch_function_mode", "`_get_torch_function_mode()`: the current mode "
         "object, or None.", required=("2022",)),
    Name("_C._set_torch_function_mode", "`_set_torch_function_mode(obj)`: puts any object in "
         "the mode slot (None clears it); the suite also clears leftovers with it.",
         required=("2022",)),
    # -- the stack generation ------------------------------------------------------------------
    Name("overrides.TorchFunctionMode.__enter__", "`with mode:` pushes `mode` on the current "
         "thread's mode stack and returns it.", required=("stack",)),
    Name("overrides.TorchFunctionMode.__exit__", "Leaving the block pops the top of the "
         "mode stack.", required=("stack",)),
    Name("_C._len_torch_function_stack", "`_len_torch_function_stack()`: the number of modes "
         "on the current thread's stack.", required=("stack",)),
    Name("overrides._get_current_function_mode_stack", "`_get_current_function_mode_stack()`:"
         " the modes on the stack as a list, bottom first.", required=("stack",)),
    Name("overrides._pop_mode", "`_pop_mode()`: pops and returns the top mode; the suite "
         "clears modes a failed test left on the stack with it.", required=("stack",)),
    # -- torch's own mode: the device context (feature device-context) ------------------------
    Name("device", "`device(name)`: a device object (`cpu`, `meta`); `with device(name):` "
         "makes the factories without `device=` create on it for the block.", optional=("stack",)),
    Name("set_default_device", "`set_default_device(name)`: makes the factories without "
         "`device=` create on `name` from now on, in the calling thread; `None` undoes it.",
         optional=("stack",)),
    Name("get_default_device", "`get_default_device()`: the device the factories without "
         "`device=` create on, compared with where they create.",
         optional=("stack",)),
    Name("utils._device.DeviceContext", "The mode class behind `with device(...)` and "
         "`set_default_device`; the suite recognises it on the mode stack by it (the adapter "
         "imports `utils._device` first).", optional=("stack",)),
    # -- the syntactic forms a generated call may be written as (feature syntax) -------------------
    Name("Tensor.__add__", "`x + y`: the infix operator; with a mode current it reaches the "
         "mode's handler (TFM_SYNTAX_001).", optional=BOTH),
    Name("Tensor.__radd__", "`k + x` with an int `k`: the reflected operator.", optional=BOTH),
    Name("Tensor.__neg__", "`-x`: the unary operator.", optional=BOTH),
    Name("Tensor.__getitem__", "`x[k]`, `x[(k,)]`, `x[[k]]` with an int `k`, `x[None]`, `x[k:]` "
         "and `x[...]`: indexing, its handlers handed the index as written.", optional=BOTH),
    Name("Tensor.real", "`x.real`: a property that dispatches, its getter `Tensor.real.__get__` "
         "handed to the handlers (TFM_SYNTAX_004).", optional=BOTH),
    Name("Tensor.grad", "`x.grad`: a dispatched property (TFM_SYNTAX_004), its getter "
         "`Tensor.grad.__get__` handed to the handlers; `None` for a tensor without a gradient.",
         optional=BOTH),
    Name("Tensor.data", "`x.data`: a dispatched property, its getter `Tensor.data.__get__` "
         "handed to the handlers; the same values in a new tensor.", optional=BOTH),
    Name("Tensor.__sub__", "`x - y`: its handlers are handed `Tensor.sub` (or `Tensor.__sub__`).",
         optional=BOTH),
    Name("Tensor.__mul__", "`x * y`: its handlers are handed `Tensor.mul` (or `Tensor.__mul__`).",
         optional=BOTH),
    Name("Tensor.__rmul__", "`k * x` with an int `k`: the reflected `*`.", optional=BOTH),
    Name("Tensor.__iadd__", "`x += y`: in place, its handlers handed `Tensor.add_` (or "
         "`Tensor.__iadd__`); the value is `x` itself.", optional=BOTH),
    Name("Tensor.__len__", "`len(x)`: on the Python path (`handle_torch_function`), its "
         "handlers handed `Tensor.__len__`; what they answer is what `len` checks.",
         optional=BOTH),
    Name("Tensor.sub", "`x.sub(other, alpha=1)`: what `x - y` hands its handlers.",
         optional=BOTH),
    Name("Tensor.mul", "`x.mul(other)`: what `x * y` and `k * x` hand their handlers.",
         optional=BOTH),
    Name("Tensor.add_", "`x.add_(other, alpha=1)`: what `x += y` hands its handlers.",
         optional=BOTH),
    Name("Tensor.__setitem__", "`x[k] = c`: index assignment, its handlers handed "
         "`Tensor.__setitem__` with `(x, k, c)`; the statement's value is `None`.", optional=BOTH),
    Name("Tensor.lt", "`x.lt(other)`: what `x < y` hands its handlers (or `Tensor.__lt__`). "
         "With `Tensor.gt`, `Tensor.ne`, `Tensor.ge` and `Tensor.le` it gives the comparisons "
         "feature; the Tensor's `__lt__`, `__gt__`, `__eq__`, `__ne__`, `__ge__` and `__le__` "
         "are then taken to be its own (every class has them, from `object`), and `x == y` "
         "hands `Tensor.__eq__` (or `Tensor.eq`).", optional=BOTH),
    Name("Tensor.gt", "`x.gt(other)`: what `k < x` (Python calls `x.__gt__(k)`) hands its "
         "handlers (or `Tensor.__gt__`).", optional=BOTH),
    Name("Tensor.ne", "`x.ne(other)`: what `x != y` hands its handlers (or `Tensor.__ne__`); "
         "with `Tensor.ge` and `Tensor.le` it is part of the comparisons feature.", optional=BOTH),
    Name("Tensor.ge", "`x.ge(other)`: what `x >= y` hands its handlers (or `Tensor.__ge__`).",
         optional=BOTH),
    Name("Tensor.le", "`x.le(other)`: what `x >= y` hands its handlers when `y`'s class is a "
         "proper subclass of `x`'s (Python calls `y.__le__(x)` first; or `Tensor.__le__`).",
         optional=BOTH),
    Name("Tensor.__truediv__", "`x / y`: its handlers are handed `Tensor.div` (or "
         "`Tensor.__truediv__`).", optional=BOTH),
    Name("Tensor.div", "`x.div(other)`: what `x / y` hands its handlers.", optional=BOTH),
    Name("Tensor.__abs__", "`abs(x)`: its handlers are handed `Tensor.abs` (or `Tensor.__abs__`).",
         optional=BOTH),
    Name("Tensor.abs", "`x.abs()`: what `abs(x)` hands its handlers.", optional=BOTH),
    Name("Tensor.__pow__", "`x ** y`: an operator written in Python, its handlers handed "
         "`Tensor.__pow__` itself on the Python path, both operands relevant.", optional=BOTH),
    Name("Tensor.__floordiv__", "`x // y`: as `x ** y`, its handlers handed "
         "`Tensor.__floordiv__`.", optional=BOTH),
    Name("Tensor.__rsub__", "`k - x` with an int `k` (Python calls `x.__rsub__(k)`): as "
         "`x ** y`, its handlers handed `Tensor.__rsub__` with `(x, k)`.", optional=BOTH),
    Name("Tensor.__int__", "`int(x)`: its handlers are handed `Tensor.__int__`; `int` checks "
         "that they answer an int.", optional=BOTH),
    Name("Tensor.__reversed__", "`reversed(x)`: on the Python path, its handlers handed "
         "`Tensor.__reversed__`; what they answer is the value.", optional=BOTH),
    # -- what the report shows -----------------------------------------------------------------
    Name("__version__", "The version shown in the report (else `unknown`); in the stack "
         "generation, a version starting with `1.` follows torch 1.13 where 1.13 and 2.x "
         "differ, any other follows 2.x.", optional=BOTH),
    Name("__tfmode_release__", "The release whose error and warning texts the namespace "
         "shows (`pr75154`, or a torch version such as `2.0.1`); without it, `__version__` "
         "without its local part. The TEXT rules compare the texts of this release: for a "
         "release the text table does not know (such as a namespace's own `0.1.0`) they stay "
         "untested, so a namespace of the 2022 design declares `pr75154`.", optional=BOTH),
)

FEATURES: tuple[Feature, ...] = (
    Feature("python-path", "Functions written in Python that dispatch through "
            "`handle_torch_function`: `split`, and the functions a generated scenario defines.",
            BOTH, ("overrides.handle_torch_function", "split")),
    Feature("subclass-as-mode", "A Tensor subclass given to `enable_torch_function_mode` as "
            "the mode.", ("2022",), ("overrides.enable_torch_function_mode",)),
    Feature("raw-slot", "Any object put in the mode slot with `_C._set_torch_function_mode`.",
            ("2022",), ("_C._get_torch_function_mode", "_C._set_torch_function_mode")),
    Feature("disable-subclass", "`DisableTorchFunctionSubclass`, which turns the subclasses' "
            "handlers off and leaves the modes on.", BOTH, ("_C.DisableTorchFunctionSubclass",)),
    Feature("surface", "A list of every overridable callable with a dummy of its signature, "
            "`overrides.get_testing_overrides()` (a dict from each callable to a function of "
            "the same parameters): the surface sweep calls each of them (an adapter declares "
            "it with an `overridable()` method).", BOTH, ("overrides.get_testing_overrides",)),
    Feature("wrap-torch-function", "The namespace's decorator for functions written in "
            "Python, `overrides.wrap_torch_function`: the surface sweep checks a function it "
            "decorates with it as it checks a listed callable.", BOTH,
            ("overrides.wrap_torch_function",)),

    Feature("syntax", "Calls written as syntax: generated scenarios evaluate `x + y`, `k + x`, "
            "`-x`, `x[k]` (also `x[(k,)]`, `x[[k]]`, `x[None]`) and `x.real` where they would "
            "call a function (the SYNTAX rules).",
            BOTH, ("Tensor.__add__", "Tensor.__radd__", "Tensor.__neg__", "Tensor.__getitem__",
                   "Tensor.real")),
    Feature("more-syntax", "More calls written as syntax: `x - y`, `x * y`, `k * x`, "
            "`x += y` and `len(x)` (the SYNTAX rules).", BOTH,
            ("Tensor.__sub__", "Tensor.__mul__", "Tensor.__rmul__", "Tensor.__iadd__",
             "Tensor.__len__", "Tensor.sub", "Tensor.mul", "Tensor.add_")),
    Feature("slicing", "Slices and `...` as indexes: generated scenarios evaluate `x[k:]` (the "
            "handlers are handed `Tensor.__getitem__` with `(x, slice(k, None, None))`) and "
            "`x[...]` (with `(x, ...)`).", BOTH, ("Tensor.__getitem__",)),
    Feature("setitem", "Index assignment as syntax: generated scenarios evaluate `x[k] = c` (the "
            "handlers are handed `Tensor.__setitem__` with `(x, k, c)`; the statement's value is "
            "`None`).", BOTH, ("Tensor.__setitem__",)),
    Feature("more-operators", "More operators as syntax: `x / y` (`Tensor.div`, an operator "
            "like `x - y`), `abs(x)` (`Tensor.abs`, or `Tensor.__abs__`), and `x ** y`, `x // y` "
            "and `k - x`, operators written in Python (`Tensor.__pow__`, `Tensor.__floordiv__`, "
            "`Tensor.__rsub__` on the Python path).", BOTH,
            ("Tensor.__truediv__", "Tensor.__abs__", "Tensor.div", "Tensor.abs", "Tensor.__pow__",
             "Tensor.__floordiv__", "Tensor.__rsub__")),
    Feature("conversions", "Builtins on a tensor: `int(x)` (`Tensor.__int__`, whose handlers "
            "must answer an int) and `reversed(x)` (`Tensor.__reversed__`, on the Python path: "
            "what the handlers answer is the value).", BOTH,
            ("Tensor.__int__", "Tensor.__reversed__")),
    Feature("properties", "More dispatched properties: generated scenarios evaluate `x.grad` "
            "(`Tensor.grad.__get__`) and `x.data` (`Tensor.data.__get__`) as `x.real` (the "
            "SYNTAX rules).", BOTH, ("Tensor.grad", "Tensor.data")),
    Feature("comparisons", "Comparisons as syntax: `x < y` (`Tensor.lt`), `k < x` (Python "
            "calls `x.__gt__(k)`: `Tensor.gt`), `x == y` (`Tensor.__eq__`), `x != y` "
            "(`Tensor.ne`) and `x >= y` (`Tensor.ge`); when `y`'s class is a proper subclass of "
            "`x`'s, Python calls `y`'s reflected comparison first (`Tensor.le` for `x >= y`).",
            BOTH, ("Tensor.lt", "Tensor.gt", "Tensor.ne", "Tensor.ge", "Tensor.le")),
    Feature("device-context", "A device-context mode of the implementation's own: `with "
            "device(...)` and `set_default_device` put a mode on the stack that fills in "
            "`device=` for the factories (the OWNMODE rules).", ("stack",),
            ("device", "set_default_device", "utils._device.DeviceContext")),
    Feature("default-device", "`get_default_device()`, which says where the factories without "
            "`device=` create (TFM_OWNMODE_005; torch from 2.3).", ("stack",),
            ("get_default_device",)),
)

#: Submodules of the namespace the adapter imports before it looks names up, so the names
#: under them can be found (torch does not import ``torch.utils._device`` itself); one that
#: cannot be imported leaves its names missing.
SUBMODULES: tuple[str, ...] = ("utils._device",)


def by_path() -> dict[str, Name]:
    return {name.path: name for name in NAMES}


def required(generation: Generation | None = None) -> tuple[str, ...]:
    """The names every namespace must have (``None``), or those only ``generation`` requires."""
    if generation is None:
        return tuple(n.path for n in NAMES if set(n.required) == set(GENERATIONS))
    return tuple(n.path for n in NAMES if n.required == (generation,))


def detection(feature: Feature) -> str:
    """How the adapter detects ``feature``, in one sentence written from the data (names in
    backticks)."""
    names = by_path()
    where = ("a namespace of either generation" if set(feature.generations) == set(GENERATIONS)
             else f"a {feature.generations[0]}-generation namespace")
    listed = " and ".join(f"`{n}`" for n in feature.names)
    if all(set(feature.generations) <= set(names[n].required) for n in feature.names):
        verb = "is" if len(feature.names) == 1 else "are"
        return f"Declared for every {where.removeprefix('a ')}: {listed} {verb} required there."
    return f"Declared for {where} that has {listed}."


@dataclass(frozen=True)
class Verdict:
    """What the check found: the generation, or the missing names and which generation the
    module was taken for (``None``: it has none of either generation's own names)."""

    generation: Generation | None
    missing: tuple[str, ...]


def check(has: Callable[[str], bool]) -> Verdict:
    """Look up every name of the contract with ``has`` and judge the module.

    A module with every name of a generation is of that generation (2022 first). Otherwise it
    is taken for the generation of which it has the larger share of names, and every required
    name it lacks, of every generation and of that one, is missing.
    """
    found = {name.path: has(name.path) for name in NAMES}
    everywhere = [p for p in required() if not found[p]]
    share: dict[Generation, float] = {}
    for generation in GENERATIONS:
        own = required(generation)
        share[generation] = sum(found[p] for p in own) / len(own)
    complete = [g for g in GENERATIONS if share[g] == 1.0]
    if complete:
        return Verdict(complete[0], tuple(everywhere))
    best = max(GENERATIONS, key=lambda g: share[g])
    if share[best] == 0.0:
        return Verdict(None, tuple(everywhere))
    return Verdict(best, tuple(everywhere + [p for p in required(best) if not found[p]]))


def features(generation: Generation, has: Callable[[str], bool]) -> frozenset[str]:
    """The features a namespace of ``generation`` has, by the rules of :data:`FEATURES`."""
    return frozenset(f.name for f in FEATURES
                     if generation in f.generations and all(has(n) for n in f.names))


def problem(module_name: str, verdict: Verdict) -> str | None:
    """The one-line error for a module the check found wanting, or ``None``."""
    if verdict.generation is None:
        own = "; ".join(f"the {g} generation's: {', '.join(required(g))}" for g in GENERATIONS)
        lacks = f"it has no {', '.join(verdict.missing)}, and " if verdict.missing else "it has "
        return (f"{module_name} is not a torch-like namespace: {lacks}none of the names of "
                f"either generation ({own})")
    if not verdict.missing:
        return None
    complete = set(required(verdict.generation)).isdisjoint(verdict.missing)
    kind = "" if complete else f" of the {verdict.generation} generation"
    return f"{module_name} is not a torch-like namespace{kind}: it has no {', '.join(verdict.missing)}"


def names_for(generation: Generation, *, methods: bool) -> Sequence[Name]:
    """The names a namespace of ``generation`` may have, methods of Tensor or the others."""
    return [n for n in NAMES if n.status(generation) is not None and n.is_method == methods]
