"""Mutant: native dispatch tries the overloaded arguments first and the mode only after them."""

import textwrap

from tests.mutants._build import Mutation, install

RULE = "TFM_ORDER_001"
BUG = "native dispatch tries the overloaded arguments before the mode"

_MODE_BLOCK = """\
    if mode is not None:
        tls.mode = None
        try:
            if kwargs:
                result = mode.__torch_function__(func, types, args, kwargs)
            else:
                result = mode.__torch_function__(func, types, args)
        finally:
            tls.mode = mode
        if result is not NotImplemented:
            return result
"""
# Where every overloaded argument has declined (inside the try that surfaces warnings).
_ALL_DECLINED = "        # TFM_NOTIMPL_002, TFM_NOTIMPL_003, TFM_ERROR_001"

MUTATIONS = (
    # Take the mode's turn out of its place ...
    Mutation("_dispatch.py", _MODE_BLOCK, ""),
    # ... and give it after every overloaded argument declined.
    Mutation("_dispatch.py", _ALL_DECLINED,
             textwrap.indent(_MODE_BLOCK, "    ") + "\n" + _ALL_DECLINED),
)

install(__name__, RULE, BUG, MUTATIONS)
