"""Single-bug variants of torch 2.13.0 outside torch/overrides.py: the breadth of the surface.

Each edit is a plausible slip in a Python function or method that dispatches, in
``torch/_tensor.py`` (the operators' wrapper, the protocols and conversions),
``torch/functional.py``, ``torch/nn/functional.py``, ``torch/utils/_device.py`` (the
``DeviceContext`` that ``torch.device(...)`` and ``torch.set_default_device`` push) and
``torch/overrides.py``'s helpers (``is_tensor_like``, ``wrap_torch_function``, the mode's
``__exit__``): a forgotten or narrowed ``has_torch_function`` check, a wrong ``public_api``, a
fast path that skips the mode, an operator that swallows the handler's exception, a
``DeviceContext`` that loses the user's modes. They are checked as ``conformance-torch``
checks torch (a conformance run under the certify profile, the committed expected failures).
"""

from __future__ import annotations

from .harness import Variant, VariantSet
from .torch_overrides import CONTROL, RELEASE

#: The first set (a function of each module) and torch/overrides.py's helpers.
_FIRST = (
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
    Variant(
        "is_tensor_like_rejects_tensor",
        "is_tensor_like answers False for an exact Tensor (it confuses itself with "
        "has_torch_function, which skips exact Tensors)",
        '    return type(inp) is torch.Tensor or hasattr(inp, "__torch_function__")\n',
        '    return type(inp) is not torch.Tensor and hasattr(inp, "__torch_function__")\n'),
    Variant(
        "wrap_torch_function_skips_its_check",
        "a function decorated with wrap_torch_function never dispatches: it calls the "
        "undecorated function",
        "            relevant_args = dispatcher(*args, **kwargs)\n"
        "            if has_torch_function(relevant_args):\n",
        "            relevant_args = dispatcher(*args, **kwargs)\n"
        "            if False and has_torch_function(relevant_args):\n"),
    Variant(
        "wrap_torch_function_hands_inner",
        "wrap_torch_function hands its handlers the undecorated function as func, not the "
        "public (decorated) one",
        "                    cast(Callable[_P, _R], wrapped), relevant_args, *args, **kwargs\n",
        "                    cast(Callable[_P, _R], func), relevant_args, *args, **kwargs\n"),
    Variant(
        "mode_exit_swallows_exceptions",
        "TorchFunctionMode.__exit__ returns the popped mode, a true value, so every exception "
        "raised inside `with mode:` is swallowed",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n        _pop_mode()\n",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n        return _pop_mode()\n"),
)

#: The operators' wrapper in torch/_tensor.py and the methods written in Python there.
_TENSOR = (
    Variant(
        "wrapper_swallows_every_exception",
        "the operators' wrapper turns any exception into NotImplemented, so a handler's "
        "exception in 2 - x or x ** y becomes Python's 'unsupported operand' TypeError",
        "        except TypeError:\n            return NotImplemented\n",
        "        except Exception:\n            return NotImplemented\n", target="torch._tensor"),
    Variant(
        "wrapper_lets_type_error_escape",
        "the operators' wrapper re-raises TypeError instead of returning NotImplemented, so "
        "Python never tries the other operand's reflected method",
        "        except TypeError:\n            return NotImplemented\n",
        "        except TypeError:\n            raise\n", target="torch._tensor"),
    Variant(
        "wrapper_checks_self_only",
        "the operators' wrapper asks has_torch_function about self alone, so an other operand "
        "with a handler is never dispatched on when self is a plain Tensor",
        "            if has_torch_function(sargs):\n",
        "            if has_torch_function_unary(self):\n", target="torch._tensor"),
    Variant(
        "wrapper_hands_unwrapped_func",
        "the operators' wrapper hands its handlers the undecorated function as func (for "
        "x ** y Tensor.pow, for 2 - x an anonymous __rsub__), not the public operator",
        "                return handle_torch_function(wrapped, sargs, self, *args, **kwargs)\n",
        "                return handle_torch_function(f, sargs, self, *args, **kwargs)\n",
        target="torch._tensor"),
    Variant(
        "format_scalar_fast_path",
        "Tensor.__format__ formats a 0-d plain Tensor before its has_torch_function check, so "
        "format(torch.tensor(2.5), '.1f') skips the mode",
        "    def __format__(self, format_spec):\n        if has_torch_function_unary(self):\n",
        "    def __format__(self, format_spec):\n"
        "        if type(self) is Tensor and self.dim() == 0 and not self.is_meta:\n"
        "            return self.detach().item().__format__(format_spec)\n"
        "        if has_torch_function_unary(self):\n", target="torch._tensor"),
    Variant(
        "contains_skips_its_check",
        "Tensor.__contains__ forgets its has_torch_function check (`v in x` compares directly)",
        "        if has_torch_function_unary(self):\n"
        "            return handle_torch_function(Tensor.__contains__, (self,), self, element)\n",
        "", target="torch._tensor"),
    Variant(
        "array_drops_dtype",
        "Tensor.__array__ hands its handlers no dtype keyword: numpy.asarray(x, dtype) under a "
        "handler loses the dtype",
        "            return handle_torch_function(Tensor.__array__, (self,), self, dtype=dtype)\n",
        "            return handle_torch_function(Tensor.__array__, (self,), self)\n",
        target="torch._tensor"),
    Variant(
        "iter_hides_subclass",
        "Tensor.__iter__ unbinds with subclass handlers disabled, so iterating a subclass "
        "yields plain Tensors and its handler never sees the unbind",
        "        return iter(self.unbind(0))\n",
        "        with torch._C.DisableTorchFunctionSubclass():\n"
        "            return iter(self.unbind(0))\n", target="torch._tensor"),
)

#: The modules of functions written in Python.
_FUNCTIONS = (
    Variant(
        "atleast_1d_wrong_public_api",
        "torch.atleast_1d hands its handlers torch.atleast_2d as func (a copied line)",
        "        return handle_torch_function(atleast_1d, tensors, *tensors)\n",
        "        return handle_torch_function(atleast_2d, tensors, *tensors)\n",
        target="torch.functional"),
    Variant(
        "alpha_dropout_wrong_public_api",
        "torch.nn.functional.alpha_dropout hands its handlers dropout as func",
        "            alpha_dropout, (input,), input, p=p, training=training, inplace=inplace\n",
        "            dropout, (input,), input, p=p, training=training, inplace=inplace\n",
        target="torch.nn.functional"),
    Variant(
        "layer_norm_checks_input_only",
        "torch.nn.functional.layer_norm asks has_torch_function about input alone, so a weight "
        "or bias with a handler is not dispatched on when input is a plain Tensor",
        "    if has_torch_function_variadic(input, weight, bias):\n"
        "        return handle_torch_function(\n            layer_norm,\n",
        "    if has_torch_function_unary(input):\n"
        "        return handle_torch_function(\n            layer_norm,\n",
        target="torch.nn.functional"),
)

#: torch/utils/_device.py: the DeviceContext mode that torch.device(...) and
#: torch.set_default_device push.
_DEVICE = (
    Variant(
        "device_enter_drops_user_modes",
        "entering a DeviceContext (with torch.device(...), set_default_device) inside a user "
        "mode pops the user's modes and pushes none of them back",
        "            if isinstance(mode, DeviceContext):\n                self.prev_mode = mode\n"
        "            else:\n                _push_mode(mode)\n",
        "            if isinstance(mode, DeviceContext):\n                self.prev_mode = mode\n",
        target="torch.utils._device"),
    Variant(
        "device_pushed_on_top",
        "a DeviceContext entered inside a user mode is pushed above it instead of at the "
        "bottom of the stack",
        "        _push_mode(self)\n\n        for mode in reversed(cur_stack):\n"
        "            if isinstance(mode, DeviceContext):\n                self.prev_mode = mode\n"
        "            else:\n                _push_mode(mode)\n",
        "        for mode in reversed(cur_stack):\n"
        "            if isinstance(mode, DeviceContext):\n                self.prev_mode = mode\n"
        "            else:\n                _push_mode(mode)\n\n        _push_mode(self)\n",
        target="torch.utils._device"),
    Variant(
        "device_overrides_explicit_device",
        "a DeviceContext replaces an explicit device= of a factory call with its own device",
        '        if func in _device_constructors() and kwargs.get("device") is None:\n',
        "        if func in _device_constructors():\n", target="torch.utils._device"),
    Variant(
        "device_exit_drops_user_modes",
        "leaving a DeviceContext (set_default_device again, or to None) inside a user mode "
        "pops the user's modes and pushes none of them back",
        "            _push_mode(self.prev_mode)\n\n        for mode in reversed(cur_stack):\n"
        "            _push_mode(mode)\n",
        "            _push_mode(self.prev_mode)\n", target="torch.utils._device"),
)

VARIANTS = (*_FIRST, *_TENSOR, *_FUNCTIONS, *_DEVICE)

VARIANT_SET = VariantSet(
    target="torch.overrides", package="torch", control=CONTROL, variants=VARIANTS,
    profile="certify", seed=None,
    options=("--expected-failures", f"{{repo}}/conformance/expected_failures/torch-{RELEASE}.toml"),
    timeout=1200.0)
