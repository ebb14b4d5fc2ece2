"""The model's state and the steps every part of it uses (the bottom layer of the engine).

:class:`EngineState` holds what a prediction knows: the scenario and its class world, the current
mode and each mode's ``inner``, whether subclass handling is disabled, and the trace being written
(events, notes, the rules that decide the value). Its helpers answer questions about that state
(``has_torch_function``, what the kernel computes) without dispatching. The layers above it:
:mod:`.steps` (set-up steps), :mod:`.handlers` (running a handler), :mod:`.dispatch` (one call) and
:mod:`.engine` (a whole scenario). It imports none of them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import TYPE_CHECKING

from spec.texts import default_release

from . import messages as msg
from .context import Origin
from .functions import FormInfo, info_of, kernel, pyfunc_kernel
from .limits import Unspecified
from .scenario import (
    Scenario,
)
from .trace import (
    Event,
    Note,
    Raised,
    Returned,
)
from .values import ClassWorld, ModeRef, SymTensor, SymValue, to_value


class EngineState:
    """The state of one prediction; the 2022 profile's values."""

    generation = "2022"
    max_depth = 40

    def __init__(self, scenario: Scenario, release: str | None = None) -> None:
        """``release``: whose texts to predict (a key of :mod:`spec.texts`; default the PR's)."""
        self.texts = msg.Texts(release or default_release(self.generation, getattr(self, "version", None)))
        self.sc = scenario
        self.world = ClassWorld(scenario)
        self.current: ModeRef | None = None
        self.disabled = False
        self.inner: dict[ModeRef, ModeRef | None] = {}
        self.installed_by: dict[ModeRef, tuple[str, ...]] = {}
        self.events: list[Event] = []
        self.notes: list[tuple[int, Note]] = []
        self.value_rules: set[str] = set()
        #: The exceptions the call would end with had a guard the model decides False
        #: dispatched anyway (``Returned.if_raised``).
        self.guard_raises: list[Raised] = []
        self.origin: Origin = Origin("top")
        self.depth = 0
        self._serial = itertools.count(1)
        #: Overloaded types to use, by the number of handler runs before the dispatch, in
        #: place of the ones the rules give (see :func:`predict`).
        self.forced: Mapping[int, tuple[str, ...]] = {}
        #: The syntactic form being evaluated and the call depth of its dispatch (see
        #: :mod:`spec.model.syntax`).
        self.form: tuple[int, FormInfo] | None = None

    def active_mode(self) -> ModeRef | None:
        """The mode a dispatch calls first (the current mode, unless modes are switched off)."""
        return self.current

    @contextmanager
    def origin_as(self, origin: Origin) -> Iterator[None]:
        saved = self.origin
        self.origin = origin
        try:
            yield
        finally:
            self.origin = saved

    def _has_tf(self, value: SymValue) -> bool:
        if self.active_mode() is not None:
            return True  # TFM_REACH_001, TFM_DISABLE_005
        if not isinstance(value, SymTensor) or self.disabled or value.cls == "Tensor":
            return False
        return self.world.effective(value.cls).kind not in ("disabled", "none")  # TFM_REACH_003

    def _probe(self, func: str, args: list[SymValue]) -> bool:
        items = args[0] if func == "has_torch_function" else args
        assert isinstance(items, (list, tuple))
        return self._probe_items(list(items))

    def _probe_rule(self, items: list[SymValue]) -> str:
        """The rule that decides ``has_torch_function`` of ``items``."""
        if not items:
            return "TFM_REACH_002"
        if self.active_mode() is not None:
            return "TFM_DISABLE_005" if self.disabled else "TFM_REACH_001"
        return "TFM_REACH_003"

    def _probe_items(self, items: list[SymValue]) -> bool:
        """``has_torch_function`` of ``items`` (TFM_REACH_001..003, TFM_DISABLE_005)."""
        self.value_rules.add(self._probe_rule(items))
        return any(self._has_tf(x) for x in items)

    def _kernel(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        def data(value: SymValue) -> object:
            if isinstance(value, SymTensor):
                if not self.world.is_tensor_class(value.cls):
                    raise Unspecified("the kernel was reached with a non-tensor argument")
                return value.data
            if isinstance(value, (list, tuple)):
                return [data(v) for v in value]
            return value

        if info_of(func).shape == "pyfunc":
            tensors = [v.data for v in _flat(args) if isinstance(v, SymTensor)
                       and self.world.is_tensor_class(v.cls)]
            total = pyfunc_kernel(tensors)
            return None if total is None else SymTensor("Tensor", total)
        if info_of(func).scalar:  # the call's tensors have two elements: no single number
            raise Unspecified(f"{func} reached the kernel with a tensor of more than one element")
        out = kernel(func, [data(a) for a in args], {k: data(v) for k, v in kwargs.items()})
        if out is None or isinstance(out, int):  # x[k] = c, len(x)
            return out
        assert isinstance(out, tuple)
        if func == "Tensor.real.__get__" and isinstance(args[0], SymTensor):
            return args[0]  # the real part of real values: the tensor itself, its class kept
        if func == "Tensor.add_" and isinstance(args[0], SymTensor):
            return SymTensor(args[0].cls, out, args[0].ident)  # in place: the tensor itself
        if func == "split":
            return tuple(SymTensor("Tensor", part) for part in out)
        return SymTensor("Tensor", out)

    def returned(self, value: SymValue) -> Returned:
        """The outcome of a call that returns ``value``: the rules that decided it (the first
        answer's, TFM_ORDER_007, where no other did) and what it would raise otherwise."""
        return Returned(to_value(value), tuple(sorted(self.value_rules)) or ("TFM_ORDER_007",),
                        tuple(self.guard_raises))

    def _note(self, text: str, *rules: str, no_handler: bool = False) -> None:
        self.notes.append((len(self.events), Note(text, rules, no_handler)))

    @staticmethod
    def _label(mode: ModeRef | None) -> str | None:
        return None if mode is None else mode.label


    if TYPE_CHECKING:
        def call(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
                 spread: bool = False) -> SymValue:
            """Dispatch one call (:class:`spec.model.dispatch.Dispatch`)."""


def _flat(values: list[SymValue]) -> list[SymValue]:
    return [x for v in values for x in (v if isinstance(v, (list, tuple)) else [v])]
