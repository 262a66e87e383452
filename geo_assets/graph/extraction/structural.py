"""Vocabulary-structural facts: what the vocabulary itself implies about an entity, once per chunk.

87Sr ISOTOPE_OF Sr, 87Sr/86Sr RATIO_OF Sr, SiO2 OXIDE_OF Si, Fe(III) SPECIES_OF Fe: these hold by the
entity's name, not by what the sentence says, so they get confidence 1.0 and the rule ``vocabulary``;
the LLM path keeps them too (``extract_triples_with``).
"""

import re

from geo_assets.graph.extraction.common import RULES_EXTRACTOR, _triple
from geo_rag_runtime.models import Chunk, Entity, Triple
from geo_rag_runtime.vocab import load_vocabulary

_SYMBOLS_IN = re.compile(r"(?<![a-z])([A-Z][a-z]?)")


def _structural(entity: Entity) -> list[tuple[str, str, str]]:
    """(relation, tail, tail_type) facts the vocabulary itself implies for one entity."""
    elements = load_vocabulary().elements
    name, type_ = entity.name, entity.type
    symbols: list[str] = []
    relation = ""
    if type_ == "Isotope":
        relation, symbols = "ISOTOPE_OF", [name.lstrip("0123456789")]
    elif type_ == "IsotopeRatio":
        relation = "RATIO_OF"
        if name == "δD":
            symbols = ["H"]
        elif name[0] in "δεΔ":
            symbols = [name[1:].lstrip("0123456789")]
        else:
            symbols = [part.lstrip("0123456789") for part in name.split("/")]
    elif type_ == "ElementRatio":
        relation, symbols = "RATIO_OF", _SYMBOLS_IN.findall(name.replace("*", ""))
    elif type_ == "Species":
        relation, symbols = "SPECIES_OF", [name.split("(")[0]]
    elif type_ == "Oxide":
        relation, symbols = "OXIDE_OF", [s for s in _SYMBOLS_IN.findall(name) if s != "O"] or ["O"]
    seen: dict[str, None] = {}
    for symbol in symbols:
        if symbol in elements:
            seen.setdefault(symbol, None)
    return [(relation, symbol, "Element") for symbol in seen]


def _structural_triples(
    chunk: Chunk, sentence: str, entities: list[Entity], seen: set[tuple[str, str, str]]
) -> list[Triple]:
    out = []
    for entity in entities:
        for relation, tail, tail_type in _structural(entity):
            key = (entity.name, relation, tail)
            if key in seen or tail == entity.name:
                continue
            seen.add(key)
            out.append(
                _triple(
                    chunk,
                    entity.name,
                    entity.type,
                    relation,
                    tail,
                    tail_type,
                    sentence,
                    RULES_EXTRACTOR,
                    1.0,
                    {"rule": "vocabulary"},
                )
            )
    return out
