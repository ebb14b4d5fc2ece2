"""reference_impl is a 2022-generation torch-like namespace: every name the suite requires."""

from __future__ import annotations

import importlib
import inspect
import textwrap
from collections.abc import Iterator
from typing import Any

import pytest

import reference_impl as torch


@pytest.fixture(autouse=True)
def _clean_thread_state() -> Iterator[None]:
    assert torch._C._get_torch_function_mode() is None
    yield
    assert torch._C._get_torch_function_mode() is None


EVERY_GENERATION = [
    "Tensor",
    "tensor",
    "Tensor.as_subclass",
    "Tensor.tolist",
    "Tensor.__torch_function__",
    "_C._disabled_torch_function_impl",
    "_C.DisableTorchFunction",
    "overrides.TorchFunctionMode",
    "overrides.BaseTorchFunctionMode",
    "overrides.handle_torch_function",
    "overrides.has_torch_function",
    "overrides.has_torch_function_unary",
    "overrides.has_torch_function_variadic",
    "add",
    "sub",
    "mul",
    "div",
    "max",
    "neg",
    "mean",
    "cat",
    "ones",
    "split",
    "Tensor.add",
    "Tensor.neg",
    "Tensor.__add__",
]
ONLY_2022 = [
    "overrides.TorchFunctionModeMeta",
    "overrides.push_torch_function_mode",
    "overrides.enable_torch_function_mode",
    "_C._get_torch_function_mode",
    "_C._set_torch_function_mode",
]
ONLY_STACK = [
    "overrides.TorchFunctionMode.__enter__",
    "overrides.TorchFunctionMode.__exit__",
    "_C._len_torch_function_stack",
    "overrides._get_current_function_mode_stack",
    "_C.DisableTorchFunctionSubclass",
    "_C._push_on_torch_function_stack",
    "_C._pop_torch_function_stack",
    "_C._get_function_stack_at",
    "_C._is_torch_function_mode_enabled",
]


def resolve(dotted: str) -> Any:
    """Follow attribute access from the top module, as the conformance suite does."""
    obj: Any = torch
    for part in dotted.split("."):
        obj = getattr(obj, part)
    return obj


def has(dotted: str) -> bool:
    try:
        resolve(dotted)
    except AttributeError:
        return False
    return True


@pytest.mark.rule("TFM_ARGS_001", "TFM_REACH_003")
@pytest.mark.parametrize("name", EVERY_GENERATION)
def test_every_generation_name_exists(name: str) -> None:
    assert has(name)
    assert callable(resolve(name))


@pytest.mark.rule("TFM_PUSH_001", "TFM_ENABLE_001", "TFM_ERROR_006")
@pytest.mark.parametrize("name", ONLY_2022)
def test_2022_name_exists(name: str) -> None:
    assert has(name)
    assert callable(resolve(name))


@pytest.mark.rule("TFM_PUSH_001")
@pytest.mark.parametrize("name", ONLY_STACK)
def test_stack_generation_name_absent(name: str) -> None:
    assert not has(name)


@pytest.mark.rule("TFM_PUSH_001", "TFM_REACH_003")
def test_module_shape() -> None:
    assert torch.__all__ == sorted(torch.__all__, key=lambda n: (not n.startswith("_"), n))
    for name in torch.__all__:
        assert hasattr(torch, name), name
    assert torch.overrides is importlib.import_module("reference_impl.overrides")
    assert torch._C is importlib.import_module("reference_impl._C")
    assert isinstance(torch.overrides.TorchFunctionMode, torch.overrides.TorchFunctionModeMeta)
    assert issubclass(torch.overrides.BaseTorchFunctionMode, torch.overrides.TorchFunctionMode)
    # The default handler is a classmethod of Tensor.
    handler = torch.Tensor.__torch_function__
    assert inspect.ismethod(handler)
    assert handler.__self__ is torch.Tensor
    # split is written in Python; the natives are not (they dispatch in the core).
    assert torch.split.__module__ == "reference_impl.functional"


@pytest.mark.rule("TFM_SUBMODE_003")
def test_tensor_basics() -> None:
    class Sub(torch.Tensor):
        pass

    x = torch.tensor([1, 2.5])
    assert type(x) is torch.Tensor
    assert x.tolist() == [1.0, 2.5]
    s = x.as_subclass(Sub)
    assert type(s) is Sub
    assert s.tolist() == [1.0, 2.5]
    assert torch.Tensor().tolist() == []
    # The kernels compute on the data and always give plain tensors.
    y = torch.tensor([4.0, 2.0])
    assert torch.add(x, y, alpha=2).tolist() == [9.0, 6.5]
    assert torch.sub(x, y, alpha=2).tolist() == [-7.0, -1.5]
    assert torch.mul(x, y).tolist() == [4.0, 5.0]
    assert torch.div(y, x).tolist() == [4.0, 0.8]
    assert torch.max(x, y).tolist() == [4.0, 2.5]
    assert torch.neg(x).tolist() == [-1.0, -2.5]
    assert torch.mean(y).tolist() == [3.0]
    assert torch.cat([x, y]).tolist() == [1.0, 2.5, 4.0, 2.0]
    assert torch.cat((x,)).tolist() == [1.0, 2.5]
    assert torch.ones(2, 3).tolist() == [1.0] * 6
    assert torch.ones().tolist() == [1.0]
    assert [c.tolist() for c in torch.split(torch.tensor([1, 2, 3]), 2)] == [[1.0, 2.0], [3.0]]
    assert x.add(y).tolist() == [5.0, 4.5]
    assert (x + y).tolist() == [5.0, 4.5]
    assert (1 + x).tolist() == [2.0, 3.5]
    assert x.neg().tolist() == [-1.0, -2.5]
    assert type(torch.add(s, s)) is Sub  # the default handler converts back to Sub


SNIPPET_1_12 = """
import functools

import reference_impl as torch
from reference_impl.overrides import (
    TorchFunctionMode,
    enable_torch_function_mode,
    push_torch_function_mode,
)

log = []


class Logger(TorchFunctionMode):
    def __init__(self, name):
        self.name = name

    def __torch_function__(self, func, types, args=(), kwargs=None):
        if kwargs is None:
            kwargs = {}
        log.append(f"{self.name}:{func.__name__}")
        return func(*args, **kwargs)


class Constant(TorchFunctionMode):
    def __init__(self, value):
        self.value = value

    def __torch_function__(self, func, types, args=(), kwargs=None):
        log.append(f"constant:{func.__name__}")
        return self.value


x = torch.tensor([1.0, 2.0])
with push_torch_function_mode(functools.partial(Logger, "outer")):
    with push_torch_function_mode(functools.partial(Logger, "inner")) as inner:
        y = torch.add(x, x, alpha=2)
        z = x.neg()
        pieces = torch.split(x, 1)
        assert torch._C._get_torch_function_mode() is inner
        with enable_torch_function_mode(Constant(-1, inner=inner), replace=inner):
            w = torch.mean(x)
        assert torch._C._get_torch_function_mode() is inner
assert torch._C._get_torch_function_mode() is None
"""


@pytest.mark.rule("TFM_PUSH_001", "TFM_PUSH_004", "TFM_ENABLE_005", "TFM_REENTRY_004")
def test_torch_1_12_snippet_runs_unchanged() -> None:
    namespace: dict[str, Any] = {"__name__": "snippet"}
    exec(compile(textwrap.dedent(SNIPPET_1_12), "<snippet>", "exec"), namespace)
    assert namespace["y"].tolist() == [3.0, 6.0]
    assert namespace["z"].tolist() == [-1.0, -2.0]
    assert [p.tolist() for p in namespace["pieces"]] == [[1.0], [2.0]]
    assert namespace["w"] == -1
    # split's kernel calls no natives, so each mode sees split once.
    assert namespace["log"] == [
        "inner:add",
        "outer:add",
        "inner:neg",
        "outer:neg",
        "inner:split",
        "outer:split",
        "constant:mean",
    ]


@pytest.mark.parametrize(("name", "left", "right"), [
    ("add", [2.0, 3.0], [5.0, 6.0]), ("sub", [0.0, -1.0], [-3.0, -2.0]),
    ("mul", [1.0, 2.0], [4.0, 8.0]), ("div", [1.0, 0.5], [0.25, 0.5]),
    ("max", [1.0, 2.0], [4.0, 4.0]),
])
def test_a_one_element_operand_broadcasts_on_either_side(name: str, left: list[float],
                                                         right: list[float]) -> None:
    # As torch does: add(tensor([1.]), other=tensor([1., 2.])) is [2., 3.].
    import reference_impl as ns

    func = getattr(ns, name)
    assert func(ns.tensor([1.0]), other=ns.tensor([1.0, 2.0])).tolist() == left
    assert func(ns.tensor([1.0, 2.0]), ns.tensor([4.0])).tolist() == right
