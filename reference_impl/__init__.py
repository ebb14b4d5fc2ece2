"""A pure-Python torch-like namespace implementing the April-2022 ``__torch_function__`` modes."""

from __future__ import annotations

__version__ = "0.1.0"
#: The release whose error and warning texts this implements (spec/texts.toml): the PR's.
__tfmode_release__ = "pr75154"

from reference_impl import _C, functional, overrides
from reference_impl._functions import abs, add, cat, div, max, mean, mul, neg, ones, sub, sum
from reference_impl._tensor import Tensor, tensor
from reference_impl.functional import split

__all__ = [
    "_C",
    "Tensor",
    "abs",
    "add",
    "cat",
    "div",
    "functional",
    "max",
    "mean",
    "mul",
    "neg",
    "ones",
    "overrides",
    "split",
    "sub",
    "sum",
    "tensor",
]
