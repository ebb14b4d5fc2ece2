"""The specification of __torch_function__ modes: the rule catalogue and the executable model."""

from spec.catalogue import (
    AREA_ORDER,
    EVIDENCE_KINDS,
    GENERATIONS,
    LEVELS,
    RULES_DIR,
    SCHEMA,
    Area,
    Catalogue,
    CatalogueError,
    Evidence,
    Rule,
    load_catalogue,
    validate_area_document,
)

__all__ = [
    "AREA_ORDER",
    "EVIDENCE_KINDS",
    "GENERATIONS",
    "LEVELS",
    "RULES_DIR",
    "SCHEMA",
    "Area",
    "Catalogue",
    "CatalogueError",
    "Evidence",
    "Rule",
    "load_catalogue",
    "validate_area_document",
]
