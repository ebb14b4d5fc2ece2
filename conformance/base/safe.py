"""``str()`` and ``repr()`` of the implementation's objects, which may raise or lie.

An exception (or warning, or mode) of the implementation under test is data: its ``__str__``
or ``__repr__`` may raise, loop into a RecursionError, or return something that is not a
string. These helpers always return a ``str``, so that such an object fails the scenario
where it was met, like any other wrong answer, and never the suite's own code that prints it.
"""

from __future__ import annotations

__all__ = ["attribute_name", "function_name", "name_of", "repr_of", "text_of"]


def _fallback(obj: object, how: str, exc: BaseException | None) -> str:
    what = f"raised {name_of(type(exc))}" if exc is not None else "returned no str"
    return f"<{name_of(type(obj))} object whose {how}() {what}>"


def name_of(cls: object) -> str:
    """A class's ``__name__``, whatever its metaclass makes of it (plain attribute access and
    plain ``str`` checks: the runner records inside torch.compile, where Dynamo traces these)."""
    if not isinstance(cls, type):
        return "?"
    try:
        name = cls.__name__
    except Exception:
        return "?"
    return name if type(name) is str else "?"


def _plain(text: str) -> str:
    """``text`` as a plain ``str`` (a subclass's methods are the implementation's)."""
    return text if type(text) is str else str.__str__(text)


def text_of(obj: object) -> str:
    """``str(obj)``; if that raises or is no string, a text that says so."""
    try:
        text = str(obj)
    except Exception as exc:  # the implementation's __str__ may raise anything
        return _fallback(obj, "__str__", exc)
    return _plain(text) if isinstance(text, str) else _fallback(obj, "__str__", None)


def repr_of(obj: object) -> str:
    """``repr(obj)``; if that raises or is no string, a text that says so."""
    try:
        text = repr(obj)
    except Exception as exc:
        return _fallback(obj, "__repr__", exc)
    return _plain(text) if isinstance(text, str) else _fallback(obj, "__repr__", None)


def attribute_name(obj: object) -> str:
    """``obj.__name__`` as a text (``str(obj)`` where it has none); its attributes may raise."""
    try:
        name = getattr(obj, "__name__", obj)
    except Exception:
        name = obj
    return text_of(name)


#: Classes whose methods a name gives as ``Tensor.<name>`` (a native base class of Tensor) or
#: as a plain function (the class that holds a namespace's native functions).
_TENSOR_BASES = frozenset({"TensorBase", "_TensorBase", "Tensor"})
_FUNCTION_HOLDERS = frozenset({"_VariableFunctionsClass", "_VariableFunctions"})
#: The module an operator of torch's operator registry reports (``torch._ops.<namespace>``); a
#: user spells the operator ``torch.ops.<namespace>.<name>``. Its ``__qualname__`` is of no use: an
#: overload's is ``<namespace>::<name>.<overload>``, a packet's names the pybind11 function
#: record of the build (``pybind11_detail_function_record_v1_<abi>.<name>``).
_OPS_MODULE = "torch._ops."


def _attr(obj: object, attr: str) -> object:
    try:
        return getattr(obj, attr, None)
    except Exception:  # the implementation's object: its attributes may raise
        return None


def _text_attr(obj: object, attr: str) -> str | None:
    value = _attr(obj, attr)
    return value if type(value) is str else None


def function_name(func: object) -> str:
    """A callable handed to a handler named as a user of the namespace spells it:
    ``Tensor.size`` (a method of a native base class of Tensor), ``Tensor.shape.__get__`` (a
    property's getter), ``tensor`` (a function), ``ops.profiler._record_function_enter_new`` (an
    operator of torch's registry, overload included where it has one); ``<tuple>`` for what is
    not callable. Only plain attribute reads with ``str`` checks: its attributes may raise or
    lie."""
    if not callable(func):
        return f"<{name_of(type(func))}>"
    name = _text_attr(func, "__name__") or "?"
    module = _text_attr(func, "__module__")
    if module is not None and module.startswith(_OPS_MODULE) and len(module) > len(_OPS_MODULE):
        return f"ops.{module[len(_OPS_MODULE):]}.{name}"
    if name in ("__get__", "__set__", "__delete__"):
        descriptor = _attr(func, "__self__")
        attr = _text_attr(descriptor, "__name__")
        if attr is not None:
            owner = name_of(_attr(descriptor, "__objclass__"))
            owner = "Tensor" if owner in _TENSOR_BASES else owner
            return f"{owner}.{attr}.{name}"
    qualname = _text_attr(func, "__qualname__") or name
    owner, _, rest = qualname.rpartition(".")
    if not owner or owner in _FUNCTION_HOLDERS:
        return rest or name
    return f"Tensor.{rest}" if owner in _TENSOR_BASES else qualname
