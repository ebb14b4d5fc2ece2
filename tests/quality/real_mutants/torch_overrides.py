"""Single-bug variants of torch 2.13.0's torch/overrides.py, checked as the conformance-torch
tox environment checks torch itself (a conformance run under the certify profile, the
committed expected failures).

Each edit is a plausible slip in the Python half of dispatch that changes what handlers see:
``handle_torch_function`` (htf_), ``_get_overloaded_args`` (goa_), ``TorchFunctionMode``'s
``__enter__``/``__exit__`` (mode_), the stack helpers (stack_) and
``BaseTorchFunctionMode.__torch_function__`` (base_).
"""

from __future__ import annotations

from .harness import Equivalence, Variant, VariantSet

RELEASE = "2.13.0"

CONTROL = Variant(
    "control", "no behaviour changes: a comment of handle_torch_function is reworded",
    "    # Check for __torch_function__ mode.\n",
    "    # Check for a __torch_function__ mode (reworded by the control variant).\n")

_HTF = (
    Variant(
        "htf_mode_not_consulted",
        "handle_torch_function never calls the current mode; only the arguments' handlers run",
        "    # Check for __torch_function__ mode.\n    if _is_torch_function_mode_enabled():\n",
        "    # Check for __torch_function__ mode.\n    if False:\n"),
    Variant(
        "htf_mode_answer_always_final",
        "a mode's NotImplemented is returned to the caller instead of falling through to the "
        "arguments",
        "            result = mode.__torch_function__(public_api, types, args, kwargs)\n"
        "        if result is not NotImplemented:\n            return result\n",
        "            result = mode.__torch_function__(public_api, types, args, kwargs)\n"
        "        return result\n"),
    Variant(
        "htf_mode_kwargs_dropped",
        "the mode's handler is called without kwargs (it sees the default, None)",
        "            result = mode.__torch_function__(public_api, types, args, kwargs)\n",
        "            result = mode.__torch_function__(public_api, types, args)\n"),
    Variant(
        "htf_mode_not_popped",
        "the mode stays on the stack while its handler runs, so calls inside reach it again",
        "        with _pop_mode_temporarily() as mode:\n",
        "        with contextlib.nullcontext(_get_current_function_mode()) as mode:\n"),
    Variant(
        "htf_mode_never_pushed_back",
        "the mode is popped for its handler and never pushed back",
        "        with _pop_mode_temporarily() as mode:\n"
        "            result = mode.__torch_function__(public_api, types, args, kwargs)\n",
        "        mode = _pop_mode()\n"
        "        result = mode.__torch_function__(public_api, types, args, kwargs)\n"),
    Variant(
        "htf_args_reversed",
        "the overloaded arguments' handlers are tried last to first",
        "    for overloaded_arg in overloaded_args:\n",
        "    for overloaded_arg in reversed(overloaded_args):\n"),
    Variant(
        "htf_first_arg_answer_final",
        "the first overloaded argument's NotImplemented is returned instead of trying the next",
        "        result = torch_func_method(public_api, types, args, kwargs)\n\n"
        "        if result is not NotImplemented:\n            return result\n",
        "        result = torch_func_method(public_api, types, args, kwargs)\n\n"
        "        return result\n"),
    Variant(
        "htf_arg_kwargs_dropped",
        "an overloaded argument's handler is called without kwargs (it sees the default, None)",
        "        result = torch_func_method(public_api, types, args, kwargs)\n",
        "        result = torch_func_method(public_api, types, args)\n"),
    Variant(
        "htf_plain_method_not_warned",
        "a plain-method __torch_function__ is called without the DeprecationWarning",
        '            hasattr(torch_func_method, "__self__")\n',
        '            False\n            and hasattr(torch_func_method, "__self__")\n'),
    Variant(
        "htf_plain_method_user_warning",
        "the plain-method warning is a UserWarning instead of a DeprecationWarning",
        "                DeprecationWarning,\n                stacklevel=2,\n",
        "                UserWarning,\n                stacklevel=2,\n"),
    Variant(
        "htf_plain_method_warning_elsewhere",
        "the plain-method DeprecationWarning is attributed to the caller's caller's line",
        "                DeprecationWarning,\n                stacklevel=2,\n",
        "                DeprecationWarning,\n                stacklevel=3,\n",
        Equivalence("TFM_SELF_003", "the rule fixes the warning's category and text on every "
                                    "call, not the line it is attributed to")),
    Variant(
        "htf_classmethod_warns",
        "the plain-method warning is given for classmethod handlers too",
        "            and torch_func_method.__self__ is overloaded_arg\n",
        "            and torch_func_method.__self__ is not None\n"),
    Variant(
        "htf_error_types_tuple",
        "the 'no implementation found' message shows the types as a tuple, not a list",
        "__torch_function__: {[type(arg) for arg in overloaded_args]}",
        "__torch_function__: {types}"),
    Variant(
        "htf_error_no_mode_suffix",
        "the 'no implementation found' message lacks ' nor in mode ...' when a mode declined",
        "    if _is_torch_function_mode_enabled():\n        msg +=",
        "    if False:\n        msg +="),
)

_GOA = (
    Variant(
        "goa_no_dedup",
        "overloaded arguments are not deduplicated by type: a type's handler runs once per "
        "argument",
        "            arg_type not in overloaded_types\n            and hasattr(",
        "            hasattr("),
    Variant(
        "goa_superclass_first",
        "a superclass argument is placed before its subclass instead of after it",
        "                    if issubclass(arg_type, get_type_fn(old_arg)):\n",
        "                    if issubclass(get_type_fn(old_arg), arg_type):\n"),
    Variant(
        "goa_first_type_forgotten",
        "the first overloaded type is not recorded, so a later argument replaces it",
        "                overloaded_types = {arg_type}\n",
        "                overloaded_types = set()\n"),
    Variant(
        "goa_ignores_disabled_state",
        "overloaded arguments are collected even while subclass torch functions are disabled",
        "    if not torch._C._is_torch_function_enabled():\n        return []\n",
        "    if False:\n        return []\n"),
    Variant(
        "goa_disabled_impl_kept",
        "a subclass opted out with _disabled_torch_function_impl is still an overloaded argument",
        "            and hasattr(arg_type, \"__torch_function__\")\n"
        "            and arg_type.__torch_function__\n"
        "            is not torch._C._disabled_torch_function_impl\n",
        "            and hasattr(arg_type, \"__torch_function__\")\n"),
    Variant(
        "goa_tensor_left_out",
        "an exact Tensor is not collected as an overloaded argument on the Python path",
        "            and hasattr(arg_type, \"__torch_function__\")\n",
        "            and arg_type is not torch.Tensor\n"
        "            and hasattr(arg_type, \"__torch_function__\")\n"),
)

_MODE = (
    Variant(
        "mode_enter_returns_none",
        "`with mode as m:` binds None: __enter__ pushes the mode but does not return it",
        "        _push_mode(self)\n        return self\n",
        "        _push_mode(self)\n"),
    Variant(
        "mode_exit_does_not_pop",
        "leaving a mode's with block leaves the mode on the stack",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n        _pop_mode()\n",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n        pass\n"),
    Variant(
        "mode_exit_pops_only_itself",
        "leaving a mode's with block pops only if that mode is on top (exits out of order "
        "pop nothing)",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n        _pop_mode()\n",
        "    def __exit__(self, exc_type, exc_val, exc_tb):\n"
        "        if _get_current_function_mode() is self:\n            _pop_mode()\n"),
)

_STACK = (
    Variant(
        "stack_listed_top_first",
        "_get_current_function_mode_stack lists the modes top first instead of bottom first",
        "    return [_get_function_stack_at(i) for i in range(stack_len)]\n",
        "    return [_get_function_stack_at(i) for i in reversed(range(stack_len))]\n"),
    Variant(
        "stack_current_is_bottom",
        "_get_current_function_mode answers the bottom mode instead of the top one",
        "    return _get_function_stack_at(stack_len - 1) if stack_len > 0 else None\n",
        "    return _get_function_stack_at(0) if stack_len > 0 else None\n"),
    Variant(
        "stack_pop_empty_returns_none",
        "popping an empty mode stack returns None instead of raising",
        "    old = _pop_torch_function_stack()\n",
        "    old = _pop_torch_function_stack() if _len_torch_function_stack() else None\n"),
    Variant(
        "stack_pop_temporarily_no_finally",
        "a mode popped for its handler is not pushed back when the handler raises",
        "    old = _pop_mode()\n    try:\n        yield old\n    finally:\n        _push_mode(old)\n",
        "    old = _pop_mode()\n    yield old\n    _push_mode(old)\n"),
)

_BASE = (
    Variant(
        "base_drops_kwargs",
        "BaseTorchFunctionMode.__torch_function__ calls func without the call's keyword arguments",
        "        if kwargs is None:\n            kwargs = {}\n        return func(*args, **kwargs)\n",
        "        kwargs = {}\n        return func(*args, **kwargs)\n"),
)

VARIANTS = (*_HTF, *_GOA, *_MODE, *_STACK, *_BASE)

VARIANT_SET = VariantSet(
    target="torch.overrides", package="torch", control=CONTROL, variants=VARIANTS,
    profile="certify", seed=None,
    options=("--expected-failures", f"{{repo}}/conformance/expected_failures/torch-{RELEASE}.toml"),
    timeout=1200.0)
