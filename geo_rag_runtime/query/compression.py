"""Contextual compression: keep only the sentences of each passage that bear on the question.

With an LLM it names, per passage, the numbers of the relevant sentences (JSON, validated); without
one, or when it fails, sentences whose relevance (:class:`~geo_rag_runtime.query.relevance.RelevanceScorer`)
reaches the threshold are kept, and always a passage's best.
"""

from __future__ import annotations

from collections.abc import Sequence

from geo_rag_runtime.errors import GeoRagError, ServiceError
from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.prompts import COMPRESS
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = ["COMPRESSION_THRESHOLD", "compress_passages"]

COMPRESSION_THRESHOLD = 0.35  # sentence relevance kept by embedding compression (see RelevanceScorer)


def compress_passages(
    question: str,
    chunks: Sequence[RetrievedItem],
    tools: RetrievalTools,
    *,
    threshold: float = COMPRESSION_THRESHOLD,
) -> tuple[list[RetrievedItem], str, list[str]]:
    """Keep only the sentences of each passage that bear on the question; returns (items, how, notes).

    With an LLM: it names, per passage, the numbers of the relevant sentences (validated). Without,
    or when it fails: sentences whose relevance reaches ``threshold``, and always a passage's best.
    Passages keep their order and metadata; kept sentences keep their order, joined by " … ".
    """
    from geo_rag_runtime.query.generation import passage_refs
    from geo_rag_runtime.query.sentence_vectors import passage_sentences

    passages = [passage_sentences(item.text) for item in chunks]
    notes: list[str] = []
    keep: list[list[int]] | None = None
    how = "embedding"
    if (llm := tools.step_llm("compress")) is not None and chunks:
        try:
            keep = _llm_compression(question, passages, llm)
            how = "llm"
        except GeoRagError as exc:
            notes.append(f"LLM compression failed ({exc}); compressed by sentence relevance instead")
    if keep is None:
        tools.scorer.prefill(passage_refs(chunks))
        relevance = tools.scorer.for_question(question)
        flat = [sentence for sentences in passages for sentence in sentences]
        scores = relevance.score(flat)
        keep, offset = [], 0
        for sentences in passages:
            own = scores[offset : offset + len(sentences)]
            offset += len(sentences)
            best = max(range(len(own)), key=lambda i: own[i].total)
            keep.append([i for i, s in enumerate(own) if s.total >= threshold or i == best])
    out: list[RetrievedItem] = []
    for item, sentences, indices in zip(chunks, passages, keep, strict=True):
        if not indices:
            continue
        text = " … ".join(sentences[i].strip() for i in sorted(set(indices)))
        retriever = f"{item.retriever}+compressed" if item.retriever else "compressed"
        out.append(item.model_copy(update={"text": text, "retriever": retriever}))
    return out, how, notes


def _llm_compression(question: str, passages: list[list[str]], llm: ChatModel) -> list[list[int]]:
    numbered = "\n\n".join(
        f"Passage {p}:\n" + "\n".join(f"  ({i}) {s}" for i, s in enumerate(sentences))
        for p, sentences in enumerate(passages)
    )
    schema = {
        "type": "object",
        "properties": {
            "keep": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "passage": {"type": "integer"},
                        "sentences": {"type": "array", "items": {"type": "integer"}},
                    },
                    "required": ["passage", "sentences"],
                },
            }
        },
        "required": ["keep"],
    }
    system, user = COMPRESS.render(question=question, passages=numbered)
    value = llm.complete_json(system, user, json_schema=schema, max_tokens=400)
    entries = value.get("keep")
    if not isinstance(entries, list):
        raise ServiceError("LLM compression output has no list 'keep'")
    keep: list[list[int]] = [[] for _ in passages]
    for entry in entries:
        if not isinstance(entry, dict):
            continue
        p, sentences = entry.get("passage"), entry.get("sentences")
        if not isinstance(p, int) or not 0 <= p < len(passages) or not isinstance(sentences, list):
            continue
        keep[p] = [i for i in sentences if isinstance(i, int) and 0 <= i < len(passages[p])]
    if not any(keep):
        raise ServiceError("LLM compression kept no sentence of any passage")
    return keep
