"""The model of a call written as a syntactic form: ``x + y``, ``k + x``, ``-x``, ``x[k]``,
``x.real`` and the others of :data:`~spec.model.functions.FORMS` (TFM_SYNTAX_001,
TFM_SYNTAX_002, TFM_SYNTAX_004).

A form reaches dispatch as the Tensor callable it stands for (:data:`~spec.model.functions.FORMS`)
would, with the tensor first: its handlers are handed that callable (or one the form allows
instead) and the arguments in the form's order, and what they answer is the expression's value.
Two things are the form's own: a handler's exception comes out of the expression as itself
(TFM_SYNTAX_002, a ``TypeError`` included), and when every handler of an operator's dispatch
declines, the operator may give ``NotImplemented``, so Python raises a ``TypeError`` of its own
("unsupported operand type(s)"): the model predicts a ``TypeError`` and leaves its text open.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from .functions import FormInfo, handed_args, info_of
from .limits import Unspecified
from .raising import ModelRaise
from .trace import Message, Ref
from .values import ClassWorld, SymTensor, SymValue

__all__ = ["evaluate"]

#: The rules of an operator whose handlers all declined.
DECLINED = ("TFM_SYNTAX_002", "TFM_NOTIMPL_002")


#: The reflected methods Python's binary operators call on their right operand once the left
#: operand's method declines (returns NotImplemented): ``y.__rsub__(x)`` for ``x - y``.
REFLECTED_METHODS = frozenset(f"__r{op}__" for op in (
    "add", "sub", "mul", "truediv", "div", "floordiv", "mod", "pow", "matmul", "and", "or",
    "xor", "lshift", "rshift"))


class Dispatcher(Protocol):
    """What :func:`evaluate` needs of the engine."""

    depth: int
    form: tuple[int, FormInfo] | None
    value_rules: set[str]
    world: ClassWorld

    def _dispatch(self, func: str, args: list[SymValue], kwargs: dict[str, SymValue],
                  relevant: list[SymValue], python: bool, spread: bool = False) -> SymValue: ...


def evaluate(engine: Dispatcher, form: FormInfo, args: list[SymValue]) -> SymValue:
    """The value of ``form`` with the call's ``args`` (made at ``engine.depth``)."""
    saved = engine.form
    if form.swapped and _subclass_on_the_right(engine.world, args):
        # CPython calls the right operand's reflected comparison first: y.__gt__(x) for x < y.
        form = replace(form, handed=form.swapped[0], also=form.swapped[1:])
        args = [args[1], args[0]]
    engine.form = (engine.depth, form)
    try:
        handed: list[SymValue] = handed_args(form, args)
        info = info_of(form.handed)
        value = engine._dispatch(form.handed, handed, {}, info.relevant(handed, {}),
                                 info.path == "python")
    except ModelRaise as exc:
        if form.goes_on and exc.declined_at == engine.depth:
            # NotImplemented makes Python try x + y (or the reflected comparison, and for ==
            # then identity), a second dispatch; a TypeError does not.
            raise Unspecified(f"every handler of {form.name} declined") from None
        if form.operator and exc.declined_at == engine.depth:
            other = args[1] if form.kind == "infix" else None
            if (isinstance(other, SymTensor) and engine.world.is_tensor_class(other.cls)
                    and isinstance(args[0], SymTensor) and other.cls != args[0].cls):
                # Given NotImplemented, Python would try the other tensor's reflected method,
                # a second dispatch; given the TypeError, it would not: a MAY the model leaves.
                raise Unspecified(f"every handler of {form.name} declined, and the other "
                                  "operand is a tensor of another class") from None
            raise ModelRaise("TypeError", Message((Ref("text", "operator-declined"),)),
                             tuple(dict.fromkeys((*exc.rules, *DECLINED))),
                             if_returned=exc.if_returned or ("TFM_SYNTAX_002",)) from None
        if exc.declined_at == engine.depth:  # the form's own dispatch declined: its error
            raise
        # Anything else comes out of the expression as it is (a handler's TypeError included);
        # an operator that puts its own error in its place departs from the first character.
        message = exc.message
        if form.operator and message.parts and isinstance(message.parts[0], str):
            message = Message(message.parts, (("TFM_SYNTAX_002",), *message.rules[1:]))
        # A value instead: the form swallowed what ends its expression (unless the call never
        # reached the handler that raised, which the exception already says).
        if_returned = exc.if_returned or ("TFM_SYNTAX_002",)
        raise ModelRaise(exc.exc_type, message,
                         tuple(dict.fromkeys((*exc.rules, "TFM_SYNTAX_002"))),
                         exc.declined_at, if_returned) from None
    finally:
        engine.form = saved
    engine.value_rules.add(form.rule)
    if form.kind == "len":
        return _length(value)
    if form.kind == "builtin" and form.symbol == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            raise Unspecified("int(x) was answered with something other than an int")
        return value
    if form.kind == "assign":  # a statement: what the handler answered is dropped
        return None
    return value


def _subclass_on_the_right(world: ClassWorld, args: list[SymValue]) -> bool:
    """Whether the right operand is a tensor of a proper subclass of the left's class."""
    left, right = args[0], args[1]
    return (isinstance(left, SymTensor) and isinstance(right, SymTensor) and left.cls != right.cls
            and world.is_tensor_class(right.cls) and world.is_subclass(right.cls, left.cls))


def _length(value: SymValue) -> int:
    """What ``len`` makes of a ``__len__`` answer: a non-negative int is the length; Python
    raises a ValueError for a negative one (the rule: the answer is the value, as far as the
    syntax lets it be)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise Unspecified("len(x) was answered with something other than an int")
    if value < 0:
        raise ModelRaise("ValueError", Message(("__len__() should return >= 0",)),
                         ("TFM_SYNTAX_001",))
    return value
