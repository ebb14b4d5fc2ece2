"""Traces: the observable record of one scenario, predicted by the model or observed on an implementation."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal, Union

Role = Literal["mode", "subclass", "submode"]

#: ``kwargs`` as a handler saw it: ``None``, or the sorted keys of the dict.
#: The model predicts :data:`ANY_DICT` where only "a dict" is specified.
KwargsSeen = Union[None, tuple[str, ...]]
ANY_DICT: tuple[str, ...] = ("*",)
#: ``None`` or an empty dict: a call spread as ``func(*args, **{})`` (TFM_ARGS_003).
NONE_OR_EMPTY: tuple[str, ...] = ("?",)
#: Observed only: the handler was handed ``None`` as a fourth positional argument, where
#: ``None`` (the key :data:`KwargsSeen` ``None``) means it was called with three and saw its
#: own default (TFM_ARGS_003 tells them apart; no prediction is this).
NONE_PASSED: tuple[str, ...] = ("=None",)

#: An argument as a handler received it, described by its structure (never the object itself,
#: so that a description can cross the sandbox's boundary as JSON and be compared safely):
#: ``("obj", "x0")`` an object the scenario built for its call (``x0``, ``x1``... in order),
#: ``("int", 3)``, ``("bool", True)``, ``("float", 0.5)``, ``("str", "text")``,
#: ``("none", None)`` a constant, ``("list", (...))`` / ``("tuple", (...))`` a sequence with
#: its items, ``("slice", (start, stop, step))`` a slice by its three ends, ``("ellipsis",
#: None)`` the ``...`` of an index, and ``("other", "TypeName")`` anything else (which no
#: prediction is).
ArgSeen = tuple[str, Union[str, int, float, bool, tuple["ArgSeen", ...], None]]
#: The tags of :data:`ArgSeen` whose payload is a sequence of descriptions (a slice's: its
#: start, stop and step).
SEQUENCE_TAGS = ("list", "tuple", "slice")
#: Every tag of :data:`ArgSeen`, with the payload's type.
ARG_TAGS: dict[str, tuple[type, ...]] = {
    "obj": (str,), "int": (int,), "bool": (bool,), "float": (float,), "str": (str,),
    "none": (type(None),), "list": (tuple,), "tuple": (tuple,), "other": (str,),
    "slice": (tuple,), "ellipsis": (type(None),)}


def same_arg(a: ArgSeen, b: ArgSeen) -> bool:
    """Whether two descriptions are of the same argument (``True == 1`` counts for nothing:
    the tags tell a bool, an int and a float apart)."""
    if a[0] != b[0]:
        return False
    if a[0] in SEQUENCE_TAGS:
        x, y = a[1], b[1]
        assert isinstance(x, tuple) and isinstance(y, tuple)
        return len(x) == len(y) and all(same_arg(i, j) for i, j in zip(x, y, strict=True))
    return type(a[1]) is type(b[1]) and a[1] == b[1]


def show_arg(a: ArgSeen) -> str:
    """A description as a failure shows it: ``x0``, ``3``, ``[x0, x1]``, ``<other Foo>``."""
    tag, value = a
    if tag == "obj":
        return str(value)
    if tag == "ellipsis":
        return "..."
    if tag == "slice":
        assert isinstance(value, tuple)
        return "slice(" + ", ".join(show_arg(v) for v in value) + ")"
    if tag in SEQUENCE_TAGS:
        assert isinstance(value, tuple)
        inner = ", ".join(show_arg(v) for v in value)
        return f"[{inner}]" if tag == "list" else f"({inner}{',' if len(value) == 1 else ''})"
    if tag == "other":
        return f"<other {value}>"
    return repr(value)


@dataclass(frozen=True)
class TensorValue:
    """A tensor result: its class name and its data."""

    cls: str
    data: tuple[float, ...]


Value = Union[int, bool, None, TensorValue, tuple["Value", ...]]


@dataclass(frozen=True)
class Ref:
    """A part of an error message that names an object of the scenario.

    ``kind`` is ``type`` (``repr`` of a class), ``mode`` (``repr`` of the mode
    object, or of the class used as the mode), ``func`` (the function's
    qualified name as the error message spells it), or ``text``: a text of kind
    ``name`` that the release's table does not establish, which matches any text.
    """

    kind: Literal["type", "mode", "func", "text"]
    name: str


MessagePart = Union[str, Ref]


@dataclass(frozen=True)
class Message:
    """An exception or warning text with references to scenario objects."""

    parts: tuple[MessagePart, ...]
    #: Per part, the rules that decide it (empty: those of the event or outcome it is part of).
    rules: tuple[tuple[str, ...], ...] = field(default=(), compare=False)

    def rules_for(self, index: int) -> tuple[str, ...]:
        return self.rules[index] if index < len(self.rules) else ()

    def render(self, naming: dict[tuple[str, str], str] | None = None) -> str:
        out: list[str] = []
        for part in self.parts:
            if isinstance(part, str):
                out.append(part)
            elif naming is not None and (part.kind, part.name) in naming:
                out.append(naming[(part.kind, part.name)])
            else:
                out.append(f"<{part.kind} {part.name}>")
        return "".join(out)


@dataclass(frozen=True)
class HandlerRun:
    """A handler of the scenario was entered.

    ``who`` is the mode instance or class name; ``current`` is the current mode
    (instance name, class name, ``"<base>"`` for the implicit
    ``BaseTorchFunctionMode``, or ``None``) as the handler's own code sees it;
    ``bound`` is the argument a plain-method handler is bound to (``"x0"``...).
    """

    who: str
    role: Role
    func: str
    types: tuple[str, ...]
    kwargs: KwargsSeen
    current: str | None
    bound: str | None = None
    rules: tuple[str, ...] = field(default=(), compare=False)
    #: Per observed field, the rules that decide it (for attributing a divergence).
    why: tuple[tuple[str, tuple[str, ...]], ...] = field(default=(), compare=False)
    #: ``args`` as the handler received it (``None``: not known; compared by conformance.judge.compare).
    args: tuple[ArgSeen, ...] | None = field(default=None, compare=False)
    #: ``kwargs``'s items, sorted by key (``None``: not known, or kwargs was no dict); a
    #: prediction names the items the handler must see (others are ``kwargs``'s to allow).
    kwvalues: tuple[tuple[str, ArgSeen], ...] | None = field(default=None, compare=False)
    #: Other callables the prediction allows as ``func`` (a syntactic form's, TFM_SYNTAX_001).
    also: tuple[str, ...] = field(default=(), compare=False)

    def rules_for(self, name: str) -> tuple[str, ...]:
        for key, rules in self.why:
            if key == name:
                return rules
        return self.rules


@dataclass(frozen=True)
class Constructed:
    """A mode of the scenario was constructed: what ``self.inner`` was when its ``__init__`` ran.

    ``inner`` is ``"-"`` where the object has no ``inner`` at all; ``nargs``
    counts the arguments the class's own ``__init__`` received.
    """

    who: str
    inner: str | None
    nargs: int = 0
    rules: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class WarningEmitted:
    """A warning; ``optional`` where the rules allow but do not require it (once per process);
    ``when``: the rules that decide where in the trace it comes (empty: its ``rules``)."""

    category: str
    message: Message
    rules: tuple[str, ...] = field(default=(), compare=False)
    optional: bool = field(default=False, compare=False)
    when: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Installed:
    """Set-up step ``index`` was entered; ``current`` is the current mode inside it."""

    index: int
    current: str | None
    rules: tuple[str, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Settled:
    """The call has returned or raised; ``current`` is the current mode right then, inside the set-up."""

    current: str | None
    rules: tuple[str, ...] = field(default=(), compare=False)


Event = Union[HandlerRun, WarningEmitted, Installed, Constructed, Settled]

#: The rule an unlisted call breaks (an implementation hands a handler no call of its own).
UNLISTED_RULE = "TFM_REACH_010"


@dataclass(frozen=True)
class Returned:
    value: Value
    rules: tuple[str, ...] = field(default=(), compare=False)
    #: The exceptions the call would end with had a step the model decides gone the other way,
    #: each with the rules of that step (its ``rules``) where the model knows them better than
    #: ``rules``: a function whose has_torch_function guard is False, dispatched anyway, finds
    #: no handler and raises the 'no implementation found' TypeError with no types
    #: (:meth:`~spec.model.dispatch.Dispatch.runs_without_dispatching`). Empty: ``rules``.
    if_raised: tuple[Raised, ...] = field(default=(), compare=False)


@dataclass(frozen=True)
class Raised:
    """The scenario ended with an exception of class ``exc_type`` (by name)."""

    exc_type: str
    message: Message
    rules: tuple[str, ...] = field(default=(), compare=False)
    #: The rules a call that returns a value instead breaks, where the model knows better than
    #: ``rules``: it never reached the handler whose dispatch raises (a classmethod mode's
    #: reach rules), or an operator swallowed the exception that ends its expression
    #: (TFM_SYNTAX_002). Empty: ``rules``.
    if_returned: tuple[str, ...] = field(default=(), compare=False)


Outcome = Union[Returned, Raised]


@dataclass(frozen=True)
class Note:
    """A step of the prediction that no implementation can be observed doing (for ``explain``).

    ``no_handler``: the step decides that the call runs no handler (it does not dispatch), so
    a handler run observed right there breaks the note's rules.
    """

    text: str
    rules: tuple[str, ...] = ()
    no_handler: bool = False


@dataclass(frozen=True)
class Built:
    """Observed only: a tensor of the call (``x0``, ``x1``...) whose building by the suite,
    before any set-up step, ran something of the scenario (``events[first:end]``, a handler
    run or a warning) or raised (``raised``: the trace's outcome is that exception).

    ``how`` is the code that built it, as the snippet writes it (``tensor([1.0, -3.0])``,
    ``tensor([1.0, -3.0]).as_subclass(A)``)."""

    name: str
    how: str
    first: int
    end: int
    raised: bool = False


@dataclass(frozen=True)
class Unlisted:
    """A handler was handed a call of a function outside the scenario's vocabulary, one the
    scenario's code did not call by name: ``func`` names it as the implementation spells it
    (``Tensor.size``, ``Tensor.shape.__get__``, ``tensor``). The handler let it through
    unchanged (it ran the function) and recorded no event; ``at`` counts the events recorded
    before it (the first such call, where a trace counts ``count`` of them). ``made_by`` says
    which of the suite's own code made the call (the kernel of a Python function the scenario
    defines calls ``tensor``), ``None`` where the suite did not: then only the implementation
    can have made it (TFM_REACH_010)."""

    who: str
    role: Role
    func: str
    at: int
    made_by: str | None = None
    count: int = 1

    @property
    def key(self) -> tuple[str, str]:
        """Which handler was handed which function (what an excused divergence accepts)."""
        return (self.who, self.func)


def grouped(calls: list[Unlisted] | tuple[Unlisted, ...]) -> tuple[Unlisted, ...]:
    """``calls`` one entry per handler, function and maker: the first call's, counting all."""
    first: dict[tuple[str, str, str, str | None], Unlisted] = {}
    for call in calls:
        key = (call.who, call.role, call.func, call.made_by)
        seen = first.get(key)
        first[key] = call if seen is None else replace(seen, count=seen.count + call.count)
    return tuple(first.values())


@dataclass(frozen=True)
class Trace:
    """Observable events in order, the outcome, and the current mode once every set-up step has exited."""

    events: tuple[Event, ...]
    outcome: Outcome
    after: str | None
    notes: tuple[tuple[int, Note], ...] = field(default=(), compare=False)
    #: The rules that decide ``after`` (restoring the mode on every exit path).
    after_rules: tuple[str, ...] = field(default=(), compare=False)
    #: Observed only: warnings the implementation raised for its own reasons, as
    #: ``(category, first line)`` pairs (never compared; see conformance.target.noise).
    noise: tuple[tuple[str, str], ...] = field(default=(), compare=False)
    #: Observed only: the call's tensors whose building ran something or raised (never
    #: compared; a failure message says which of its events and its raise the suite caused).
    built: tuple[Built, ...] = field(default=(), compare=False)
    #: Observed: the calls a handler was handed of functions outside the scenario's
    #: vocabulary, one entry per handler, function and maker (the first call's place, and
    #: how many), in order. Predicted: the ``(who, func)`` pairs an excused divergence of
    #: TFM_REACH_008 accepts (conformance.judge.excusal.absorb); the model predicts none.
    unlisted: tuple[Unlisted, ...] = field(default=(), compare=False)

    def built_during(self, index: int | None) -> Built | None:
        """The tensor whose building recorded event ``index`` (``None``: raised the outcome)."""
        for built in self.built:
            if (built.raised if index is None else built.first <= index < built.end):
                return built
        return None

    def rules_exercised(self) -> frozenset[str]:
        """Every rule that decides some step of this trace."""
        found: set[str] = set(self.outcome.rules) | set(self.after_rules)
        if isinstance(self.outcome, Raised):
            found.update(r for rules in self.outcome.message.rules for r in rules)
        for event in self.events:
            found.update(event.rules)
            if isinstance(event, WarningEmitted):
                found.update(r for rules in event.message.rules for r in rules)
                found.update(event.when)
            if isinstance(event, HandlerRun):
                for _, rules in event.why:
                    found.update(rules)
        for _, note in self.notes:
            found.update(note.rules)
        return frozenset(found)
