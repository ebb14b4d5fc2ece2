"""The calls of the surface sweep, in the implementation's sandbox, and what each handler saw.

For each listed callable (:mod:`.listing`, and the sweep's own function decorated with the
namespace's ``wrap_torch_function``, :mod:`.wrapped`) with arguments built from its signature
(:mod:`.arguments`), five calls: under a recording mode that answers, one that raises, one that
declines (with duck-typed objects in the tensor slots), with duck-typed objects and no mode, and
inside ``DisableTorchFunction`` (and ``DisableTorchFunctionSubclass``). What differs from what
the rules say is sent up as plain data, ``[check, detail]`` per callable; the suite's process
(:mod:`.judge`) turns the checks into rules. The checks:

``reach``  the mode's handler runs exactly once, first;   ``func``  with the listed callable;
``args``   the arguments as written;   ``result``  the handler's answer is the call's result;
``raise``  the handler's exception propagates as the same object;   ``duck``  with duck-typed
objects and no mode, their handler runs once with ``types == (Duck,)``;   ``notimpl``  a
declining mode falls through to the ducks' handler;   ``disable``  no duck handler inside
``DisableTorchFunction``;   ``disable_mode``  whether the mode runs there (it does in 2022 and
1.13; on 2.x it does not);   ``disable_subclass``  inside ``DisableTorchFunctionSubclass`` the mode
runs and the ducks' handler does not;   ``duck_alone``  a duck in one tensor position alone,
plain tensors elsewhere, is dispatched on (:mod:`.alone`).
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Callable, Iterator
from typing import Any

from ..base.safe import repr_of, text_of
from .alone import check_alone
from .arguments import Construction, construct, refine
from .listing import Listed, listed, namer, same_callable
from .wrapped import wrapped_entry

__all__ = ["Probe", "names", "sweep"]

#: Tries of one callable's arguments, each refined from the argument error of the one before.
TRIES = 6


class Answer:
    """What the recording handlers return: an object no implementation computes."""

    def __repr__(self) -> str:
        return "<the handler's answer>"


class Boom(Exception):
    """What a raising handler raises (a new instance each time)."""


class Probe:
    """The recording mode and duck class of one sweep, with the calls they saw."""

    def __init__(self, adapter: Any) -> None:
        self.adapter = adapter
        self.answer = Answer()
        self.calls: list[tuple[str, Any, tuple[type, ...], tuple[Any, ...], Any]] = []
        self.behaviour = "answer"
        self.raised: BaseException | None = None
        #: What the handlers answer instead of ``answer`` (a conversion must answer its type).
        self.typed_answer: Any = None
        probe = self

        def handler(owner: str) -> Callable[..., Any]:
            def __torch_function__(self: Any, func: Any, types: Any, args: Any = (),
                                   kwargs: Any = None) -> Any:
                probe.calls.append((owner, func, tuple(types), tuple(args), kwargs))
                if owner == "mode" and probe.behaviour == "decline":
                    return NotImplemented
                if owner == "mode" and probe.behaviour in ("raise", "type_error"):
                    probe.raised = (Boom if probe.behaviour == "raise" else TypeError)(
                        "raised by the handler")
                    raise probe.raised
                return probe.answer if probe.typed_answer is None else probe.typed_answer
            return __torch_function__

        meta = type(adapter.TorchFunctionMode)
        self.mode_class = meta("Recording", (adapter.TorchFunctionMode,),
                               {"__torch_function__": handler("mode")})
        self.Duck = type("Duck", (), {"__torch_function__": classmethod(handler("duck")),
                                      "__repr__": lambda self: "<Duck>"})
        #: For Tensor methods, whose self must be a Tensor: a subclass with the same handler.
        self.Sub: type = type(adapter.Tensor)("Sub", (adapter.Tensor,), {
            "__torch_function__": classmethod(handler("duck"))})

    @contextlib.contextmanager
    def mode(self, behaviour: str) -> Iterator[None]:
        self.behaviour = behaviour
        mode = self.adapter.make_mode(self.mode_class)
        entered = self.adapter.enter(mode) if self.adapter.generation == "stack" else \
            self.adapter.enable(mode)
        with entered:
            yield

    def call(self, func: Any, args: tuple[Any, ...], kwargs: dict[str, Any],
             within: Callable[[], contextlib.AbstractContextManager[Any]],
             ) -> tuple[Any, BaseException | None]:
        self.calls = []
        self.raised = None
        try:
            with within():
                return func(*args, **kwargs), None
        except Exception as exc:  # the call's own outcome, judged below
            return None, exc


def _same(observed: Any, written: Any) -> bool:
    if isinstance(written, (list, tuple)):
        return (type(observed) in (list, tuple) and len(observed) == len(written)
                and all(_same(o, w) for o, w in zip(observed, written, strict=True)))
    if isinstance(written, (bool, int, float, str)) or written is None:
        return type(observed) is type(written) and observed == written
    if isinstance(written, slice) or written is Ellipsis:
        return bool(observed == written)
    return observed is written


def _shown(value: Any, depth: int = 0) -> str:
    """``value`` for a message without calling the implementation: tensors and ducks by class."""
    if depth > 3:
        return "..."
    if isinstance(value, (list, tuple)):
        inner = ", ".join(_shown(v, depth + 1) for v in value[:8])
        return f"({inner}{',' if len(value) == 1 else ''})" if isinstance(value, tuple) else f"[{inner}]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k!r}: {_shown(v, depth + 1)}" for k, v in list(value.items())[:8]) + "}"
    if value is None or type(value) in (bool, int, float, str):
        return repr(value)[:60]
    return f"<{type(value).__name__}>"


def _defaults(entry: Listed) -> dict[str, Any] | None:
    """The defaults of a function written in Python, its own and its template's (``None``: a
    native callable, which has no defaults to fill in)."""
    target = inspect.unwrap(entry.func)
    if not inspect.isfunction(target):
        return None
    found: dict[str, Any] = {}
    for source in (entry.template, target):
        try:
            parameters = inspect.signature(source).parameters if source is not None else {}
        except (TypeError, ValueError):
            continue
        found.update({n: p.default for n, p in parameters.items()
                      if p.default is not inspect.Parameter.empty})
    return found


def _kwargs_same(observed: Any, written: dict[str, Any], defaults: dict[str, Any] | None) -> bool:
    """Keywords as written; a function written in Python may add the defaults of parameters
    the caller left out, by keyword (TFM_ARGS_002 keeps what was written where it was)."""
    if observed is None:
        return not written
    if type(observed) is not dict or not set(written) <= set(observed):
        return False
    if not all(_same(observed[k], v) for k, v in written.items()):
        return False
    extra = set(observed) - set(written)
    return not extra or (defaults is not None and all(
        k in defaults and (observed[k] is defaults[k] or _same(observed[k], defaults[k]))
        for k in extra))


def _quiet() -> contextlib.AbstractContextManager[Any]:
    return contextlib.nullcontext()


def _arguments(probe: Probe, entry: Listed, ns: Any,
               name_of: Callable[[object], str]) -> tuple[Construction | None, str]:
    """A construction the mode's handler is reached with; else ``None`` and why."""
    construction = construct(entry.func, entry.template, ns, _is_method(entry))
    if construction is None:
        return None, "its signature cannot be read"
    for _ in range(TRIES):
        args, kwargs = construction.build(lambda: probe.adapter.tensor([1.0, 2.0]))
        result, error = probe.call(entry.func, args, kwargs, lambda: probe.mode("answer"))
        if any(same_callable(func, entry.func) for _, func, *_ in probe.calls) or (
                len(probe.calls) == 1 and error is None and result is probe.answer):
            return construction, ""  # reached (with another func, the checks will say)
        better = refine(construction, text_of(error), ns) if isinstance(error, TypeError) else None
        if better is not None:  # an argument the implementation converts, or rejects: rebuilt
            construction = better
            continue
        if probe.calls:
            return construction, "under a mode the handler ran for other callables first, and " \
                f"never for this one: {', '.join(name_of(f) for _, f, *_ in probe.calls[:4])}"
        if error is None:
            return construction, f"under a mode the call returned {repr_of(result)} without " \
                "reaching the handler"
        first = (text_of(error).splitlines() or [""])[0][:200]
        return None, f"its arguments were not accepted: {name_of(type(error))}: {first}"
    return None, "its arguments were not accepted after several tries"


class _Checks:
    def __init__(self, probe: Probe, entry: Listed, name_of: Callable[[object], str]) -> None:
        self.probe, self.entry, self.name_of = probe, entry, name_of
        self.problems: list[list[str]] = []

    def add(self, check: str, detail: str) -> None:
        self.problems.append([check, detail])

    def seen(self) -> str:
        return ", ".join(f"{owner} for {self.name_of(func)}" for owner, func, *_ in self.probe.calls) \
            or "no handler"

    def handler_run(self, check: str, owner: str, args: tuple[Any, ...], kwargs: dict[str, Any],
                    types: tuple[type, ...] | None = None) -> bool:
        """The one run of ``owner``'s handler; problems with its func and arguments."""
        runs = self.probe.calls
        if len(runs) != 1 or runs[0][0] != owner:
            self.add(check, f"expected one run of the {owner}'s handler, saw: {self.seen()}")
            return False
        _, func, seen_types, seen_args, seen_kwargs = runs[0]
        if not same_callable(func, self.entry.func):
            self.add("func", f"the handler's func was {self.name_of(func)}")
        if not _same(seen_args, args):
            self.add("args", f"args were {_shown(seen_args)}, written {_shown(args)}")
        if not _kwargs_same(seen_kwargs, kwargs, _defaults(self.entry)):
            self.add("args", f"kwargs were {_shown(seen_kwargs)}, written {_shown(kwargs)}")
        if types is not None and seen_types != types:
            self.add(check, f"types were {repr_of(seen_types)}, expected {repr_of(types)}")
        return True


_SETTERS = ("__setitem__", "__delitem__", ".__set__", ".__delete__")


def _is_method(entry: Listed) -> bool:
    return entry.name.startswith("Tensor.")


def _duck_arguments(probe: Probe, entry: Listed,
                    construction: Construction) -> tuple[tuple[Any, ...], dict[str, Any], Any]:
    """Duck-typed arguments: a duck in each tensor slot; for a Tensor method, an instance of a
    subclass as self and plain tensors elsewhere. Also the types the handler may see."""
    ad = probe.adapter
    if not construction.method:
        args, kwargs = construction.build(probe.Duck)
        return args, kwargs, (probe.Duck,)
    args, kwargs = construction.build(lambda: ad.tensor([1.0, 2.0]))
    with ad.disable():
        self = ad.tensor([1.0, 2.0]).as_subclass(probe.Sub)
    return (self, *args[1:]), kwargs, None


def check_one(probe: Probe, entry: Listed, construction: Construction,
              name_of: Callable[[object], str]) -> list[list[str]]:
    """The problems of one callable whose arguments reach the mode."""
    checks, ad = _Checks(probe, entry, name_of), probe.adapter
    args, kwargs = construction.build(lambda: ad.tensor([1.0, 2.0]))
    result, error = probe.call(entry.func, args, kwargs, lambda: probe.mode("answer"))
    reached = checks.handler_run("reach", "mode", args, kwargs)
    if reached:
        if error is not None:
            checks.add("result", f"the call raised {name_of(type(error))}: {text_of(error)}"[:300])
        elif result is not probe.answer and not entry.name.endswith(_SETTERS):
            checks.add("result", f"the call returned {repr_of(result)}, not the handler's answer")
    result, error = probe.call(entry.func, args, kwargs, lambda: probe.mode("raise"))
    if probe.raised is not None and error is not probe.raised:
        shown = "nothing" if error is None else f"{name_of(type(error))}: {text_of(error)}"
        checks.add("raise", f"the handler raised {probe.raised!r}; the call raised {shown}"[:300])
    if construction.tensor_slots() == 0 or not reached:
        return checks.problems  # (what follows would repeat the mode's wrong count)
    duck_args, duck_kwargs, types = _duck_arguments(probe, entry, construction)
    result, error = probe.call(entry.func, duck_args, duck_kwargs, _quiet)
    if checks.handler_run("duck", "duck", duck_args, duck_kwargs, types):
        seen = probe.calls[0][2]
        if types is None and (probe.Sub not in seen or not set(seen) <= {probe.Sub, ad.Tensor}):
            checks.add("duck", f"types were {repr_of(seen)}, expected the subclass (and Tensor)")
        if result is not probe.answer and not entry.name.endswith(_SETTERS):
            gave = error if error is not None else result
            checks.add("duck", f"the call gave {repr_of(gave)}, not the handler's answer")
    probe.call(entry.func, duck_args, duck_kwargs, lambda: probe.mode("decline"))
    owners = [owner for owner, *_ in probe.calls]
    if owners != ["mode", "duck"]:
        checks.add("notimpl", f"after the mode declined: {checks.seen()}")
    probe.call(entry.func, duck_args, duck_kwargs, lambda: ad.disable())
    if probe.calls:
        checks.add("disable", f"inside DisableTorchFunction: {checks.seen()}")
    _disabled_with_mode(probe, checks, duck_args, duck_kwargs, (args, kwargs))
    if not any(check.startswith("duck") for check, _ in checks.problems):
        alone = check_alone(probe, entry, construction, entry.name.endswith(_SETTERS), name_of)
        if alone is not None:
            checks.problems.append(alone)
    return checks.problems


def _disabled_with_mode(probe: Probe, checks: _Checks, args: tuple[Any, ...],
                        kwargs: dict[str, Any],
                        plain: tuple[tuple[Any, ...], dict[str, Any]]) -> None:
    ad = probe.adapter
    modes_stop = ad.generation == "stack" and ad.stack_version != "1.13"

    @contextlib.contextmanager
    def both(subclass_only: bool) -> Iterator[None]:
        with probe.mode("answer"), ad.disable(subclass_only):
            yield

    # on 2.x nothing may run: ducks make sure nothing computes; in 2022 and 1.13 the mode runs
    # for plain tensors (ducks are no tensors once disabled, and fail the arguments' parsing)
    probe.call(checks.entry.func, *((args, kwargs) if modes_stop else plain), lambda: both(False))
    owners = [owner for owner, *_ in probe.calls]
    if owners != ([] if modes_stop else ["mode"]):
        checks.add("disable_mode", f"inside DisableTorchFunction with a mode: {checks.seen()}")
    if modes_stop and "disable-subclass" in ad.features:
        probe.call(checks.entry.func, *plain, lambda: both(True))
        if [owner for owner, *_ in probe.calls] != ["mode"]:
            checks.add("disable_subclass",
                       f"inside DisableTorchFunctionSubclass with a mode: {checks.seen()}")


#: The listing, probe and namer of the adapter this process serves (made on first use: the
#: suite asks for the callables a few at a time, so that a crash costs only the one in flight).
_MADE: dict[int, tuple[list[Listed] | None, Probe, Callable[[object], str]]] = {}


def _made(adapter: Any) -> tuple[list[Listed] | None, Probe, Callable[[object], str]]:
    if id(adapter) not in _MADE:
        _MADE.clear()
        entries, extra = listed(adapter), wrapped_entry(adapter)
        if entries is not None and extra is not None:  # checked as the listed callables are
            entries = sorted([*entries, extra], key=lambda entry: entry.name)
        _MADE[id(adapter)] = (entries, Probe(adapter), namer(getattr(adapter, "ns", None)))
    return _MADE[id(adapter)]


def names(adapter: Any) -> list[str] | None:
    """The names of the listed callables (``None``: the implementation lists none)."""
    entries = _made(adapter)[0]
    return None if entries is None else [entry.name for entry in entries]


def sweep(adapter: Any, names: list[str] | None = None) -> dict[str, Any]:
    """Every listed callable (or those of ``names``) checked; plain data for the judge."""
    entries, probe, name_of = _made(adapter)
    if entries is None:
        return {"listed": None, "checked": [], "not_called": []}
    ns = getattr(adapter, "ns", None)
    checked: list[list[Any]] = []
    not_called: list[list[str]] = []
    wanted = None if names is None else set(names)
    for entry in entries:
        if wanted is not None and entry.name not in wanted:
            continue
        construction, why = _arguments(probe, entry, ns, name_of)
        if construction is None:
            not_called.append([entry.name, why])
        elif why:
            checked.append([entry.name, [["reach", why]]])
        else:
            checked.append([entry.name, check_one(probe, entry, construction, name_of)])
        adapter.reset()
    return {"listed": len(entries), "checked": checked, "not_called": not_called}
