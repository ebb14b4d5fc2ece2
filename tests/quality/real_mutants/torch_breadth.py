"""Single-bug variants of torch 2.13.0 outside torch/overrides.py: the breadth of the surface.

Each edit is a plausible slip in a Python function or method that dispatches, in
``torch/_tensor.py``, ``torch/functional.py``, ``torch/nn/functional.py`` and
``torch/overrides.py``'s helpers: a forgotten ``has_torch_function`` check, a wrong
``public_api``, an operator whose ``TypeError`` wrapping is gone. They are certified as
``conformance-torch`` certifies torch (certify profile, the committed expected failures).
"""

from __future__ import annotations

from .harness import Variant, VariantSet
from .torch_overrides import CONTROL, RELEASE

VARIANTS = (
    Variant(
        "split_skips_its_check",
        "torch.split (torch/functional.py) forgets its has_torch_function check and calls "
        "Tensor.split directly",
        "    if has_torch_function_unary(tensor):\n        return handle_torch_function(\n"
        "            split, (tensor,), tensor, split_size_or_sections, dim=dim\n        )\n",
        "", target="torch.functional"),
    Variant(
        "relu_skips_its_check",
        "torch.nn.functional.relu forgets its has_torch_function check",
        "    if has_torch_function_unary(input):\n"
        "        return handle_torch_function(relu, (input,), input, inplace=inplace)\n",
        "", target="torch.nn.functional"),
    Variant(
        "format_wrong_public_api",
        "Tensor.__format__ hands its handlers Tensor.__repr__ as func",
        "            return handle_torch_function(Tensor.__format__, (self,), self, format_spec)\n",
        "            return handle_torch_function(Tensor.__repr__, (self,), self, format_spec)\n",
        target="torch._tensor"),
    Variant(
        "rsub_lets_type_error_escape",
        "Tensor.__rsub__ loses its wrapper: it neither dispatches itself nor gives NotImplemented "
        "for an operand it does not take",
        "    @_handle_torch_function_and_wrap_type_error_to_not_implemented\n"
        "    def __rsub__(self, other",
        "    def __rsub__(self, other", target="torch._tensor"),
    Variant(
        "len_skips_its_check",
        "Tensor.__len__ forgets its has_torch_function check (len(x) reads the shape instead)",
        "        if has_torch_function_unary(self):\n"
        "            return handle_torch_function(Tensor.__len__, (self,), self)\n",
        "", target="torch._tensor"),
    Variant(
        "reversed_dispatches_twice",
        "Tensor.__reversed__ dispatches, then dispatches again",
        "            return handle_torch_function(Tensor.__reversed__, (self,), self)\n",
        "            handle_torch_function(Tensor.__reversed__, (self,), self)\n"
        "            return handle_torch_function(Tensor.__reversed__, (self,), self)\n",
        target="torch._tensor"),
    Variant(
        "is_tensor_like_ignores_ducks",
        "is_tensor_like answers False for an object whose type defines __torch_function__",
        '    return type(inp) is torch.Tensor or hasattr(inp, "__torch_function__")\n',
        "    return type(inp) is torch.Tensor\n"),
)

VARIANT_SET = VariantSet(
    target="torch.overrides", package="torch", control=CONTROL, variants=VARIANTS,
    profile="certify", seed=None,
    options=("--expected-failures", f"{{repo}}/conformance/expected_failures/torch-{RELEASE}.toml"),
    timeout=1200.0)
