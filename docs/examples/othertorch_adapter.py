"""The conformance adapter for othertorch: run the suite with
``--impl othertorch_adapter:OtherTorchAdapter``."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import othertorch as ot

from conformance.adapter import AdapterError

#: The names the suite uses that othertorch spells differently.
RENAMED = {"max": "maximum", "cat": "concat",
           "has_torch_function": "has_override",
           "has_torch_function_unary": "has_override_unary",
           "has_torch_function_variadic": "has_override_variadic",
           "handle_torch_function": "dispatch"}


class OtherTorchAdapter:
    name = "othertorch"
    version = ot.__version__
    generation = "2022"
    stack_version = None
    features = frozenset({"python-path", "subclass-as-mode", "raw-slot"})
    Tensor = ot.Array
    TorchFunctionMode = ot.Mode
    BaseTorchFunctionMode = ot.Passthrough
    disabled_impl = ot.opted_out

    # -- arrays and functions -------------------------------------------------------------

    def tensor(self, data: Sequence[float]) -> Any:
        return ot.array(list(data))

    def data(self, t: Any) -> list[float]:
        with ot.no_overrides():  # reading the data must not dispatch to a subclass
            return ot.to_list(t)

    def func(self, name: str) -> Callable[..., Any]:
        if name.startswith("Tensor."):
            return getattr(ot.Array, name.removeprefix("Tensor."))  # type: ignore[no-any-return]
        return getattr(ot, RENAMED.get(name, name))  # type: ignore[no-any-return]

    def error_name(self, name: str) -> str:
        # How othertorch's TypeError names a function: its functions come from its core,
        # reference_impl, and keep the core's names.
        if name == "split":
            return f"{ot.split.__module__}.{ot.split.__name__}"
        return f"reference_impl.{name}"

    def has_torch_function(self, kind: str, args: Sequence[object]) -> bool:
        return bool(self.func(kind)(*args))

    # -- modes ------------------------------------------------------------------------------

    def current_mode(self) -> object:
        return ot.get_mode()

    def mode_stack(self) -> list[object]:
        current = ot.get_mode()
        return [] if current is None else [current]

    def make_mode(self, cls: type) -> Any:
        return cls(inner=None)

    def push(self, ctor: Callable[..., Any]) -> contextlib.AbstractContextManager[Any]:
        return ot.stacked(ctor)  # type: ignore[no-any-return]

    def enable(self, mode: object, replace: object = None,
               ignore_preexisting: bool = False) -> contextlib.AbstractContextManager[Any]:
        return ot.installed(mode, over=replace, force=ignore_preexisting)  # type: ignore[no-any-return]

    def reenter(self, mode: Any) -> contextlib.AbstractContextManager[Any]:
        return ot.installed(mode, over=mode.inner)  # type: ignore[no-any-return]

    def enter(self, mode: object) -> contextlib.AbstractContextManager[Any]:
        raise AdapterError("othertorch is of the 2022 generation: it has no `with mode:`")

    def disable(self, subclass_only: bool = False) -> contextlib.AbstractContextManager[Any]:
        if subclass_only:
            raise AdapterError("othertorch has no DisableTorchFunctionSubclass")
        return ot.no_overrides()  # type: ignore[no-any-return]

    @contextlib.contextmanager
    def set_raw(self, obj: object) -> Iterator[None]:
        old = ot.set_mode(obj)
        try:
            yield
        finally:
            ot.set_mode(old)

    def reset(self) -> list[str]:
        left = ot.set_mode(None)
        return [] if left is None else [f"mode {left!r} left current"]
