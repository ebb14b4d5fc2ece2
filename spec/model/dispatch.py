"""One call: its form or path, the overloaded arguments in precedence order, the mode first,
then each argument's handler until one does not decline (TFM_ORDER_001..007, TFM_TYPES_*,
TFM_REACH_*, TFM_NOTIMPL_*).

Imports :mod:`.handlers` (and the layers below it) and :mod:`.syntax`.
"""

from __future__ import annotations

from . import messages as msg
from . import syntax
from .context import Handler
from .functions import FORMS, info_of
from .handlers import Handlers
from .limits import Unbounded, Unspecified
from .raising import ModelRaise
from .state import _flat
from .trace import (
    ANY_DICT,
    NONE_OR_EMPTY,
    HandlerRun,
    KwargsSeen,
    Message,
    Raised,
)
from .values import NOTIMPL, SymTensor, SymValue


class Dispatch(Handlers):
    """The dispatch of one call."""

    def call(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
             spread: bool = False) -> SymValue:
        """Dispatch one call; ``spread``: made as ``func(*args, **kwargs)`` with a dict that may be empty."""
        self.depth += 1
        try:
            if self.depth > self.max_depth:
                raise Unbounded(func)
            form = FORMS.get(func)
            if form is not None:
                return syntax.evaluate(self, form, args)
            info = info_of(func)
            if info.path == "probe":
                return self._probe(func, args)
            if info.shape == "pyfunc":
                return self._pyfunc(func, args, kwargs)
            return self._dispatch(func, args, kwargs, info.relevant(args, kwargs),
                                  info.path == "python", spread)
        finally:
            self.depth -= 1

    def _pyfunc(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue]) -> SymValue:
        """A scenario-defined Python function: its ``has_torch_function*`` guard, then
        ``handle_torch_function`` with its relevant arguments (TFM_REACH_001..003, TFM_TYPES_007)."""
        decl = self.sc.function_named(func)
        assert decl is not None
        bound = dict(zip(decl.names, args, strict=False)) | kwargs
        relevant: list[SymValue] = []
        for name in decl.relevant:
            value = bound[name.lstrip("*")]
            if name.startswith("*"):
                assert isinstance(value, (list, tuple))
                relevant.extend(value)
            else:
                relevant.append(value)
        if self._forced_here() is None and not self._probe_items(relevant):
            self.runs_without_dispatching(
                func, f"has_torch_function of ({', '.join(decl.relevant)}) is False: {func} runs "
                "without dispatching", self._probe_rule(relevant))
            return self._kernel(func, [bound[n] for n in decl.names], {})
        split = decl.params - decl.keywords
        positional = [bound[n] for n in decl.names[:split]]
        keywords = {n: bound[n] for n in decl.names[split:]}
        return self._dispatch(func, positional, keywords, relevant, True,
                              seen=tuple(sorted(keywords)))

    def _dispatch(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
                  relevant: list[SymValue], python: bool, spread: bool = False,
                  seen: KwargsSeen = ANY_DICT) -> SymValue:
        """``seen``: the keywords a Python-path handler sees (any dict unless given)."""
        overloaded, collect_rules = self.collect(relevant, python, len(relevant) if python else len(args))
        if self.forced:
            overloaded = self._forced(overloaded, relevant)
        mode = self.active_mode()
        if python and self._forced_here() is None and not any(self._has_tf(x) for x in relevant):
            self.runs_without_dispatching(
                func, "no argument has a handler and no mode is current: the function runs",
                "TFM_REACH_002" if not relevant else "TFM_REACH_003")
            return self._kernel(func, args, kwargs)
        if not python and mode is None and not overloaded:
            if self.disabled:
                self.value_rules.add("TFM_DISABLE_001")
            self._note("no overloaded argument and no mode: the kernel runs", "TFM_TYPES_003",
                       no_handler=True)
            return self._kernel(func, args, kwargs)
        types = tuple(a.cls for a in overloaded)
        if not python:
            seen = tuple(sorted(kwargs)) if kwargs else NONE_OR_EMPTY if spread else None
        h = Handler(func=func, types=types, args=args, kwargs=kwargs, seen=seen, python=python,
                    collect_rules=collect_rules)
        after: list[str] = []
        if mode is not None:  # TFM_ORDER_001: the mode first
            before = len(self.value_rules)
            result = self.call_mode(mode, h)
            if result is not NOTIMPL:  # TFM_ORDER_002
                if not self.passes_through(mode, h) or len(self.value_rules) == before:
                    # A mode that hands back what it forwarded gives no answer of its own: the
                    # value is the forwarded call's, whose rules decide it, if it has any.
                    self.value_rules.add("TFM_ORDER_002")
                return result
            self._note("the mode returned NotImplemented: overloaded arguments are tried",
                       "TFM_NOTIMPL_001", "TFM_NOTIMPL_004")
            after = ["TFM_NOTIMPL_001", "TFM_NOTIMPL_004"]
        deferred: list[str] = []  # native plain-method warnings surface when the call is over
        try:
            for arg in overloaded:  # TFM_ORDER_003..005, TFM_NOTIMPL_001
                result = self._call_overloaded(arg, h, tuple(after), deferred)
                if result is not NOTIMPL:
                    self.value_rules.add("TFM_ORDER_007")
                    return result
                after.append("TFM_ORDER_007")
            if info_of(func).operator:
                raise Unspecified(f"every handler of {func} declined: it gives NotImplemented, "
                                  "and Python goes on")
            rules = ["TFM_NOTIMPL_002", "TFM_ERROR_004",
                     "TFM_ERROR_003" if python else "TFM_ERROR_001"]
            if not overloaded:
                rules.append("TFM_NOTIMPL_003")
            if mode is not None:
                rules += ["TFM_NOTIMPL_004", "TFM_ERROR_003" if python else "TFM_ERROR_002"]
            raise ModelRaise("TypeError", self.no_implementation(func, types, python),
                             tuple(dict.fromkeys(rules)), declined_at=self.depth)
        finally:
            for _ in deferred:
                self.warn_plain_method(False)

    def _forced_here(self) -> tuple[str, ...] | None:
        """The types :attr:`forced` gives a dispatch starting now (``None``: the rules decide).

        A forced dispatch happens even where the rules say the call does not dispatch: the
        implementation was seen running a handler there."""
        return self.forced.get(sum(isinstance(e, HandlerRun) for e in self.events))

    def _forced(self, overloaded: list[SymTensor], relevant: list[SymValue]) -> list[SymTensor]:
        """The overloaded arguments :attr:`forced` gives this dispatch (else ``overloaded``)."""
        forced = self._forced_here()
        if forced is None or forced == tuple(a.cls for a in overloaded):
            return overloaded
        pool = [v for v in _flat(relevant) if isinstance(v, SymTensor)]
        out: list[SymTensor] = []
        for name in forced:
            match = next((v for v in pool if v.cls == name), None)
            if match is None or self.world.effective(name).kind in ("disabled", "none"):
                raise Unspecified(f"the implementation overloads on {name}, which the rules "
                                  "give no handler to run")
            out.append(match)
        return out

    def runs_without_dispatching(self, func: str, text: str, rule: str) -> None:
        """A function written in Python whose guard (``rule``) decides that it computes without
        dispatching. Had it dispatched anyway, with no handler in reach it would find none and
        raise the 'no implementation found' TypeError with no types: that exception where the
        call should return is the divergence of ``rule`` alone (``Returned.if_raised``), not of
        the rules of the value. The guard is False only with no mode in reach, so the text has
        no mode; where the release's texts do not establish it, nothing is recorded."""
        self._note(text, rule, no_handler=True)
        if self.texts.known("no-implementation-python"):
            message = msg.no_implementation(self.texts, func, (), None, python=True)
            self.guard_raises.append(Raised("TypeError", message, (rule,)))

    def no_implementation(self, func: str, types: tuple[str, ...], python: bool) -> Message:
        return msg.no_implementation(self.texts, func, types, self._label(self.current), python=python)

    def collect(self, relevant: list[SymValue], python: bool,
                positional: int) -> tuple[list[SymTensor], tuple[str, ...]]:
        """Overloaded arguments in precedence order, and the rules that shaped the order.

        The mode plays no part here (TFM_REACH_007).
        """
        if self.disabled:
            if not python and any(isinstance(v, SymTensor) and not self.world.is_tensor_class(v.cls)
                                  for v in _flat(relevant)):
                # A non-tensor in a tensor slot only parses while it can be dispatched on.
                raise Unspecified("a duck argument with subclass handling disabled")
            return [], ("TFM_DISABLE_001", "TFM_DISABLE_003")
        rules: set[str] = {"TFM_TYPES_001"}
        flat: list[tuple[SymValue, bool]] = []
        for i, value in enumerate(relevant):  # TFM_ORDER_006: list elements count, in order
            if python and isinstance(value, (list, tuple)):
                rules.add("TFM_TYPES_007")  # the Python path takes relevant_args as given
                continue
            indirect = isinstance(value, (list, tuple)) or i >= positional
            for item in (value if isinstance(value, (list, tuple)) else [value]):
                flat.append((item, indirect))
        found: list[SymTensor] = []
        for value, nested in flat:
            if not isinstance(value, SymTensor):
                if self.current is not None:
                    rules.add("TFM_REACH_007")
                continue
            if value.cls == "Tensor" and not python:
                rules.update(("TFM_TYPES_003", "TFM_REACH_007"))
                continue
            if self.world.effective(value.cls).kind in ("disabled", "none"):
                rules.add("TFM_TYPES_005")
                continue
            if any(f.cls == value.cls for f in found):
                rules.add("TFM_ORDER_005")
                continue
            if nested:
                rules.add("TFM_ORDER_006")
            if not self.world.is_tensor_class(value.cls):
                rules.add("TFM_TYPES_006")
            at = next((i for i, f in enumerate(found) if self.world.is_subclass(value.cls, f.cls)),
                      len(found))
            rules.add("TFM_ORDER_003" if at < len(found) else "TFM_ORDER_004")
            found.insert(at, value)
        if python:
            rules.add("TFM_TYPES_004")
        return found, tuple(sorted(rules))

