"""Fault: push_torch_function_mode does not restore the previous mode on exit."""

from tests.mutants._build import Mutation, install

install(__name__, "-", "push_torch_function_mode does not restore the previous mode on exit", (Mutation(
    "overrides.py",
    "        # TFM_PUSH_003: the old mode comes back whether the block returns or raises.\n"
    "        _set_torch_function_mode(self._old)\n",
    "        pass\n"),))
