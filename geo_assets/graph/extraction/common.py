"""What both extractors share: the extractor names, the sentences of a chunk that are read, triple building.

The rules and the LLM extractor read the same sentences (reference sections, citation-noise and question
sentences skipped) and build triples the same way (content-derived ``triple_id``, the sentence as
provenance, parsed quantities as attributes), so a fact found by both gets the same id.
"""

import re
from typing import Any

from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk, Triple

try:
    from geo_rag_runtime.text.sentences import split_sentences
except ImportError:  # pragma: no cover - the splitter ships with the runtime; kept for partial checkouts
    _SIMPLE = re.compile(r"(?<!\bal)(?<!\bFig)(?<!\be\.g)(?<!\bi\.e)(?<!\bca)[.!?](?=\s+[A-Z0-9(δε])")

    def split_sentences(text: str) -> list[tuple[int, int]]:
        spans, start = [], 0
        for m in _SIMPLE.finditer(text):
            spans.append((start, m.end()))
            start = m.end() + 1
        if text[start:].strip():
            spans.append((start, len(text)))
        return [(s + len(text[s:e]) - len(text[s:e].lstrip()), e) for s, e in spans if text[s:e].strip()]


RULES_EXTRACTOR = "rules-v1"
LLM_EXTRACTOR_PREFIX = "llm:"

_SKIP_SECTIONS = re.compile(
    r"reference|bibliograph|acknowledg|author contribution|data availability|funding|competing interest|"
    r"conflict of interest|open research|supporting information",
    re.IGNORECASE,
)
_CITATION_NOISE = re.compile(r"\b[A-Z]\.\s?(?:,|&|and\b)|\(\d{4}[a-z]?\)\.|doi[:.]|https?://")
_MAX_SENTENCE = 800


def _skip_chunk(chunk: Chunk) -> bool:
    return bool(chunk.section and _SKIP_SECTIONS.search(chunk.section))


def _looks_like_reference(sentence: str) -> bool:
    return len(_CITATION_NOISE.findall(sentence)) >= 3


def _triple(
    chunk: Chunk,
    head: str,
    head_type: str,
    relation: str,
    tail: str,
    tail_type: str,
    sentence: str,
    extractor: str,
    confidence: float,
    attributes: dict[str, Any],
) -> Triple:
    return Triple(
        triple_id=contract.triple_id(chunk.chunk_id, head, relation, tail, sentence),
        head=head,
        head_type=head_type,
        relation=relation,
        tail=tail,
        tail_type=tail_type,
        paper_id=chunk.paper_id,
        chunk_id=chunk.chunk_id,
        sentence=sentence,
        extractor=extractor,
        confidence=round(confidence, 3),
        attributes=attributes,
    )


def _quantity_attributes(name: str, type_: str) -> dict[str, Any]:
    from geo_rag_runtime.vocab import parse_quantity

    if type_ not in ("Measurement", "Age"):
        return {}
    q = parse_quantity(name)
    if q is None:
        return {}
    attrs: dict[str, Any] = {"value": q.value, "unit": q.unit}
    if q.low is not None:
        attrs.update(low=q.low, high=q.high)
    if q.error is not None:
        attrs["error"] = q.error
    return attrs


def _sentences(chunk: Chunk) -> list[str]:
    out = []
    for s, e in split_sentences(chunk.text):
        sentence = " ".join(chunk.text[s:e].split())
        if (
            sentence
            and len(sentence) <= _MAX_SENTENCE
            and not sentence.rstrip("”\"'").endswith("?")  # questions assert nothing
            and not _looks_like_reference(sentence)
        ):
            out.append(sentence)
    return out
