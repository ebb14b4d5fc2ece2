"""Arguments for a listed callable, built from its signature.

Runs in the implementation's sandbox. Each required parameter of the callable's signature (its
template's, when the listing gives one) becomes a *slot*: a tensor, a list of two tensors, or a
plain value. The kind of each comes, in this order, from the implementation's operator schema
(torch: ``_C._jit_get_schemas_for_operator``), the callable's annotations, and the parameter's
name. A construction is then tried; when the implementation rejects it with an argument
``TypeError`` that names a parameter and the type it wants, that slot is rebuilt and the call
tried again, a few times at most. Tensors are placeholders: the probe puts a real tensor or a
duck-typed object in each tensor slot.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

__all__ = ["Construction", "construct", "refine"]

#: A slot: ("tensor",), ("tensors",) (a list of two), or ("value", v).
Slot = tuple[Any, ...]
TENSOR: Slot = ("tensor",)
TENSORS: Slot = ("tensors",)

#: Parameter names that hold a tensor when nothing else says (torch's own spellings).
_TENSOR_NAMES = re.compile(
    r"^(input\d?|self|other|tensor\d?|x\d?|y|mat\d?|vec\d?|weight.*|bias.*|target|grad.*|src|"
    r"index|mask|values?|indices|batch\d|end|exponent|[ABab]|LU.*|query|key|value|log_probs|"
    r"targets|running_.*|h[0x]|c[0x]|anchor|positive|negative|boundaries|sorted_sequence|"
    r"elements|test_elements|condition|input_lengths|target_lengths|offsets|theta|grid|"
    r"scales?|zero_points?|counts?|angle|abs|mean|std|invstd|sum_dy|sum_dy_xmu|min|max)$")
_LIST_NAMES = frozenset({"tensors", "inputs", "operands", "tensor_list", "matrices"})
#: What an argument error says a parameter must be: ``argument 'x' (position 2) must be Tensor, not int``.
#: Optional tensor parameters tried per callable, at most (a few functions declare dozens).
MAX_OPTIONAL = 4
_WANTS = re.compile(r"argument '(\w+)' \(position (\d+)\) must be ([^,]+?), not ")


@dataclass(frozen=True)
class Construction:
    """Positional slots (with their parameter names) and keyword slots."""

    names: tuple[str, ...]
    positional: tuple[Slot, ...]
    keywords: tuple[tuple[str, Slot], ...] = ()
    #: A Tensor method: the first slot is the tensor it is called on, and the positions an
    #: argument error counts leave it out.
    method: bool = False
    #: Optional parameters declared a tensor (``weight=``; not ``out=``, which a template may
    #: list where the callable takes none), at most MAX_OPTIONAL: left out of the call.
    optional: tuple[str, ...] = ()

    def tensor_slots(self) -> int:
        return sum(s in (TENSOR, TENSORS) for s in (*self.positional, *(s for _, s in self.keywords)))

    def build(self, make: Callable[[], Any]) -> tuple[tuple[Any, ...], dict[str, Any]]:
        """The arguments, each tensor slot filled by ``make()``."""
        def fill(slot: Slot) -> Any:
            if slot == TENSOR:
                return make()
            if slot == TENSORS:
                return [make(), make()]
            return slot[1]
        return tuple(fill(s) for s in self.positional), {k: fill(s) for k, s in self.keywords}


def _schema_types(ns: Any, func: Any, required: list[str]) -> dict[str, str]:
    lookup = getattr(getattr(ns, "_C", None), "_jit_get_schemas_for_operator", None)
    name = getattr(func, "__name__", None)
    if not callable(lookup) or not isinstance(name, str):
        return {}
    try:
        schemas = list(lookup(f"aten::{name}"))
    except Exception:  # no such operator, or a lookup that fails: the other sources decide
        return {}
    types: dict[str, str] = {}
    for schema in schemas:  # the overloads whose parameters include every required one
        arguments = {str(a.name): str(a.type) for a in getattr(schema, "arguments", ())}
        if "self" in arguments and "input" in required and "input" not in arguments:
            arguments["input"] = arguments.pop("self")  # torch.f(input, ...) is aten::f(self, ...)
        if set(required) <= set(arguments):
            for name, kind in arguments.items():
                types.setdefault(name, kind)
    return types


def _annotations(func: Any) -> dict[str, str]:
    """Each annotated parameter's annotation as text: a class by its name, anything else
    (``typing.Optional[torch.Tensor]``, ``torch.Tensor | None``, a string) written out whole,
    its names without their modules (a typing construct's own ``__name__`` is only
    ``"Optional"``)."""
    try:
        parameters = inspect.signature(func).parameters
    except (TypeError, ValueError):
        return {}
    return {n: _annotation_text(p.annotation) for n, p in parameters.items()
            if p.annotation is not inspect.Parameter.empty}


def _annotation_text(annotation: Any) -> str:
    if isinstance(annotation, str):
        return annotation
    if isinstance(annotation, type):
        return annotation.__name__
    try:
        text = str(annotation)
    except Exception:  # an annotation object of the implementation's that cannot be shown
        return ""
    return re.sub(r"\b(?:\w+\.)+(?=\w)", "", text)  # Optional[List[Tensor]], not typing.List[torch.Tensor]


def _value_for(wanted: str, ns: Any) -> Slot:
    """The slot for a parameter whose type (schema, annotation or error text) is ``wanted``."""
    return _recognised(wanted, ns) or ("value", 1)


def _recognised(wanted: str, ns: Any) -> Slot | None:
    """The slot for type ``wanted``; ``None`` when the text names no type this knows."""
    text = wanted.replace("typing.", "").replace("Optional[", "").lower()
    if re.search(r"tensor\??\[\]|list\[tensor|sequence\[tensor|tuple\[tensor|tuple of tensors", text):
        return TENSORS
    if "tensor" in text:
        return TENSOR
    if re.search(r"int\[|symint\[|list\[int|tuple\[int|tuple of ints|size", text):
        return ("value", [1])
    if "dtype" in text or "scalartype" in text:
        return ("value", getattr(ns, "float32", None))
    if "bool" in text:
        return ("value", False)
    if "float" in text or "scalar" in text or "number" in text:
        return ("value", 1.0)
    if "str" in text:
        return ("value", "mean")
    if "device" in text:
        return ("value", "cpu")
    if re.search(r"\bint\b|symint|long", text):
        return ("value", 1)
    return None


def _declared_tensor(name: str, schema: dict[str, str], annotated: dict[str, str], ns: Any) -> bool:
    """Whether the operator schema or the annotations declare ``name`` one tensor (not a list
    of them, ``List[torch.Tensor]``, nor a callable taking them); its name alone does not."""
    def one(text: str) -> bool:
        text = text.replace("torch.", "")
        return "callable" not in text.lower() and _recognised(text, ns) == TENSOR
    return any(name in source and one(source[name]) for source in (schema, annotated))


def _slot_for(name: str, schema: dict[str, str], annotated: dict[str, str], ns: Any) -> Slot:
    for source in (schema, annotated):
        found = _recognised(source[name], ns) if name in source else None
        if found is not None:
            return found
    if name in _LIST_NAMES:
        return TENSORS
    if _TENSOR_NAMES.match(name):
        return TENSOR
    return ("value", 1)


def construct(func: Any, template: Any, ns: Any, method: bool = False) -> Construction | None:
    """The first construction for ``func``; ``None`` when its signature cannot be read."""
    try:
        parameters = list(inspect.signature(template if template is not None else func).parameters.values())
    except (TypeError, ValueError):
        return None
    required = [p.name for p in parameters if p.default is inspect.Parameter.empty
                and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    schema, annotated = _schema_types(ns, func, required), _annotations(func)
    names: list[str] = []
    positional: list[Slot] = []
    keywords: list[tuple[str, Slot]] = []
    optional: list[str] = []
    for p in parameters:
        if p.kind == p.VAR_POSITIONAL:
            if p.name in _LIST_NAMES or p.name in ("args", "tensors"):
                names += [p.name, p.name]
                positional += [TENSOR, TENSOR]
            elif p.name in ("size", "shape", "dims", "sizes"):
                names.append(p.name)
                positional.append(("value", 1))
            continue
        if p.kind == p.VAR_KEYWORD:
            continue
        if p.default is not inspect.Parameter.empty:
            if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "out" and \
                    len(optional) < MAX_OPTIONAL and _declared_tensor(p.name, schema, annotated, ns):
                optional.append(p.name)
            continue
        slot = TENSOR if method and not positional else _slot_for(p.name, schema, annotated, ns)
        if p.kind == p.KEYWORD_ONLY:
            keywords.append((p.name, slot))
        else:
            names.append(p.name)
            positional.append(slot)
    if method and not positional:
        names, positional = ["self"], [TENSOR]
    return Construction(tuple(names), tuple(positional), tuple(keywords), method, tuple(optional))


def refine(construction: Construction, message: str, ns: Any) -> Construction | None:
    """The construction with the slot an argument error names rebuilt as it asks; ``None``
    when the error names no slot, or asks for what the slot already holds."""
    found = _WANTS.search(message)
    if found is None:
        return None
    name, position, wanted = found.group(1), int(found.group(2)), found.group(3)
    slot = _value_for(wanted, ns)
    for i, (key, old) in enumerate(construction.keywords):
        if key == name:
            if old == slot:
                return None
            keywords = list(construction.keywords)
            keywords[i] = (key, slot)
            return replace(construction, keywords=tuple(keywords))
    index = construction.names.index(name) if name in construction.names else \
        position if construction.method else position - 1
    if construction.method and index == 0:
        return None  # the tensor a method is called on stays a tensor
    if not 0 <= index < len(construction.positional) or construction.positional[index] == slot:
        return None
    positional = list(construction.positional)
    positional[index] = slot
    return replace(construction, positional=tuple(positional))
