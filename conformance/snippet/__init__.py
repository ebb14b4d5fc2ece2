"""Reproduction scripts: a self-contained Python script that runs a scenario on one implementation
and prints what each handler sees (:func:`snippet`), and the lines it prints for a trace
(:func:`describe`); and a script that replays the steps of a stateful run (:func:`steps_snippet`).

The script is written by :mod:`.script` from the scenario's declarations (:mod:`.declarations`)
and a fixed prelude of helpers (:mod:`.prelude`); :mod:`.trace` says what it prints. It may import
:mod:`conformance.generate` (the steps of a stateful run) and :mod:`spec`; it runs nothing.
"""

from .script import snippet
from .steps import steps_snippet
from .trace import describe, event_line

__all__ = ["describe", "event_line", "snippet", "steps_snippet"]
