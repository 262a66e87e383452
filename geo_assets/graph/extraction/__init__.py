"""Triple extraction: (head, relation, tail) facts with provenance, from chunks of cleaned paper text.

Two extractors share one relation vocabulary (``geo_rag_runtime.vocab.RELATIONS``, with allowed head and
tail types per relation) and one entity recognizer, so every triple names vocabulary entities:

* ``extract_triples`` (rules-v1, deterministic, no model): per sentence the recognized entities, then
  - vocabulary-structural facts (87Sr ISOTOPE_OF Sr, 87Sr/86Sr RATIO_OF Sr, SiO2 OXIDE_OF Si), once per chunk;
  - gap patterns between neighbouring entities ("Hf in zircon", "Fe-rich olivine", "87Sr/86Sr of 0.7035",
    "tholeiitic basalts", "zircon U–Pb ages of 385 Ma", "dated by U–Pb");
  - trigger verbs with the nearest type-compatible entity on each side inside the clause ("... indicates",
    "derived from", "measured by", "affected by", "contains");
  - typed co-occurrence of adjacent entities with a lower confidence (zircon U–Pb → DATED_BY).
* ``LLMTripleExtractor`` (when GEO_RAG_LLM_INGEST opts in and an LLM is available): a JSON-schema prompt per chunk; output is validated
  against the vocabulary (unknown relations dropped, names canonicalized through the recognizer, type
  constraints enforced) and the evidence sentence is checked against the chunk.

The package is split by what each part owns; this module keeps the entry points and the public names:

* ``common``: the extractor names, which sentences of a chunk are read (no reference lists, questions or
  citation noise) and how a triple with provenance is built; shared, so both extractors agree on ids.
* ``units``: the sentence model the rules work on (coordinated runs of entities, found facts).
* ``structural``: the vocabulary-structural facts.
* ``rules``: gap patterns, ages and trigger verbs of one sentence, and the rules-v1 extractor.
* ``cooccurrence``: typed co-occurrence of adjacent entities, the low-confidence fallback of the rules.
* ``llm``: the LLM extractor, its JSON schema and its system prompt.
"""

import logging
from collections.abc import Sequence
from typing import Any

from geo_assets.graph.extraction.common import LLM_EXTRACTOR_PREFIX, RULES_EXTRACTOR
from geo_assets.graph.extraction.llm import TRIPLE_JSON_SCHEMA, LLMTripleExtractor
from geo_assets.graph.extraction.rules import extract_chunk_triples, extract_triples, sentence_facts
from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import Chunk, Triple

__all__ = [
    "LLM_EXTRACTOR_PREFIX",
    "LLMTripleExtractor",
    "RULES_EXTRACTOR",
    "TRIPLE_JSON_SCHEMA",
    "extract_chunk_triples",
    "extract_triples",
    "extract_triples_with",
    "sentence_facts",
]

log = logging.getLogger(__name__)


def extract_triples_with(chunks: Sequence[Chunk], llm: Any = None) -> list[Triple]:
    """LLM triples plus the vocabulary-structural ones when an LLM is given, else the rules (rules-v1).

    A chunk whose LLM call fails falls back to the rules, so one bad response never loses a paper.
    """
    if llm is None:
        return extract_triples(chunks)
    extractor = LLMTripleExtractor(llm)
    out: list[Triple] = []
    for chunk in chunks:
        try:
            triples = extractor.extract_chunk(chunk)
        except ServiceError as exc:
            log.warning("LLM extraction failed for %s (%s); using rules-v1", chunk.chunk_id, exc)
            out += extract_chunk_triples(chunk)
            continue
        structural = [t for t in extract_chunk_triples(chunk) if t.attributes.get("rule") == "vocabulary"]
        seen = {t.triple_id for t in triples}
        out += triples + [t for t in structural if t.triple_id not in seen]
    return out
