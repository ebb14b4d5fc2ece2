"""Hostile (evid): a correct implementation that is slow, and says when the run has started.

On every native call it sleeps 50 ms, so a whole run takes minutes; on its first call (the first
test that runs a scenario: the run has started, the suite's options were all accepted) it
creates the file named by EVID_STARTED. tests/quality/test_trust_evid.py kills the suite with
SIGKILL once that file exists: a stale passing certificate in the reports folder must be gone.
"""

from tests.mutants._build import Mutation, install

_FIRST_LINE = "    tls = _C._tls.state  # this thread's mode slot and enabled flag\n"

install(__name__, "-", "marks the start of the run, then runs slowly", (Mutation(
    "_dispatch.py", _FIRST_LINE,
    '    __import__("pathlib").Path(__import__("os").environ["EVID_STARTED"]).touch()\n'
    '    __import__("time").sleep(0.05)\n' + _FIRST_LINE),))
