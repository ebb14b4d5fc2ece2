"""The conformance certificate: its JSON Schema, how it is built, and how it is written atomically."""

from __future__ import annotations

import datetime
import hashlib
import importlib.metadata
import json
import os
import platform
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Final

import hypothesis
import pytest

from spec.catalogue import Catalogue

from ..version import __version__
from .evidence import EVIDENCE_SCHEMA
from .jsonschema_subset import validate
from .runschema import COMPILE_SCHEMA, EXHAUSTIVE_SCHEMA
from .verdicts import VERDICTS, VERDICTS_V2

__all__ = [
    "CERTIFICATE_SCHEMA",
    "SCHEMA_VERSION",
    "build_certificate",
    "spec_version",
    "validate_certificate",
    "write_atomically",
]

#: Bumped whenever the certificate's shape changes incompatibly.
SCHEMA_VERSION: Final = 8

_ID: Final = r"^TFM_[A-Z]+_\d{3}$"
_STR: Final[dict[str, Any]] = {"type": "string"}

_SURFACE: Final[dict[str, Any]] = {
    "description": "the surface sweep (conformance.suite.test_surface): every callable the "
                   "implementation lists, with its verdict and the rules it breaks, and those "
                   "it could not call with the reason; null: not run (no listing, or not "
                   "selected)",
    "required": ["listed", "checked", "passed", "functions", "not_called"],
    "additionalProperties": False,
    "properties": {
        "listed": {"type": ["integer", "null"], "minimum": 0},
        "checked": {"type": "integer", "minimum": 0},
        "passed": {"type": "integer", "minimum": 0},
        "functions": {"type": "object", "additionalProperties": {
            "type": "object", "required": ["verdict", "rules", "detail"],
            "additionalProperties": False,
            "properties": {"verdict": {"enum": ["pass", "fail", "expected_failure"]},
                           "rules": {"type": "array", "items": {"type": "string", "pattern": _ID}},
                           "detail": {"type": "string"}}}},
        "not_called": {"type": "object", "additionalProperties": {"type": "string"}},
    },
}

_FAILURE: Final[dict[str, Any]] = {
    "type": "object",
    "description": "One failing test of the rule.",
    "required": ["test", "message"],
    "additionalProperties": False,
    "properties": {
        "test": {"type": "string", "description": "pytest node ID"},
        "message": {"type": "string", "description": "first lines of the failure, addresses blanked"},
        "scenario": {"type": ["object", "string"],
                     "description": "the (shrunk) scenario, as spec.model.scenario_to_dict gives it"},
        "snippet": {"type": "string", "description": "a self-contained Python reproduction"},
        "examples": {"type": "integer", "minimum": 0, "description": "examples the test ran"},
    },
}

_RULE: Final[dict[str, Any]] = {
    "type": "object",
    "description": "One catalogue rule and its verdict. No times or durations: for a fixed "
                   "seed two runs give identical rule entries.",
    "required": ["level", "generations", "title", "verdict", "tests", "failures"],
    "additionalProperties": False,
    "properties": {
        "level": {"enum": ["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]},
        "generations": {"type": "array", "items": {"enum": ["2022", "stack"]}, "minItems": 1},
        "title": _STR,
        "verdict": {"enum": list(VERDICTS),
                    "description": "pass: a test passed and none failed; fail; expected_failure: "
                                   "failed and listed in the expected-failures file; "
                                   "not_applicable: not for this generation or all its tests "
                                   "were not applicable; untested: no test ran; not_selected: "
                                   "the run was partial and left out tests of the rule"},
        "tests": {"type": "array", "items": _STR, "description": "node IDs of its tests"},
        "expected_failure_reason": _STR,
        "failures": {"type": "array", "items": {"$ref": "#/$defs/failure"}},
    },
}

_HYPOTHESIS: Final[dict[str, Any]] = {
    "type": "object",
    "description": "The hypothesis settings the tests ran with, as each test read them back "
                   "from hypothesis just before it ran; null where no test reported.",
    "required": ["profile", "seed", "derandomize", "max_examples", "database", "tests",
                 "requested", "disagreements"],
    "additionalProperties": False,
    "properties": {
        "profile": {"type": ["string", "null"],
                    "description": "the settings profile every test ran under (null: they differ)"},
        "seed": {"type": ["string", "null"],
                 "description": "the seed given to hypothesis (null: none, or the tests differ); "
                                "each generated-scenario chunk derives its own from it"},
        "derandomize": {"type": ["boolean", "null"],
                        "description": "true only if every test ran derandomized"},
        "max_examples": {"type": ["integer", "null"], "minimum": 1,
                         "description": "the smallest max_examples any test ran with"},
        "database": {"type": ["boolean", "null"],
                     "description": "whether any test ran with an example database"},
        "tests": {"type": "integer", "minimum": 0, "description": "tests that reported"},
        "requested": {
            "type": "object",
            "description": "the profile and seed the suite chose (--certify, --hypothesis-profile, "
                           "--hypothesis-seed)",
            "required": ["profile", "seed"],
            "additionalProperties": False,
            "properties": {"profile": _STR, "seed": {"type": ["string", "null"]}},
        },
        "disagreements": {"type": "array", "items": _STR,
                          "description": "one line per way tests ran with settings other than "
                                         "the requested ones (a --certify run with any fails)"},
    },
}

#: JSON Schema (draft 2020-12) of ``certificate.json``.
CERTIFICATE_SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "tfmode-conformance certificate",
    "description": "What one conformance run established about one implementation of "
                   "__torch_function__ modes, rule by rule.",
    "type": "object",
    "required": ["schema_version", "suite_version", "spec_version", "generated_at",
                 "implementation", "environment", "hypothesis", "run", "certify", "level",
                 "summary", "stale_expected_failures", "noise_warnings", "rules"],
    "additionalProperties": False,
    "properties": {
        "schema_version": {"enum": [2, 3, 4, 5, 6, 7, SCHEMA_VERSION],
                           "description": "8 added unused_scope (scope elements of expected "
                                          "failures that excused nothing); 7 added "
                                          "run.exhaustive (the exhaustive scope's "
                                          "count and time) and the invocation's exhaustive; "
                                          "6 added surface (the surface sweep's table); "
                                          "5 added evidence (digests and the invocation, for "
                                          "python -m conformance verify); 4 added "
                                          "not_compiled and run.compile (--compile); 3 added "
                                          "not_selected and run.selection (partial runs); 2 "
                                          "to 6 are still read"},
        "suite_version": {"type": "string", "description": "conformance.__version__"},
        "spec_version": {
            "type": "object",
            "required": ["version", "rules", "digest"],
            "additionalProperties": False,
            "properties": {
                "version": _STR,
                "rules": {"type": "integer", "minimum": 1, "description": "catalogue size"},
                "digest": {"type": "string", "pattern": r"^sha256:[0-9a-f]{64}$",
                           "description": "hash of every rule's ID, level, generations and "
                                          "statement"},
            },
        },
        "generated_at": {"type": "string", "description": "UTC, ISO 8601; the only time stamp"},
        "implementation": {
            "type": "object",
            "required": ["name", "version", "generation", "features", "release"],
            "additionalProperties": False,
            "properties": {
                "name": _STR, "version": _STR, "generation": {"enum": ["2022", "stack"]},
                "features": {"type": "array", "items": _STR},
                "release": {"type": ["string", "null"],
                            "description": "the release whose texts the implementation shows "
                                           "(spec/texts.toml), e.g. 2.0.1 or pr75154; null: "
                                           "none reported"},
            },
        },
        "environment": {
            "type": "object",
            "required": ["python", "platform", "pytest", "hypothesis"],
            "additionalProperties": False,
            "properties": {"python": _STR, "platform": _STR, "pytest": _STR, "hypothesis": _STR,
                           "numpy": {"type": ["string", "null"],
                                     "description": "the numpy installed beside the "
                                                    "implementation (null: none); torch "
                                                    "dispatches some operators differently "
                                                    "without it"}},
        },
        "hypothesis": _HYPOTHESIS,
        "run": {
            "type": "object",
            "description": "whether every selected test of the suite ran to its end and reported; "
                           "an incomplete run certifies nothing (its level is none)",
            "required": ["complete", "selected_tests", "reported_tests", "problems"],
            "additionalProperties": False,
            "properties": {
                "complete": {"type": "boolean"},
                "selected_tests": {"type": "integer", "minimum": 0},
                "reported_tests": {"type": "integer", "minimum": 0},
                "problems": {"type": "array", "items": _STR,
                             "description": "why the run is incomplete, one line each"},
                "processes_ended": {"type": "integer", "minimum": 0,
                                    "description": "processes the implementation started that "
                                                   "the run had to end (at a restart of its "
                                                   "sandbox or at the end); absent in "
                                                   "earlier certificates"},
                "compile": COMPILE_SCHEMA,
                "exhaustive": EXHAUSTIVE_SCHEMA,
                "selection": {
                    "type": "object",
                    "description": "whether the run was partial (--rules, -k, -m, --deselect, "
                                   "node IDs or a module of the suite left tests out); a partial "
                                   "run certifies nothing (its level is none); absent in schema 2",
                    "required": ["partial", "reasons", "rules_option", "covered_rules"],
                    "additionalProperties": False,
                    "properties": {
                        "partial": {"type": "boolean"},
                        "reasons": {"type": "array", "items": _STR,
                                    "description": "how the run was narrowed, one line each"},
                        "rules_option": {"type": ["array", "null"],
                                         "items": {"type": "string", "pattern": _ID},
                                         "description": "the rules --rules chose (null: none)"},
                        "covered_rules": {"type": ["array", "null"],
                                          "items": {"type": "string", "pattern": _ID},
                                          "description": "in a partial run, the rules every test "
                                                         "of which ran (null: a whole run)"},
                    },
                },
            },
        },
        "certify": {"type": "boolean", "description": "the run was made with --certify"},
        "level": {
            "type": "object",
            "description": "MUST: every MUST (NOT) rule passes or does not apply; SHOULD: so do "
                           "the SHOULD (NOT) rules; features: declared optional features whose "
                           "rules all pass (listed once MUST is reached)",
            "required": ["reached", "features"],
            "additionalProperties": False,
            "properties": {"reached": {"enum": ["none", "MUST", "SHOULD"]},
                           "features": {"type": "array", "items": _STR}},
        },
        "summary": {
            "type": "object",
            "required": list(VERDICTS_V2),
            "additionalProperties": False,
            "properties": {v: {"type": "integer", "minimum": 0} for v in VERDICTS},
        },
        "stale_expected_failures": {"type": "array", "items": {"type": "string", "pattern": _ID}},
        "unused_scope": {
            "type": "object",
            "description": "rule ID -> the elements of its expected failure's functions (names "
                           "and scope words) that excused no divergence in this run; empty "
                           "where the run is partial or incomplete",
            "propertyNames": {"pattern": _ID},
            "additionalProperties": {"type": "array", "items": _STR},
        },
        "noise_warnings": {
            "type": "array",
            "description": "warnings the implementation raised for its own reasons (not the "
                           "protocol's: see conformance.target.noise), never compared with the model; "
                           "one entry per category and first line, with how often it was seen",
            "items": {"type": "object", "required": ["category", "message", "count"],
                      "additionalProperties": False,
                      "properties": {"category": _STR, "message": {"type": "string"},
                                     "count": {"type": "integer", "minimum": 1}}},
        },
        "rules": {"type": "object", "propertyNames": {"pattern": _ID},
                  "additionalProperties": {"$ref": "#/$defs/rule"}},
        "evidence": {**EVIDENCE_SCHEMA, "type": ["object", "null"],
                     "description": EVIDENCE_SCHEMA["description"] + "; null: the certificate "
                                    "was not made by a run (nothing to verify)"},
        "surface": {**_SURFACE, "type": ["object", "null"]},
    },
    "if": {"properties": {"schema_version": {"const": SCHEMA_VERSION}}},
    "then": {"required": ["evidence", "surface", "unused_scope"]},
    "$defs": {"rule": _RULE, "failure": _FAILURE},
}


def _installed(distribution: str) -> str | None:
    """The installed version of ``distribution`` (``None``: not installed), read from its
    metadata, without importing it."""
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return None


def spec_version(catalogue: Catalogue) -> dict[str, Any]:
    """The suite version, the catalogue's size and a digest of its normative content."""
    digest = hashlib.sha256()
    for rule in catalogue.rules:
        digest.update("\x1f".join([rule.id, rule.level, ",".join(rule.generations),
                                   rule.statement]).encode())
        digest.update(b"\x1e")
    return {"version": __version__, "rules": len(catalogue),
            "digest": f"sha256:{digest.hexdigest()}"}


def build_certificate(*, catalogue: Catalogue, implementation: Mapping[str, Any],
                      hypothesis_settings: Mapping[str, Any], run: Mapping[str, Any], certify: bool,
                      level: Mapping[str, Any], summary: Mapping[str, int],
                      rules: Mapping[str, Any], stale: Sequence[str],
                      unused_scope: Mapping[str, Sequence[str]] | None = None,
                      generated_at: str | None = None,
                      noise_warnings: Sequence[Mapping[str, Any]] = (),
                      evidence: Mapping[str, Any] | None = None,
                      surface: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The certificate document (see :data:`CERTIFICATE_SCHEMA`)."""
    now = generated_at or datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    return {
        "schema_version": SCHEMA_VERSION,
        "suite_version": __version__,
        "spec_version": spec_version(catalogue),
        "generated_at": now,
        "implementation": {
            "name": str(implementation["name"]),
            "version": str(implementation["version"]),
            "generation": str(implementation["generation"]),
            "features": sorted(implementation["features"]),
            "release": implementation.get("release"),
        },
        "environment": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "pytest": pytest.__version__,
            "hypothesis": hypothesis.__version__,
            "numpy": _installed("numpy"),
        },
        "hypothesis": dict(hypothesis_settings),
        "run": dict(run),
        "certify": certify,
        "level": dict(level),
        "summary": dict(summary),
        "stale_expected_failures": list(stale),
        "unused_scope": {k: list(v) for k, v in (unused_scope or {}).items()},
        "noise_warnings": [dict(n) for n in noise_warnings],
        "rules": dict(rules),
        "evidence": None if evidence is None else dict(evidence),
        "surface": None if surface is None else dict(surface),
    }


def write_atomically(path: str | Path, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file in the same directory and os.replace.

    A crash at any point leaves either the old file or the new one, never half of one, and
    no temporary file behind.
    """
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)  # mkstemp makes it private; a report is for everyone to read
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def dumps(document: Mapping[str, Any]) -> str:
    """The JSON text written for a certificate or a badge."""
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def validate_certificate(document: Any, schema: Mapping[str, Any] = CERTIFICATE_SCHEMA) -> list[str]:
    """Every way ``document`` breaks ``schema`` (empty: it is valid)."""
    return validate(document, schema)
