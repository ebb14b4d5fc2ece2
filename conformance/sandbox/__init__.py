"""The sandbox: the implementation under test runs in a child process that answers the suite's
requests, so that a crash or a hang costs one call. It owns both sides: the suite's
(:mod:`.parent`: the child started and spoken to; :mod:`.timing`: time-outs confirmed before they
blame the implementation; :mod:`.isolation`: time limits that nest; :mod:`.faults`: how a request
can fail) and the child's (:mod:`._child`, which loads the implementation; :mod:`.integrity`, its
tripwire), what travels between them as plain JSON (:mod:`.wire`, :mod:`.tracewire`,
:mod:`.replies`), and the processes a run must not leave behind (:mod:`.processes`,
:mod:`._watchdog`, :mod:`.cputime`). It may import :mod:`conformance.target` (what the child
runs), :mod:`conformance.base` and :mod:`spec`; it never judges what it carries.
"""
