"""The parts of a certificate's ``run`` section that only some runs have: ``run.compile``
(--compile) and ``run.exhaustive`` (--exhaustive, or a certification's default scope)."""

from __future__ import annotations

from typing import Any, Final

_STR: Final[dict[str, Any]] = {"type": "string"}

#: ``run.compile``: how much Dynamo traced (conformance.target.compiled.summarise).
COMPILE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "description": "--compile: each scenario's user code also ran inside "
                   "torch.compile and was judged against the eager run; how "
                   "much Dynamo traced (absent: the run did not compile)",
    "required": ["backend", "scenarios", "fullgraph", "graph_broken",
                 "not_compiled", "dynamo_errors", "graph_breaks",
                 "fullgraph_fraction", "scenarios_per_minute"],
    "additionalProperties": False,
    "properties": {
        "backend": _STR,
        "scenarios": {"type": "integer", "minimum": 0,
                      "description": "scenarios run both ways"},
        "fullgraph": {"type": "integer", "minimum": 0,
                      "description": "traced whole with fullgraph=True"},
        "graph_broken": {"type": "integer", "minimum": 0,
                         "description": "traced with graph breaks "
                                        "(fullgraph=False)"},
        "not_compiled": {"type": "integer", "minimum": 0,
                         "description": "Dynamo compiled nothing of them: not "
                                        "judged, never a pass"},
        "dynamo_errors": {"type": "integer", "minimum": 0,
                          "description": "the compiled call raised Dynamo's "
                                         "own error (judged: a divergence)"},
        "graph_breaks": {"type": "integer", "minimum": 0},
        "frames_compiled": {"type": "integer", "minimum": 0,
                            "description": "per scenario, the frames whose graphs "
                                           "ran in the call's thread, added up "
                                           "(absent from certificates made before "
                                           "frames were counted)"},
        "frames_fell_back": {"type": "integer", "minimum": 0,
                             "description": "per scenario, the frames Dynamo "
                                            "converted and ran as eager code "
                                            "without a graph, added up (absent "
                                            "as frames_compiled is)"},
        "fullgraph_fraction": {"type": "number", "minimum": 0, "maximum": 1,
                               "description": "fullgraph / scenarios"},
        "scenarios_per_minute": {"type": "number", "minimum": 0,
                                 "description": "scenarios run both ways per "
                                                "minute of the tests' own time "
                                                "(one worker)"},
    },
}

#: ``run.exhaustive``: the exhaustive scope's count and time (conformance.exhaustive.report).
EXHAUSTIVE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "description": "--exhaustive, or a certification's default scope: every "
                   "scenario of a bounded scope checked (absent: the run had "
                   "none)",
    "required": ["scope", "bounds", "scenarios", "unspecified", "complete",
                 "seconds", "scenarios_per_second"],
    "additionalProperties": False,
    "properties": {
        "scope": {"type": "string",
                  "description": "default, large, or custom"},
        "bounds": {"type": "string",
                   "description": "the scope's bounds, as --exhaustive reads "
                                  "them"},
        "scenarios": {"type": "integer", "minimum": 0,
                      "description": "canonical scenarios checked (one of "
                                     "each renaming of modes and classes)"},
        "unspecified": {"type": "integer", "minimum": 0,
                        "description": "of them, those no rule specifies (not "
                                       "judged)"},
        "complete": {"type": "boolean",
                     "description": "every chunk reported and checked its share "
                                    "whole"},
        "seconds": {"type": "number", "minimum": 0,
                    "description": "the chunks' time added up (worker-seconds)"},
        "scenarios_per_second": {"type": "number", "minimum": 0,
                                 "description": "per worker-second"},
    },
}
