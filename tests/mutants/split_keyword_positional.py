"""Mutant: ``split`` hands its own keyword argument ``dim`` to the handlers positionally.

The copy's ``split`` gains torch's ``dim=0`` parameter (the kernel ignores it) and passes it to
``handle_torch_function`` as a positional argument instead of a keyword: handlers see
``args == (tensor, split_size, 0)`` where the caller wrote two arguments.
"""

from tests.mutants._build import Mutation, install

RULE = "TFM_ARGS_002"
BUG = "split passes its keyword argument dim to the handlers as a third positional argument"

MUTATIONS = (
    Mutation(
        "functional.py",
        "def split(tensor: Any, split_size: int | list[int]) -> Any:",
        "def split(tensor: Any, split_size: int | list[int], dim: int = 0) -> Any:",
    ),
    Mutation(
        "functional.py",
        "return handle_torch_function(split, (tensor,), tensor, split_size)",
        "return handle_torch_function(split, (tensor,), tensor, split_size, dim)",
    ),
)

install(__name__, RULE, BUG, MUTATIONS)
