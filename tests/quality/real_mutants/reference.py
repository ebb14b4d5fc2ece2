"""Variants of reference_impl/overrides.py: the harness's own test, which needs no torch.

Each edit is one bug that a conformance run of the 2022 generation fails on a known rule
(``RULES``); the control changes a comment.
"""

from __future__ import annotations

from .harness import Variant, VariantSet

CONTROL = Variant(
    "control", "no behaviour changes: a comment of handle_torch_function is reworded",
    "    # TFM_ERROR_003\n",
    "    # TFM_ERROR_003 (reworded by the control variant)\n")

VARIANTS = (
    Variant(
        "mode_answer_always_final",
        "handle_torch_function returns the mode's NotImplemented instead of trying the arguments",
        "            _set_torch_function_mode(mode)\n"
        "        if result is not NotImplemented:\n"
        "            return result\n",
        "            _set_torch_function_mode(mode)\n"
        "        return result\n"),
    Variant(
        "plain_method_user_warning",
        "a plain-method handler reached through handle_torch_function warns with UserWarning",
        "warnings.warn(_PLAIN_METHOD_DEPRECATION, DeprecationWarning, stacklevel=3)",
        "warnings.warn(_PLAIN_METHOD_DEPRECATION, UserWarning, stacklevel=3)"),
    Variant(
        "push_not_restored",
        "leaving a push_torch_function_mode block does not restore the mode that was current",
        "        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.\n"
        "        _set_torch_function_mode(self._old)\n",
        "        pass\n"),
)

#: The rule each variant must fail.
RULES = {
    "mode_answer_always_final": "TFM_NOTIMPL_001",
    "plain_method_user_warning": "TFM_SELF_003",
    "push_not_restored": "TFM_PUSH_003",
}

VARIANT_SET = VariantSet(target="reference_impl.overrides", package="reference_impl",
                         control=CONTROL, variants=VARIANTS)
