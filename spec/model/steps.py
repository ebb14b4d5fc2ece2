"""The set-up steps of the 2022 design: push, enable, ``DisableTorchFunction`` and setting the
mode directly (TFM_PUSH_*, TFM_ENABLE_*, TFM_DISABLE_002/006, TFM_ERROR_006).

The stack generation overrides these (:mod:`.stack`). Imports :mod:`.state` only.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager

from . import messages as msg
from .limits import Unspecified
from .raising import ModelRaise
from .scenario import (
    Construct,
    Disable,
    Enable,
    Push,
    SetRaw,
    Step,
)
from .state import EngineState
from .trace import (
    Constructed,
)
from .values import ModeRef


class SetupSteps(EngineState):
    """Entering and leaving a scenario's set-up steps."""

    @contextmanager
    def install(self, step: Step) -> Iterator[tuple[str, ...]]:
        if isinstance(step, Push):
            with self.push(step.mode, step.how) as mode:
                yield self.installed_by[mode]
        elif isinstance(step, Enable):
            target = self.resolve(step.target)
            with self.enable(target, self.resolve(step.replace), step.ignore_preexisting) as rules:
                yield rules
        elif isinstance(step, Disable):
            if step.subclass_only:
                raise Unspecified("DisableTorchFunctionSubclass is not in the 2022 design")
            with self.disable():
                yield ("TFM_DISABLE_002",)
        elif isinstance(step, SetRaw):
            old = self.current
            self.current = self.resolve(step.target)
            if self.current is not None:
                self.installed_by[self.current] = ("TFM_ERROR_006",)
            try:
                yield ("TFM_ERROR_006",)
            finally:
                self.current = old
        elif isinstance(step, Construct):
            raise ModelRaise("TypeError", self.texts.message("missing-inner"), ("TFM_PUSH_007",))
        else:
            raise Unspecified(f"{type(step).__name__} is not a step of the 2022 design")

    def resolve(self, name: str | None) -> ModeRef | None:
        """A name in a set-up step: a mode declaration's up-front instance, or a class."""
        if name is None:
            return None
        if self.sc.mode_named(name) is not None:
            return ModeRef("inst", name, 0)
        return ModeRef("cls", name)

    @contextmanager
    def push(self, mode_name: str, how: str = "ctor") -> Iterator[ModeRef]:
        if how == "instance":  # TFM_PUSH_005
            raise ModelRaise("ValueError", msg.push_instance(self.texts, mode_name), ("TFM_PUSH_005",))
        old = self.current
        if how == "bad_ctor":  # TFM_PUSH_006
            raise ModelRaise("ValueError", self.texts.message("push-must-return-mode"), ("TFM_PUSH_006",))
        # TFM_PUSH_001/002: ctor(inner=<current>), or a fresh BaseTorchFunctionMode(inner=None).
        inner = old if old is not None else ModeRef("base", "<base>", next(self._serial))
        mode = ModeRef("inst", mode_name, next(self._serial))
        rules = ("TFM_PUSH_001", "TFM_PUSH_002") if old is None else ("TFM_PUSH_001",)
        self.events.append(Constructed(mode_name, inner.label, 0, (*rules, "TFM_PUSH_008")))
        self.inner[mode] = inner
        self.installed_by[mode] = rules
        self.current = mode
        try:
            yield mode
        finally:
            self.current = old  # TFM_PUSH_003

    @contextmanager
    def enable(self, target: ModeRef | None, replace: ModeRef | None,
               ignore_preexisting: bool) -> Iterator[tuple[str, ...]]:
        if target is not None and target.name.startswith(("@class:", "@object")):
            # TFM_ENABLE_008: the type check comes first
            raise ModelRaise("ValueError", msg.enable_bad_type(self.texts, target.name),
                             ("TFM_ENABLE_008", "TFM_ENABLE_012"))
        old = self.current
        if old == target:  # TFM_ENABLE_002: the identical object is a no-op
            yield ("TFM_ENABLE_002",) if target is not None else ("TFM_ENABLE_002", "TFM_ENABLE_010")
            return
        if old is not None and not ignore_preexisting and old != replace:
            is_mode = target is not None and target.kind != "cls"
            rules = ["TFM_ENABLE_003" if is_mode else "TFM_ENABLE_004", "TFM_ENABLE_012"]
            if replace is not None:
                rules.append("TFM_ENABLE_006")
            if target is None:
                rules.append("TFM_ENABLE_010")
            raise ModelRaise("ValueError", msg.already_active(self.texts, old.label, target_is_mode=is_mode,
                                                              rule=rules[0]), tuple(rules))
        if target is None or target.name == "@nohandler":  # TFM_ENABLE_009/010
            raise ModelRaise("ValueError", self.texts.message("enable-needs-handler"),
                             ("TFM_ENABLE_009", "TFM_ENABLE_010", "TFM_ENABLE_012"))
        rules = ["TFM_ENABLE_001"]
        if old is not None:
            rules.append("TFM_ENABLE_007" if ignore_preexisting and old != replace else "TFM_ENABLE_005")
        if target.kind == "cls":
            rules.append("TFM_SUBMODE_001")
        else:
            rules.append("TFM_ENABLE_011")
        previous = self.installed_by.get(target)
        self.installed_by[target] = tuple(rules)
        self.current = target
        try:
            yield tuple(rules)
        finally:
            self.current = old  # TFM_ENABLE_001
            if previous is not None:
                self.installed_by[target] = previous

    def disable_torch_function(self) -> AbstractContextManager[None]:
        """``DisableTorchFunction()``: in the 2022 design it disables subclass handling only."""
        return self.disable()

    @contextmanager
    def disable(self) -> Iterator[None]:
        saved = self.disabled
        self.disabled = True
        try:
            yield
        finally:
            self.disabled = saved  # TFM_DISABLE_006

