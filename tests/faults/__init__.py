"""Implementations that fail as a process rather than as a protocol: they crash, hang, recurse
without end, leak a mode or flood their output. Each is a copy of reference_impl with one
source-level change (built as tests/mutants builds its copies); the fault battery
(tests/quality/test_fault_battery.py) certifies each through the real command line.
"""

#: Every fault: module name -> (what it does, the functions whose calls meet it).
FAULTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "crash_exit1": ("mean calls os._exit(1)", ("mean",)),
    "crash_exit0": ("mean calls os._exit(0)", ("mean",)),
    "hang_call": ("mean loops for ever", ("mean",)),
    "hang_thread": ("add loops for ever when called outside the main thread", ("add",)),
    "recursion": ("mean calls itself without end", ("mean",)),
    "leak": ("push_torch_function_mode does not restore the previous mode on exit", ()),
    "enormous_output": ("mean writes 20 MB to stderr and raises with a 20 MB message", ("mean",)),
}

#: The line of reference_impl's ``mean`` that the faults in mean replace.
MEAN = '    return dispatch(mean, "reference_impl.mean", _mean_kernel, args, kwargs)\n'
