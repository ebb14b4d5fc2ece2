"""The schema of a rule catalogue area file and its validation, with one-line errors.

:data:`SCHEMA` is the JSON Schema (draft 2020-12) of ``spec/rules/<area>.toml``;
:func:`validate_area_document` checks a parsed file against it without a JSON Schema library,
naming the file, the rule, the field and the problem. Imported by :mod:`spec.catalogue`, which
re-exports what is public; imports nothing of the project.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

__all__ = [
    "EVIDENCE_KINDS",
    "EXAMPLE_IMPLS",
    "GENERATIONS",
    "LEVELS",
    "RULE_ID",
    "SCHEMA",
    "STACK_VERSIONS",
    "CatalogueError",
    "validate_area_document",
]

#: RFC 2119 keywords a rule may carry, strongest first.
LEVELS: Final = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")

#: The generations of the design a rule can apply to: ``2022`` (push/enable and ``inner``,
#: torch 1.12) and ``stack`` (the mode stack of torch 1.13 and 2.x).
GENERATIONS: Final = ("2022", "stack")

#: Versions of the stack generation that a rule can be restricted to (``versions``).
STACK_VERSIONS: Final = ("1.13", "2.x")

#: Namespaces an example can be written against.
EXAMPLE_IMPLS: Final = ("reference_impl", "torch")

#: What a piece of evidence is.
EVIDENCE_KINDS: Final = ("pr", "test", "source", "measurement", "inference")


#: A rule ID (``TFM_ORDER_003``): its area and its number as groups.
RULE_ID: Final = re.compile(r"^TFM_([A-Z]+)_(\d{3})$")
_NONBLANK: Final = r"\S"

_TEXT: Final[dict[str, Any]] = {"type": "string", "pattern": _NONBLANK}

_EVIDENCE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": ["kind", "ref", "note"],
    "additionalProperties": False,
    "properties": {
        "kind": {"type": "string", "enum": list(EVIDENCE_KINDS)},
        "ref": _TEXT,
        "note": _TEXT,
    },
}

_RULE_SCHEMA: Final[dict[str, Any]] = {
    "type": "object",
    "required": [
        "id",
        "level",
        "generations",
        "title",
        "statement",
        "rationale",
        "evidence",
        "example",
    ],
    "additionalProperties": False,
    "properties": {
        "id": {"type": "string", "pattern": RULE_ID.pattern},
        "level": {"type": "string", "enum": list(LEVELS)},
        "generations": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "enum": list(GENERATIONS)},
        },
        "title": _TEXT,
        "statement": _TEXT,
        "rationale": _TEXT,
        "evidence": {"type": "array", "minItems": 1, "items": _EVIDENCE_SCHEMA},
        "example": {"type": "string", "pattern": r"^>>> "},
        "example_impl": {"type": "string", "enum": list(EXAMPLE_IMPLS)},
        "example_stack": {"type": "string", "pattern": r"^>>> "},
        "versions": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "enum": list(STACK_VERSIONS)},
        },
        "uncertainty": _TEXT,
        "texts": {
            "type": "array",
            "minItems": 1,
            "uniqueItems": True,
            "items": {"type": "string", "pattern": r"^[a-z][a-z0-9-]*$"},
        },
    },
}

#: JSON Schema (draft 2020-12) of one area file, ``spec/rules/<area>.toml``.
SCHEMA: Final[dict[str, Any]] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "Rule catalogue area file",
    "description": (
        "One area of the __torch_function__ mode specification: a page title, a summary "
        "and the rules of the area, each with a normative statement and its evidence."
    ),
    "type": "object",
    "required": ["area", "title", "summary", "rule"],
    "additionalProperties": False,
    "properties": {
        "area": {"type": "string", "pattern": r"^[A-Z]+$"},
        "title": _TEXT,
        "summary": _TEXT,
        "rule": {"type": "array", "minItems": 1, "items": _RULE_SCHEMA},
    },
}



class CatalogueError(ValueError):
    """A catalogue file is unreadable or breaks the schema or the numbering rules."""



def _fail(file: str, rule_id: str | None, field: str | None, problem: str) -> CatalogueError:
    parts = [file]
    if rule_id is not None:
        parts.append(f"rule {rule_id}")
    if field:
        parts.append(f"field {field!r}")
    parts.append(problem)
    return CatalogueError(": ".join(" ".join(p.split()) for p in parts))


_JSON_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "string": (str,),
    "array": (list,),
    "object": (dict,),
    "boolean": (bool,),
    "integer": (int,),
    "number": (int, float),
}


def _json_type_name(value: object) -> str:
    if isinstance(value, bool):
        return "boolean"
    for name in ("string", "array", "object", "integer", "number"):
        if isinstance(value, _JSON_TYPES[name]):
            return name
    return type(value).__name__


def _short(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check(value: object, schema: Mapping[str, Any], field: str) -> tuple[str, str] | None:
    """Check ``value`` against ``schema``: ``None`` or ``(field, problem)`` for the first error."""
    expected = schema.get("type")
    if expected is not None:
        if isinstance(value, bool) and expected in ("integer", "number"):
            return field, f"expected {expected}, got boolean"
        if not isinstance(value, _JSON_TYPES[expected]):
            return field, f"expected {expected}, got {_json_type_name(value)}"
    if "enum" in schema and value not in schema["enum"]:
        allowed = ", ".join(repr(v) for v in schema["enum"])
        return field, f"{_short(value)} is not one of {allowed}"
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        return field, f"{_short(value)} does not match pattern {schema['pattern']!r}"
    if isinstance(value, dict):
        for name in schema.get("required", ()):
            if name not in value:
                sub = f"{field}.{name}" if field else name
                return sub, "missing required field"
        properties: Mapping[str, Any] = schema.get("properties", {})
        if schema.get("additionalProperties", True) is False:
            for name in value:
                if name not in properties:
                    sub = f"{field}.{name}" if field else name
                    return sub, "unknown field"
        for name, sub_schema in properties.items():
            if name in value:
                found = _check(value[name], sub_schema, f"{field}.{name}" if field else name)
                if found is not None:
                    return found
    if isinstance(value, list):
        min_items = schema.get("minItems")
        if min_items is not None and len(value) < min_items:
            return field, f"expected at least {min_items} item(s), got {len(value)}"
        if schema.get("uniqueItems") and len({repr(v) for v in value}) != len(value):
            return field, "items are not unique"
        items = schema.get("items")
        if items is not None:
            for index, item in enumerate(value):
                found = _check(item, items, f"{field}[{index}]")
                if found is not None:
                    return found
    return None


def validate_area_document(document: Mapping[str, Any], file: str = "<document>") -> None:
    """Check one parsed area file against :data:`SCHEMA`; raise :class:`CatalogueError` if not.

    A problem inside a rule is reported against that rule's ID when the rule has a
    well-formed one, with the field relative to the rule (``level``, ``evidence[0].kind``).
    """
    rules_schema = {k: v for k, v in SCHEMA["properties"]["rule"].items() if k != "items"}
    shallow = {**SCHEMA, "properties": {**SCHEMA["properties"], "rule": rules_schema}}
    found = _check(document, shallow, "")
    if found is not None:
        raise _fail(file, None, *found)
    for index, rule in enumerate(document["rule"]):
        rule_id = None
        if isinstance(rule, dict):
            candidate = rule.get("id")
            if isinstance(candidate, str) and RULE_ID.match(candidate):
                rule_id = candidate
        found = _check(rule, _RULE_SCHEMA, "")
        if found is not None:
            field, problem = found
            if rule_id is None:
                field = f"rule[{index}].{field}" if field else f"rule[{index}]"
            raise _fail(file, rule_id, field, problem)
