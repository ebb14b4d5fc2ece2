"""The pure-Python Tensor: a list of floats plus the default ``__torch_function__``."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from reference_impl import _C
from reference_impl._dispatch import dispatch
from reference_impl._kernels import (
    abs_kernel,
    add_in_place_kernel,
    add_kernel,
    data_of,
    div_kernel,
    eq_kernel,
    floordiv_kernel,
    ge_kernel,
    gt_kernel,
    int_kernel,
    le_kernel,
    lt_kernel,
    mul_kernel,
    ne_kernel,
    neg_kernel,
    pow_kernel,
    rsub_kernel,
    sub_kernel,
    values,
    wrap,
)

__all__ = ["Tensor", "tensor"]

_T = TypeVar("_T", bound="Tensor")


class Tensor:
    """A one-dimensional tensor of floats; subclass it and define ``__torch_function__``."""

    _data: list[float]

    def __init__(self, data: Iterable[float] | Tensor | None = None) -> None:
        if data is None:
            self._data = []
        elif isinstance(data, Tensor):
            self._data = list(data._data)
        else:
            self._data = [float(value) for value in data]

    @classmethod
    def __torch_function__(
        cls,
        func: Callable[..., Any],
        types: tuple[type, ...],
        args: tuple[Any, ...] = (),
        kwargs: dict[str, Any] | None = None,
    ) -> Any:
        """Run ``func`` with subclass handling disabled and return tensors as ``cls``."""
        if kwargs is None:
            kwargs = {}
        for tp in types:
            if not issubclass(cls, tp):
                return NotImplemented
        with _C.DisableTorchFunction():
            return _convert(func(*args, **kwargs), cls)

    def as_subclass(self, cls: type[_T]) -> _T:
        """The same data (shared, not copied) as an instance of ``cls``; not dispatched."""
        if not issubclass(cls, Tensor):
            raise TypeError(f"as_subclass expects a subclass of Tensor, got {cls!r}")
        result = cls.__new__(cls)
        result._data = self._data
        return result

    def tolist(self) -> list[float]:
        """A copy of the data; not dispatched."""
        return list(self._data)

    def __repr__(self) -> str:
        name = "tensor" if type(self) is Tensor else type(self).__name__
        return f"{name}({self._data!r})"

    def add(self, *args: Any, **kwargs: Any) -> Any:
        """``add(other, *, alpha=1)``: native method; handlers see ``func is Tensor.add``."""
        return dispatch(Tensor.add, "reference_impl.Tensor.add", add_kernel, (self, *args), kwargs)

    def sub(self, *args: Any, **kwargs: Any) -> Any:
        """``sub(other, *, alpha=1)``: native method; handlers see ``func is Tensor.sub``."""
        return dispatch(Tensor.sub, "reference_impl.Tensor.sub", sub_kernel, (self, *args), kwargs)

    def mul(self, *args: Any, **kwargs: Any) -> Any:
        """``mul(other)``: native method; handlers see ``func is Tensor.mul``."""
        return dispatch(Tensor.mul, "reference_impl.Tensor.mul", mul_kernel, (self, *args), kwargs)

    def add_(self, *args: Any, **kwargs: Any) -> Any:
        """``add_(other, *, alpha=1)``: in place, giving the tensor itself; handlers see
        ``func is Tensor.add_``."""
        return dispatch(Tensor.add_, "reference_impl.Tensor.add_", add_in_place_kernel,
                        (self, *args), kwargs)

    def lt(self, *args: Any, **kwargs: Any) -> Any:
        """``lt(other)``: 1.0 where ``self < other``, else 0.0; handlers see ``func is Tensor.lt``."""
        return dispatch(Tensor.lt, "reference_impl.Tensor.lt", lt_kernel, (self, *args), kwargs)

    def gt(self, *args: Any, **kwargs: Any) -> Any:
        """``gt(other)``: 1.0 where ``self > other``, else 0.0; handlers see ``func is Tensor.gt``."""
        return dispatch(Tensor.gt, "reference_impl.Tensor.gt", gt_kernel, (self, *args), kwargs)

    def ne(self, *args: Any, **kwargs: Any) -> Any:
        """``ne(other)``: 1.0 where ``self != other``, else 0.0; handlers see ``func is Tensor.ne``."""
        return dispatch(Tensor.ne, "reference_impl.Tensor.ne", ne_kernel, (self, *args), kwargs)

    def ge(self, *args: Any, **kwargs: Any) -> Any:
        """``ge(other)``: 1.0 where ``self >= other``, else 0.0; handlers see ``func is Tensor.ge``."""
        return dispatch(Tensor.ge, "reference_impl.Tensor.ge", ge_kernel, (self, *args), kwargs)

    def le(self, *args: Any, **kwargs: Any) -> Any:
        """``le(other)``: 1.0 where ``self <= other``, else 0.0; handlers see ``func is Tensor.le``."""
        return dispatch(Tensor.le, "reference_impl.Tensor.le", le_kernel, (self, *args), kwargs)

    def div(self, *args: Any, **kwargs: Any) -> Any:
        """``div(other)``: native method; handlers see ``func is Tensor.div``."""
        return dispatch(Tensor.div, "reference_impl.Tensor.div", div_kernel, (self, *args), kwargs)

    def abs(self, *args: Any, **kwargs: Any) -> Any:
        """``abs()``: native method; handlers see ``func is Tensor.abs`` (``abs(x)`` too)."""
        return dispatch(Tensor.abs, "reference_impl.Tensor.abs", abs_kernel, (self, *args), kwargs)

    def neg(self, *args: Any, **kwargs: Any) -> Any:
        """``neg()``: native method; handlers see ``func is Tensor.neg``."""
        return dispatch(Tensor.neg, "reference_impl.Tensor.neg", neg_kernel, (self, *args), kwargs)

    @property
    def real(self) -> Any:
        """The real part (the values themselves): a dispatched property, whose handlers see
        ``func`` as the property's getter, ``Tensor.real.__get__``, and ``args == (x,)``."""
        return dispatch(Tensor.real.__get__, "reference_impl.Tensor.real", _real_kernel, (self,), {})

    @property
    def grad(self) -> Any:
        """The gradient: a dispatched property (handlers see ``Tensor.grad.__get__``); no
        gradient is ever computed here, so it is ``None``."""
        return dispatch(Tensor.grad.__get__, "reference_impl.Tensor.grad", _grad_kernel, (self,), {})

    @property
    def data(self) -> Any:
        """The values as a new plain tensor sharing them: a dispatched property (handlers see
        ``Tensor.data.__get__``)."""
        return dispatch(Tensor.data.__get__, "reference_impl.Tensor.data", _data_kernel, (self,), {})

    # The operators: an operand the method does not take gives NotImplemented, so Python can
    # try the reflected one (as in torch); a TypeError of a handler propagates as itself
    # (TFM_SYNTAX_002). Handlers see the method the operator spells (x - y: Tensor.sub).

    def __add__(self, other: Any) -> Any:
        return _operator(Tensor.add, "add", add_kernel, self, other)

    def __radd__(self, other: Any) -> Any:
        return _operator(Tensor.add, "add", add_kernel, self, other)

    def __sub__(self, other: Any) -> Any:
        return _operator(Tensor.sub, "sub", sub_kernel, self, other)

    def __mul__(self, other: Any) -> Any:
        return _operator(Tensor.mul, "mul", mul_kernel, self, other)

    def __rmul__(self, other: Any) -> Any:
        return _operator(Tensor.mul, "mul", mul_kernel, self, other)

    def __iadd__(self, other: Any) -> Any:
        return _operator(Tensor.add_, "add_", add_in_place_kernel, self, other)

    def __truediv__(self, other: Any) -> Any:
        return _operator(Tensor.div, "div", div_kernel, self, other)

    # Operators written in Python, as torch's: on the Python path, with both operands as the
    # relevant arguments; handlers see the operator's own method (x ** y: Tensor.__pow__).

    def __pow__(self, other: Any) -> Any:
        return _python_operator(Tensor.__pow__, pow_kernel, self, other)

    def __floordiv__(self, other: Any) -> Any:
        return _python_operator(Tensor.__floordiv__, floordiv_kernel, self, other)

    def __rsub__(self, other: Any) -> Any:
        return _python_operator(Tensor.__rsub__, rsub_kernel, self, other)

    def __abs__(self) -> Any:
        return self.abs()

    def __int__(self) -> int:
        """``int(x)``: dispatched, its handlers see ``func is Tensor.__int__``; ``int`` checks
        that they answer an int."""
        return dispatch(Tensor.__int__, "reference_impl.Tensor.__int__", int_kernel,  # type: ignore[no-any-return]
                        (self,), {})

    def __reversed__(self) -> Any:
        """``reversed(x)``: on the Python path, as torch's: handlers see ``func is
        Tensor.__reversed__``; what they answer is the value."""
        from reference_impl.overrides import handle_torch_function, has_torch_function_unary

        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__reversed__, (self,), self)
        return wrap(list(reversed(self._data)))

    # Comparisons, as in torch: x < y is Tensor.lt, x > y Tensor.gt, x != y Tensor.ne, x >= y
    # Tensor.ge, x <= y Tensor.le and x == y Tensor.__eq__ itself; Python calls a right operand
    # of a proper subclass first (its reflected method: y.__le__(x) for x >= y).

    def __lt__(self, other: Any) -> Any:
        return _operator(Tensor.lt, "lt", lt_kernel, self, other)

    def __gt__(self, other: Any) -> Any:
        return _operator(Tensor.gt, "gt", gt_kernel, self, other)

    def __eq__(self, other: object) -> Any:
        return _operator(Tensor.__eq__, "__eq__", eq_kernel, self, other)

    def __ne__(self, other: object) -> Any:
        return _operator(Tensor.ne, "ne", ne_kernel, self, other)

    def __ge__(self, other: Any) -> Any:
        return _operator(Tensor.ge, "ge", ge_kernel, self, other)

    def __le__(self, other: Any) -> Any:
        return _operator(Tensor.le, "le", le_kernel, self, other)

    __hash__ = object.__hash__  # by identity, as a tensor's (defining __eq__ would unset it)

    def __setitem__(self, index: Any, value: Any) -> None:
        """``x[k] = c``: dispatched, its handlers see ``func is Tensor.__setitem__`` and
        ``args == (x, k, c)``; what they answer is dropped (a statement has no value)."""
        dispatch(Tensor.__setitem__, "reference_impl.Tensor.__setitem__", _setitem_kernel,
                 (self, index, value), {})

    def __len__(self) -> int:
        """``len(x)``: on the Python path, as torch's: handlers see ``func is Tensor.__len__``
        and ``args == (x,)``; ``len`` checks what they answer."""
        from reference_impl.overrides import handle_torch_function, has_torch_function_unary

        if has_torch_function_unary(self):
            return handle_torch_function(Tensor.__len__, (self,), self)  # type: ignore[no-any-return]
        return len(self._data)

    def __neg__(self) -> Any:
        # -x is x.neg(): its handlers see func is Tensor.neg.
        return dispatch(Tensor.neg, "reference_impl.Tensor.neg", neg_kernel, (self,), {})

    def __getitem__(self, index: Any) -> Any:
        """``x[k]``: dispatched, its handlers see ``func is Tensor.__getitem__`` and
        ``args == (x, k)``, the index as written; an int (alone, or in a one-item tuple or
        list) gives a one-element tensor, a slice of ints those elements, ``None`` and ``...``
        the same values."""
        return dispatch(Tensor.__getitem__, "reference_impl.Tensor.__getitem__", _getitem_kernel,
                        (self, index), {})


_C._set_tensor_class(Tensor)


def _operator(method: Callable[..., Any], name: str, kernel: Callable[..., Tensor],
              self: Tensor, other: Any) -> Any:
    """``method`` for an operator: when every handler of this dispatch declines,
    NotImplemented (Python then tries the other operand's reflected method), as in torch; a
    handler's own TypeError propagates (TFM_SYNTAX_002)."""
    if not _operand(other):
        return NotImplemented
    return dispatch(method, f"reference_impl.Tensor.{name}", kernel, (self, other), {},
                    declined=NotImplemented)


def _python_operator(method: Callable[..., Any], kernel: Callable[..., Tensor], self: Tensor,
                     other: Any) -> Any:
    """``method`` of an operator written in Python: NotImplemented for an operand it does not
    take; else ``handle_torch_function`` when either operand has a handler or a mode is
    current (a handler's TypeError propagates, TFM_SYNTAX_002), the kernel otherwise."""
    from reference_impl.overrides import handle_torch_function, has_torch_function

    if not _operand(other):
        return NotImplemented
    if has_torch_function((self, other)):
        return handle_torch_function(method, (self, other), self, other)
    return kernel(self, other)


def _getitem_kernel(input: Any, index: Any) -> Tensor:
    data = data_of(input)
    if index is None or index is Ellipsis:
        return wrap(list(data))
    if type(index) is slice and all(
            end is None or type(end) is int for end in (index.start, index.stop, index.step)):
        return wrap(list(data[index]))
    if type(index) in (tuple, list) and len(index) == 1:
        index = index[0]
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError("only an int (alone, or in a one-item tuple or list), a slice of ints, "
                        "None or ... indexes a "
                        f"tensor here, not {type(index).__name__}")
    if not -len(data) <= index < len(data):
        raise IndexError(f"index {index} is out of range for {len(data)} elements")
    return wrap([data[index]])


def _setitem_kernel(input: Any, index: Any, value: Any) -> None:
    data = data_of(input)
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(f"only an int indexes a tensor in an assignment here, not {type(index).__name__}")
    if not -len(data) <= index < len(data):
        raise IndexError(f"index {index} is out of range for {len(data)} elements")
    data[index] = values(value, 1)[0]


def _real_kernel(input: Any) -> Tensor:
    """The real part of real values: the tensor itself (as in torch), its class kept."""
    data_of(input)
    return input  # type: ignore[no-any-return]


def _grad_kernel(input: Any) -> None:
    data_of(input)


def _data_kernel(input: Any) -> Tensor:
    return wrap(data_of(input))


def _operand(other: Any) -> bool:
    """Whether ``other`` is an operand of the arithmetic operators: a tensor, a number, or an
    object with a ``__torch_function__`` (its handler decides)."""
    return isinstance(other, (Tensor, int, float)) or hasattr(type(other), "__torch_function__")


def tensor(data: Iterable[float]) -> Tensor:
    """A plain Tensor holding ``data`` as floats; not dispatched."""
    return Tensor(data)


def _convert(result: Any, cls: type[Tensor]) -> Any:
    """Turn tensor results into ``cls`` instances, looking inside tuples and lists."""
    if isinstance(result, Tensor) and not isinstance(result, cls):
        return result.as_subclass(cls)
    if isinstance(result, (tuple, list)):
        return type(result)(_convert(item, cls) for item in result)
    return result
