"""A small validator: the subset of JSON Schema (draft 2020-12) that the certificate's schema
uses (type, const, enum, pattern, minimum, items, minItems, required, properties,
additionalProperties, propertyNames, $ref into $defs, if/then)."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Final

_TYPES: Final[dict[str, tuple[type, ...]]] = {
    "object": (dict,), "array": (list,), "string": (str,), "boolean": (bool,),
    "integer": (int,), "number": (int, float), "null": (type(None),),
}


def _is(value: object, kind: str) -> bool:
    if kind in ("integer", "number") and isinstance(value, bool):
        return False
    return isinstance(value, _TYPES[kind])


def _validate(value: Any, schema: Mapping[str, Any], where: str, root: Mapping[str, Any],
              errors: list[str]) -> None:
    if "$ref" in schema:
        name = schema["$ref"].removeprefix("#/$defs/")
        _validate(value, root["$defs"][name], where, root, errors)
        return
    if "if" in schema and "then" in schema:
        probe: list[str] = []
        _validate(value, schema["if"], where, root, probe)
        if not probe:
            _validate(value, schema["then"], where, root, errors)
    kinds = schema.get("type")
    if kinds is not None:
        kinds = [kinds] if isinstance(kinds, str) else kinds
        if not any(_is(value, k) for k in kinds):
            errors.append(f"{where}: expected {' or '.join(kinds)}, got {type(value).__name__}")
            return
    if "const" in schema and value != schema["const"]:
        errors.append(f"{where}: expected {schema['const']!r}")
    if "enum" in schema and value not in schema["enum"]:
        errors.append(f"{where}: {value!r} is not one of {schema['enum']}")
    if "pattern" in schema and isinstance(value, str) and not re.search(schema["pattern"], value):
        errors.append(f"{where}: {value!r} does not match {schema['pattern']!r}")
    if "minimum" in schema and _is(value, "number") and value < schema["minimum"]:
        errors.append(f"{where}: {value} is below {schema['minimum']}")
    if isinstance(value, list):
        if len(value) < schema.get("minItems", 0):
            errors.append(f"{where}: fewer than {schema['minItems']} items")
        for i, item in enumerate(value):
            if "items" in schema:
                _validate(item, schema["items"], f"{where}[{i}]", root, errors)
    if isinstance(value, dict):
        errors.extend(f"{where}.{k}: missing" for k in schema.get("required", ()) if k not in value)
        props: Mapping[str, Any] = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, item in value.items():
            if "propertyNames" in schema:
                _validate(key, schema["propertyNames"], f"{where} key {key!r}", root, errors)
            if key in props:
                _validate(item, props[key], f"{where}.{key}", root, errors)
            elif extra is False:
                errors.append(f"{where}.{key}: unknown field")
            elif isinstance(extra, dict):
                _validate(item, extra, f"{where}.{key}", root, errors)


def validate(document: Any, schema: Mapping[str, Any]) -> list[str]:
    """Every way ``document`` breaks ``schema`` (empty: it is valid)."""
    errors: list[str] = []
    _validate(document, schema, "$", schema, errors)
    return errors
