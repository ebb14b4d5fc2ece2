"""Deliberately broken copies of reference_impl, one bug each, for testing the suite itself.

Each module ``tests.mutants.<bug>`` builds (on import) a fresh copy of reference_impl with one
source-level mutation (see ``_build.py``) and replaces itself in ``sys.modules`` with the copy's
package, so ``--impl tests.mutants.<bug>`` certifies it like any namespace. The copy carries
``RULE`` (the rule its bug breaks) and ``BUG`` (one line).
"""

#: Every mutant: module name -> the rule its bug breaks.
MUTANTS: dict[str, str] = {
    "mode_order": "TFM_ORDER_001",
    "superclass_first": "TFM_ORDER_003",
    "kwargs_before_args": "TFM_ORDER_004",
    "no_dedupe": "TFM_ORDER_005",
    "containers_not_scanned": "TFM_ORDER_006",
    "mode_type_in_types": "TFM_TYPES_002",
    "plain_tensor_overloaded": "TFM_TYPES_003",
    "kwargs_empty_dict": "TFM_ARGS_003",
    "split_keyword_positional": "TFM_ARGS_002",
    "add_replaces_other": "TFM_ARGS_002",
    "no_fallthrough": "TFM_NOTIMPL_001",
    "mode_not_cleared": "TFM_REENTRY_001",
    "raise_leaves_mode_cleared": "TFM_REENTRY_003",
    "inner_not_enabled": "TFM_REENTRY_004",
    "push_no_restore_on_error": "TFM_PUSH_003",
    "push_instance_allowed": "TFM_PUSH_005",
    "missing_inner_unchecked": "TFM_PUSH_007",
    "enable_same_mode_raises": "TFM_ENABLE_002",
    "replace_ignored": "TFM_ENABLE_005",
    "ignore_preexisting_ignored": "TFM_ENABLE_007",
    "subclass_mode_rejected": "TFM_SUBMODE_001",
    "plain_method_skipped": "TFM_SELF_001",
    "plain_warning_early": "TFM_SELF_002",
    "has_torch_function_ignores_mode": "TFM_REACH_001",
    "empty_sequence_dispatches": "TFM_REACH_002",
    "factory_skips_mode": "TFM_REACH_004",
    "mode_handed_own_reads": "TFM_REACH_010",
    "disable_hides_mode": "TFM_DISABLE_002",
    "global_slot": "TFM_THREAD_001",
    "error_text": "TFM_TEXT_007",
}
