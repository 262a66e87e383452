"""The LLM triple extractor: a JSON-schema prompt per chunk, its output held to the vocabulary.

Output is validated against the vocabulary (unknown relations dropped, names canonicalized through the
recognizer, type constraints enforced) and the evidence sentence is checked against the chunk. The system
prompt renders ``geo_rag_runtime.prompts.EXTRACT_TRIPLES`` with the vocabulary's relations and types.
"""

from collections.abc import Sequence
from typing import Any

from geo_assets.graph.extraction.common import (
    LLM_EXTRACTOR_PREFIX,
    _quantity_attributes,
    _sentences,
    _skip_chunk,
    _triple,
)
from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.prompts import EXTRACT_TRIPLES
from geo_rag_runtime.vocab import RELATIONS, load_vocabulary, recognize, recognize_whole

TRIPLE_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "triples": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "head": {"type": "string"},
                    "head_type": {"type": "string"},
                    "relation": {"type": "string", "enum": sorted(RELATIONS)},
                    "tail": {"type": "string"},
                    "tail_type": {"type": "string"},
                    "evidence": {"type": "string"},
                },
                "required": ["head", "head_type", "relation", "tail", "tail_type", "evidence"],
                "additionalProperties": False,
            },
        }
    },
    "required": ["triples"],
    "additionalProperties": False,
}


def _system_prompt() -> str:
    """EXTRACT_TRIPLES with the vocabulary's relations (allowed head/tail types) and entity types."""
    relations = [
        f"- {spec.name}: {', '.join(sorted(spec.heads))} -> {', '.join(sorted(spec.tails))} ({spec.description})"
        for spec in RELATIONS.values()
        if not spec.structural
    ]
    system, _ = EXTRACT_TRIPLES.render(
        relations="\n".join(relations), entity_types=", ".join(load_vocabulary().types), text=""
    )
    return system


class LLMTripleExtractor:
    """Triples from an LLM, kept only where they fit the vocabulary (names, types, relation constraints)."""

    def __init__(self, llm: Any, *, max_chunk_chars: int = 6000, max_tokens: int = 1500) -> None:
        self.llm = llm
        self.max_chunk_chars = max_chunk_chars
        self.max_tokens = max_tokens
        self.system = _system_prompt()
        self.dropped = 0  # triples the validation refused (for asset metadata)

    @property
    def extractor(self) -> str:
        return f"{LLM_EXTRACTOR_PREFIX}{self.llm.name}"

    def extract_chunk(self, chunk: Chunk) -> list[Triple]:
        """Raises ServiceError when the LLM fails; callers decide whether to fall back."""
        if _skip_chunk(chunk):
            return []
        payload = self.llm.complete_json(
            self.system,
            EXTRACT_TRIPLES.user.format(text=chunk.text[: self.max_chunk_chars]),
            json_schema=TRIPLE_JSON_SCHEMA,
            max_tokens=self.max_tokens,
        )
        rows = payload.get("triples")
        if not isinstance(rows, list):
            raise ServiceError("LLM triple output has no 'triples' list")
        out: dict[str, Triple] = {}
        for row in rows:
            triple = self._validate(chunk, row)
            if triple is None:
                self.dropped += 1
            else:
                out.setdefault(triple.triple_id, triple)
        return list(out.values())

    def _validate(self, chunk: Chunk, row: Any) -> Triple | None:
        if not isinstance(row, dict):
            return None
        relation = str(row.get("relation", "")).strip().upper().replace(" ", "_")
        spec = RELATIONS.get(relation)
        types = load_vocabulary().types
        if spec is None or row.get("head_type") not in types or row.get("tail_type") not in types:
            return None
        head = recognize_whole(str(row.get("head", "")))
        tail = recognize_whole(str(row.get("tail", "")))
        if head is None or tail is None or head.name == tail.name or not spec.allows(head.type, tail.type):
            return None
        evidence = " ".join(str(row.get("evidence", "")).split())
        sentence, verified = self._evidence_sentence(chunk, evidence, head.name, tail.name)
        if not sentence:
            return None
        attrs: dict[str, Any] = {"evidence_verified": verified}
        attrs.update(_quantity_attributes(tail.name, tail.type))
        return _triple(
            chunk,
            head.name,
            head.type,
            relation,
            tail.name,
            tail.type,
            sentence,
            self.extractor,
            0.8 if verified else 0.6,
            attrs,
        )

    @staticmethod
    def _evidence_sentence(chunk: Chunk, evidence: str, head: str, tail: str) -> tuple[str, bool]:
        """The chunk sentence that holds the evidence (verified), else one naming both entities."""
        sentences = _sentences(chunk)
        if evidence:
            for sentence in sentences:
                if evidence in sentence or sentence in evidence:
                    return sentence, True
        for sentence in sentences:
            names = {e.name for e in recognize(sentence)}
            if head in names and tail in names:
                return sentence, False
        return "", False

    def extract(self, chunks: Sequence[Chunk]) -> list[Triple]:
        out: list[Triple] = []
        for chunk in chunks:
            out += self.extract_chunk(chunk)
        return out
