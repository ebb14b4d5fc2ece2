"""Fault: indexing a tensor (x[k]) kills the process; nothing else does."""

from tests.mutants._build import Mutation, install

install(__name__, "-", "x[k] calls os._exit(3)", (Mutation(
    "_tensor.py",
    '        return dispatch(Tensor.__getitem__, "reference_impl.Tensor.__getitem__", _getitem_kernel,\n',
    '        import os\n'
    '        os._exit(3)\n'
    '        return dispatch(Tensor.__getitem__, "reference_impl.Tensor.__getitem__", _getitem_kernel,\n'),))
