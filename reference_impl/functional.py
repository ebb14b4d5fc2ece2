"""Functions written in Python: they dispatch through handle_torch_function."""

from __future__ import annotations

from typing import Any

from reference_impl._kernels import data_of, wrap
from reference_impl.overrides import handle_torch_function, has_torch_function_unary

__all__ = ["split"]


def split(tensor: Any, split_size: int | list[int]) -> Any:
    """Split ``tensor`` into chunks of ``split_size`` elements (or of the listed sizes)."""
    if has_torch_function_unary(tensor):
        return handle_torch_function(split, (tensor,), tensor, split_size)
    data = data_of(tensor)
    if isinstance(split_size, int):
        if split_size <= 0:
            raise ValueError(f"split expects split_size to be positive, got {split_size}")
        starts = range(0, len(data), split_size)
        return tuple(wrap(data[start : start + split_size]) for start in starts)
    if sum(split_size) != len(data):
        raise RuntimeError(f"split sizes {split_size} do not add up to {len(data)} elements")
    chunks = []
    start = 0
    for size in split_size:
        chunks.append(wrap(data[start : start + size]))
        start += size
    return tuple(chunks)
