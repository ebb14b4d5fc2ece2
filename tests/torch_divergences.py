"""The stack examples torch 2.13 does not do what the model predicts on (tests/test_rule_examples.py
asserts that each still diverges, so an entry cannot outlive its divergence)."""

from __future__ import annotations

#: Stack examples on which torch 2.x does not do what the model predicts: name -> reason.
#: (c') asserts that each still diverges, so an entry cannot outlive the divergence.
TORCH_DIVERGENCES: dict[str, str] = {
    "method_on_opted_out_subclass_under_mode": (
        "torch 2.13 passes the opted-out class in types (types == (Opted,)) and, once the mode "
        "returns NotImplemented, recurses without end (RecursionError) on a Tensor method; "
        "TFM_TYPES_005 and the model say types == () and TypeError"
    ),
    "method_on_plain_tensor_under_mode": (
        "torch 2.13 dispatches a no-argument Tensor method with self as an overloaded argument "
        "under a mode, so types == (Tensor,) (TFM_TYPES_003, TFM_REACH_007 say ())"
    ),
    "unary_minus_reaches_stack_mode": (
        "torch 2.13 dispatches -x as x.neg(), so the mode sees types == (Tensor,) "
        "(TFM_TYPES_003, TFM_REACH_007 say ())"
    ),
    "property_getter_reaches_stack_mode": (
        "torch 2.13 dispatches x.real's getter with self as an overloaded argument under a "
        "mode, so types == (Tensor,) (TFM_TYPES_003, TFM_REACH_007 say ())"
    ),
    "grad_reaches_a_stack_mode": (
        "torch 2.13 dispatches x.grad's getter with self as an overloaded argument under a "
        "mode, so types == (Tensor,) (TFM_TYPES_003, TFM_REACH_007 say ())"
    ),
    "nested_decline_comes_out_of_the_operator": (
        "torch 2.13's x + y turns the TypeError of the dispatch the forwarding mode made into "
        "NotImplemented, and Python raises 'unsupported operand type(s)' (TFM_SYNTAX_002, "
        "pytorch#75462)"
    ),
    "method_on_subclass_under_disable_subclass": (
        "torch 2.13 passes self's subclass in types inside DisableTorchFunctionSubclass on a "
        "no-argument Tensor method (TFM_STACK_011 says types == ())"
    ),
    "disable_subclass_hides_self_from_the_method_path": (
        "the same as method_on_subclass_under_disable_subclass, for a.neg() with a mode that "
        "forwards (TFM_STACK_011)"
    ),
    "handler_type_error_comes_out_of_the_reflected_operator": (
        "torch 2.13's 2 + x turns the mode's TypeError into NotImplemented, and Python raises "
        "'unsupported operand type(s)' (TFM_SYNTAX_002, pytorch#75462)"
    ),
    "handler_type_error_comes_out_of_a_comparison": (
        "torch 2.13's x < y turns the mode's TypeError into NotImplemented, Python tries y > x, "
        "and raises \"'<' not supported\" (TFM_SYNTAX_002, pytorch#75462)"
    ),
    "handler_type_error_comes_out_of_not_equal": (
        "torch 2.13's x != y turns the mode's TypeError into NotImplemented, Python tries y != x "
        "and then identity, and the expression is True (TFM_SYNTAX_002, pytorch#75462)"
    ),
    "handler_type_error_comes_out_of_a_floor_division": (
        "torch 2.13's x // y (Tensor.__floordiv__, written in Python) turns the mode's TypeError "
        "into NotImplemented, and Python raises 'unsupported operand type(s) for //' "
        "(TFM_SYNTAX_002, pytorch#75462)"
    ),
    "opted_out_subclass_not_overloaded_by_a_stack_mode_getter": (
        "torch 2.13 passes the opted-out class in types for o.real's getter under a mode "
        "(types == (Opted,); TFM_TYPES_005 says types == ())"
    ),
}
#: Examples torch 2.13 diverges on only where numpy can be imported (a certificate's
#: environment says whether it could).
NUMPY_DIVERGENCES: dict[str, str] = {
    "equality_collects_both_operands": (
        "with numpy importable, torch 2.13's x == y of two subclass instances dispatches "
        "Tensor.__eq__ with types == (A,) (TFM_TYPES_001 says (A, B)); without numpy, "
        "Tensor.eq with both"
    ),
    "equality_with_a_duck_collects_the_duck": (
        "with numpy importable, torch 2.13's x == y of a subclass instance and a duck-typed "
        "object dispatches Tensor.__eq__ with types == (A,) (TFM_TYPES_006 says (A, Duck))"
    ),
}
