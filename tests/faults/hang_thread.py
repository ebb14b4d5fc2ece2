"""Fault: add loops for ever when called outside the main thread."""

from tests.mutants._build import Mutation, install

install(__name__, "-", "add loops for ever when called outside the main thread", (Mutation(
    "_functions.py",
    '    return dispatch(add, "reference_impl.add", add_kernel, args, kwargs)\n',
    '    import threading\n'
    '    while threading.current_thread() is not threading.main_thread():\n'
    '        pass\n'
    '    return dispatch(add, "reference_impl.add", add_kernel, args, kwargs)\n'),))
