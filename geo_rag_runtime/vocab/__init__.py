"""Geochemical vocabulary and entity recognition, shared by ingest and query time."""

from geo_rag_runtime.vocab.recognizer import (
    Quantity,
    Recognizer,
    entity_names,
    get_recognizer,
    lookup,
    names_of,
    parse_quantity,
    recognize,
    recognize_whole,
)
from geo_rag_runtime.vocab.vocabulary import (
    ENTITY_TYPES,
    GENERIC_INFORMATIVE_TYPES,
    GENERIC_NAMES,
    INVERSE_RELATIONS,
    QUANTITY_TYPES,
    RELATIONS,
    RelationSpec,
    Vocabulary,
    load_vocabulary,
    normalize_text,
    vocabulary_version,
)

__all__ = [
    "ENTITY_TYPES",
    "GENERIC_INFORMATIVE_TYPES",
    "GENERIC_NAMES",
    "INVERSE_RELATIONS",
    "QUANTITY_TYPES",
    "RELATIONS",
    "Quantity",
    "Recognizer",
    "RelationSpec",
    "Vocabulary",
    "entity_names",
    "get_recognizer",
    "load_vocabulary",
    "lookup",
    "names_of",
    "normalize_text",
    "parse_quantity",
    "recognize",
    "recognize_whole",
    "vocabulary_version",
]
