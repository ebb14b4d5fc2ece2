"""The adapter contract: what the suite needs from an implementation, and the adapter for namespaces."""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager as ContextManager
from pathlib import Path
from types import ModuleType
from typing import Any, Protocol, runtime_checkable

from spec.model.functions import FORMS
from spec.model.scenario import Disable, Enable, EnableInside, PushInside, Scenario, SetRaw
from spec.texts import release_key

from ..base.safe import repr_of
from ..surface.listing import namer
from . import namespace as contract
from .namespace import Generation as Generation  # re-exported: diff and sandbox use it

#: Optional features an adapter may declare; rules that need an undeclared
#: feature are "not applicable". What each is, and how NamespaceAdapter detects it, is in
#: conformance.target.namespace.FEATURES.
FEATURES = tuple(feature.name for feature in contract.FEATURES)


def features_needed(scenario: Scenario) -> frozenset[str]:
    """The optional features a scenario uses: a function dispatched on the Python path
    (``split`` or one the scenario defines), a Tensor subclass enabled as the mode, the raw
    mode slot, ``DisableTorchFunctionSubclass``."""
    needed: set[str] = set()
    call = scenario.call
    if call is not None and (call.func == "split" or scenario.function_named(call.func)):
        needed.add("python-path")
    if call is not None and call.func in FORMS:
        needed.add(FORMS[call.func].feature)
    classes = {c.name for c in scenario.classes}
    for step in scenario.setup:
        if isinstance(step, Enable) and step.target in classes:
            needed.add("subclass-as-mode")
        elif isinstance(step, SetRaw):
            needed.add("raw-slot")
        elif isinstance(step, Disable) and step.subclass_only:
            needed.add("disable-subclass")
    behaviours = [m.behaviour for m in scenario.modes]
    behaviours += [c.behaviour for c in scenario.classes if c.behaviour is not None]
    for behaviour in behaviours:
        for action in (behaviour.default, *(a for _, a in behaviour.on)):
            while isinstance(action, (PushInside, EnableInside)):
                if isinstance(action, EnableInside) and action.mode in classes:
                    needed.add("subclass-as-mode")
                action = action.then
    return frozenset(needed)


class AdapterError(Exception):
    """The implementation cannot be driven; the message is one line."""


def put_impl_path(given: str | None, base: Path) -> list[str]:
    """Put the folders of ``--impl-path`` (or TFMODE_IMPL_PATH), separated by the platform's
    path separator and read relative to ``base``, first on ``sys.path``, which a sandbox
    process inherits: an implementation that is not installed. Returns them, absolute; a
    folder that does not exist raises AdapterError before any is put there."""
    given = given or os.environ.get("TFMODE_IMPL_PATH")
    folders = [(part, (base / part).resolve()) for part in str(given or "").split(os.pathsep) if part]
    for part, path in folders:
        if not path.is_dir():
            raise AdapterError(f"--impl-path: {part!r} is not a directory")
    for _, path in reversed(folders):
        if str(path) not in sys.path:
            sys.path.insert(0, str(path))
    return [str(path) for _, path in folders]


@runtime_checkable
class Adapter(Protocol):
    """What the conformance suite needs from an implementation under test.

    An adapter for an implementation that is not shaped like a torch
    namespace implements this protocol in one short file (see the docs page
    "Writing an adapter"); :class:`NamespaceAdapter` covers every namespace
    that has the names of ``conformance.target.namespace.NAMES`` that one generation requires
    (the docs page "The namespace contract" shows them).
    """

    #: The implementation's name and version, for the report and certificate.
    name: str
    version: str
    #: ``"2022"`` (push/enable, ``inner``) or ``"stack"`` (``with mode:``).
    generation: Generation
    #: The optional features this implementation has (a subset of FEATURES).
    features: frozenset[str]
    # Optional, so not a protocol member: ``release``, the release whose texts it shows
    # (spec/texts.toml), a torch version such as "2.0.1" or "pr75154"; without it, the texts
    # of stack_version's default release (read with release_of()).
    #: For the stack generation, whose behaviour it follows where torch versions differ:
    #: ``"1.13"`` or ``"2.x"``; ``None`` for the 2022 generation.
    stack_version: str | None
    #: ``Tensor``, ``TorchFunctionMode`` and ``BaseTorchFunctionMode``.
    Tensor: type
    TorchFunctionMode: type
    BaseTorchFunctionMode: type
    disabled_impl: object

    def tensor(self, data: Sequence[float]) -> Any: ...
    def data(self, t: Any) -> list[float]: ...
    def func(self, name: str) -> Callable[..., Any]: ...
    def error_name(self, name: str) -> str: ...
    def current_mode(self) -> object: ...
    def mode_stack(self) -> list[object]: ...
    def make_mode(self, cls: type) -> Any: ...
    def push(self, ctor: Callable[..., Any]) -> ContextManager[Any]: ...
    def enable(self, mode: object, replace: object = None,
               ignore_preexisting: bool = False) -> ContextManager[Any]: ...
    def enter(self, mode: object) -> ContextManager[Any]: ...
    def reenter(self, mode: Any) -> ContextManager[Any]: ...
    def disable(self, subclass_only: bool = False) -> ContextManager[Any]: ...
    def set_raw(self, obj: object) -> ContextManager[Any]: ...
    def has_torch_function(self, kind: str, args: Sequence[object]) -> bool: ...
    def reset(self) -> list[str]: ...


#: The names every namespace has, and those of each generation (conformance.target.namespace.NAMES).
REQUIRED_EVERYWHERE = contract.required()
REQUIRED_2022 = contract.required("2022")
REQUIRED_STACK = contract.required("stack")


def _flatten(values: Any) -> list[Any]:
    if not isinstance(values, list):
        return [values]
    return [x for v in values for x in _flatten(v)]


def _lookup(ns: object, dotted: str) -> Any:
    obj = ns
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def _has(ns: object, dotted: str) -> bool:
    try:
        _lookup(ns, dotted)
    except AttributeError:
        return False
    return True


class NamespaceAdapter:
    """Drives any module shaped like a torch namespace, by its import name alone."""

    def __init__(self, module: ModuleType) -> None:
        verdict = contract.check(lambda name: _has(module, name))
        problem = contract.problem(module.__name__, verdict)
        if problem is not None:
            raise AdapterError(problem)
        assert verdict.generation is not None  # problem() names a module of no generation
        self.generation: Generation = verdict.generation
        self.ns = module
        self.name = module.__name__
        self.version = str(getattr(module, "__version__", "unknown"))
        #: The release: ``__tfmode_release__`` if the namespace declares one, else its version
        #: without a local part ("2.0.1+cpu" is release 2.0.1).
        self.release = str(getattr(module, "__tfmode_release__", self.version.split("+")[0]))
        self.Tensor: type = module.Tensor
        self.TorchFunctionMode: type = module.overrides.TorchFunctionMode
        self.BaseTorchFunctionMode: type = module.overrides.BaseTorchFunctionMode
        self.disabled_impl: object = module._C._disabled_torch_function_impl
        _import_submodules(module)
        self.features = contract.features(self.generation, lambda name: _has(module, name))
        self.stack_version: str | None = None
        if self.generation == "stack":
            self.stack_version = "1.13" if self.version.startswith("1.") else "2.x"

    # -- tensors and functions ----------------------------------------------

    def tensor(self, data: Sequence[float]) -> Any:
        return self.ns.tensor(list(data))

    def data(self, t: Any) -> list[float]:
        """The tensor's values, flattened, read with every handler off."""
        with self.disable():
            values = t.tolist()
        return [float(x) for x in _flatten(values)]

    def func(self, name: str) -> Callable[..., Any]:
        if name.startswith("Tensor."):
            return getattr(self.Tensor, name.removeprefix("Tensor."))  # type: ignore[no-any-return]
        if name.startswith("has_torch_function") or name == "handle_torch_function":
            return _lookup(self.ns, f"overrides.{name}")  # type: ignore[no-any-return]
        return getattr(self.ns, name)  # type: ignore[no-any-return]

    def error_name(self, name: str) -> str:
        if name == "split":
            f = self.func(name)
            return f"{f.__module__}.{f.__name__}"
        return f"{self.name}.{name}"

    # -- modes ------------------------------------------------------------------

    def current_mode(self) -> object:
        if self.generation == "2022":
            return self.ns._C._get_torch_function_mode()
        stack = self.ns.overrides._get_current_function_mode_stack()
        return stack[-1] if stack else None

    def mode_stack(self) -> list[object]:
        """The whole mode stack, bottom first (stack generation); the current mode in 2022."""
        if self.generation == "stack":
            return list(self.ns.overrides._get_current_function_mode_stack())
        current = self.current_mode()
        return [] if current is None else [current]

    def make_mode(self, cls: type) -> Any:
        return cls(inner=None) if self.generation == "2022" else cls()

    def push(self, ctor: Callable[..., Any]) -> ContextManager[Any]:
        """2022: ``push_torch_function_mode(ctor)``; stack: ``with ctor():``."""
        if self.generation == "2022":
            return self.ns.overrides.push_torch_function_mode(ctor)  # type: ignore[no-any-return]
        return _entered(ctor())

    def enable(self, mode: object, replace: object = None,
               ignore_preexisting: bool = False) -> ContextManager[Any]:
        return self.ns.overrides.enable_torch_function_mode(  # type: ignore[no-any-return]
            mode, replace=replace, ignore_preexisting=ignore_preexisting)

    def enter(self, mode: object) -> ContextManager[Any]:
        return mode  # type: ignore[return-value]

    def reenter(self, mode: Any) -> ContextManager[Any]:
        if self.generation == "2022":
            return self.enable(mode, replace=mode.inner)
        return mode  # type: ignore[no-any-return]

    def disable(self, subclass_only: bool = False) -> ContextManager[Any]:
        if subclass_only:
            return self.ns._C.DisableTorchFunctionSubclass()  # type: ignore[no-any-return]
        return self.ns._C.DisableTorchFunction()  # type: ignore[no-any-return]

    @contextlib.contextmanager
    def set_raw(self, obj: object) -> Iterator[None]:
        """2022: ``_set_torch_function_mode(obj)``, setting the old object back on exit."""
        old = self.ns._C._get_torch_function_mode()
        self.ns._C._set_torch_function_mode(obj)
        try:
            yield
        finally:
            self.ns._C._set_torch_function_mode(old)

    def has_torch_function(self, kind: str, args: Sequence[object]) -> bool:
        return bool(self.func(kind)(*args))

    def overridable(self) -> list[tuple[str, Callable[..., Any], Any]] | None:
        """The callables the namespace lists as overridable (``overrides.get_testing_overrides()``,
        each with a dummy of its signature), named as a user writes them; ``None`` without it."""
        table = getattr(getattr(self.ns, "overrides", None), "get_testing_overrides", None)
        if not callable(table):
            return None
        name_of = namer(self.ns)
        return [(name_of(func), func, template) for func, template in dict(table()).items()]

    # -- the device-context mode (feature device-context; not protocol members) -------------

    def device_context(self, device: str) -> ContextManager[Any]:
        """``with device(name):``, the implementation's own mode for the block."""
        return self.ns.device(device)  # type: ignore[no-any-return]

    def set_default_device(self, device: str | None) -> None:
        self.ns.set_default_device(device)

    def default_device(self) -> str | None:
        """``str(get_default_device())``; None where the namespace has no get_default_device.
        Not under ``disable()``: torch's answer may come from a factory call, which the modes
        on the stack see."""
        if not _has(self.ns, "get_default_device"):
            return None
        return str(self.ns.get_default_device())

    def device_of(self, t: Any) -> str:
        """The device a tensor is on, read with every handler off."""
        with self.disable():
            return str(t.device)

    def device_mode_device(self, mode: object) -> str | None:
        """The device of a device-context mode on the stack; None for any other mode."""
        if not isinstance(mode, self.ns.utils._device.DeviceContext):
            return None
        return str(mode.device)

    def reset(self) -> list[str]:
        """Clear any mode left behind; return what was found (for the verdicts)."""
        leaked: list[str] = []
        if self.generation == "2022":
            left = self.ns._C._get_torch_function_mode()
            if left is not None:
                leaked.append(f"mode {repr_of(left)} left current")
                self.ns._C._set_torch_function_mode(None)
        else:
            with contextlib.suppress(Exception):
                while self.ns._C._len_torch_function_stack() > 0:
                    leaked.append(f"mode {repr_of(self.ns.overrides._pop_mode())} left on the stack")
        return leaked


def release_of(adapter: object) -> str | None:
    """The key of the adapter's release in the texts table (``None``: it reports none)."""
    return release_key(getattr(adapter, "release", None))


def load_adapter(spec: str, origin: str | None = None) -> Adapter:
    """``MODULE`` (a namespace) or ``pkg.mod:ATTR`` (an adapter object or factory).

    ``origin`` names where ``spec`` came from in error messages (default ``--impl 'SPEC'``).
    An implementation that calls ``sys.exit`` while loading is an error like any other.
    """
    given = origin or f"--impl {spec!r}"
    module_name, colon, attr = spec.partition(":")
    if not module_name:
        raise AdapterError(f"{given}: no module named")
    if colon and not attr:
        raise AdapterError(f"{given}: nothing after ':' (give MODULE, or pkg.mod:ATTR naming "
                           "the adapter)")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise AdapterError(f"{given}: no module named {exc.name!r}") from None
    except (Exception, SystemExit) as exc:  # an import that raises: report it on one line
        raise AdapterError(f"{given}: importing {module_name} raised "
                           f"{type(exc).__name__}: {exc}") from None
    if not attr:
        return NamespaceAdapter(module)
    try:
        obj = _lookup(module, attr)
    except AttributeError:
        raise AdapterError(f"{given}: {module_name} has no attribute {attr!r}") from None
    if isinstance(obj, type) or (callable(obj) and not isinstance(obj, Adapter)):
        try:
            obj = obj()
        except (Exception, SystemExit) as exc:
            raise AdapterError(f"{given}: constructing the adapter raised "
                               f"{type(exc).__name__}: {exc}") from None
    members = [m for m in _protocol_members() if not hasattr(obj, m)]
    if members:
        raise AdapterError(f"{given}: the adapter lacks {', '.join(members)}")
    return obj  # type: ignore[no-any-return]


#: Members an adapter may lack (older adapters predate them).
OPTIONAL_MEMBERS = frozenset({"release"})


def _protocol_members() -> list[str]:
    names = set(Adapter.__annotations__) - OPTIONAL_MEMBERS
    names |= {n for n in vars(Adapter) if not n.startswith("_")}
    return sorted(names)


def _import_submodules(module: ModuleType) -> None:
    """Import the namespace's submodules that hold optional names (contract.SUBMODULES); one
    that is missing or raises while importing leaves its names missing."""
    if not hasattr(module, "__path__"):  # a plain module has no submodules to import
        return
    for sub in contract.SUBMODULES:
        with contextlib.suppress(Exception):
            importlib.import_module(f"{module.__name__}.{sub}")


@contextlib.contextmanager
def _entered(mode: Any) -> Iterator[Any]:
    with mode:
        yield mode
