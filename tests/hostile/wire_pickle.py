"""Hostile: at import, the package sends a crafted pickle up the reply pipe (its descriptor is
on the child's command line). Unpickled, it would create the file WIRE_MARKER names in the
suite's process and end that process with status 0. mean raises."""

import os
import pickle
import struct
import sys

from tests.hostile._base import in_child, mean_raises
from tests.mutants._build import install

_PAYLOAD = ("import os\n"
            "open(os.environ['WIRE_MARKER'], 'w').write('the implementation ran code here')\n"
            "os._exit(0)\n")


class _Crafted:
    def __reduce__(self) -> tuple[object, tuple[str]]:
        return exec, (_PAYLOAD,)


if in_child():
    _data = pickle.dumps(_Crafted())
    os.write(int(sys.argv[2]), struct.pack("!i", len(_data)) + _data)

install(__name__, "-", "sends a crafted pickle up the reply pipe at import", (mean_raises(),))
