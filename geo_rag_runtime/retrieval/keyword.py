"""Sparse retrieval: BM25 over the same normalized token stream the chunks carry.

The question goes through ``normalize_tokens`` (the function that produced ``Chunk.tokens``), so
"87Sr/86Sr" in a question meets "87Sr/86Sr" in a chunk as the same term.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.retrieval.fusion import collapse_overlaps
from geo_rag_runtime.retrieval.vector import matches_filters, parse_filters, preprocess_query
from geo_rag_runtime.stores.protocols import KeywordIndex

__all__ = ["KeywordRetriever", "record_item"]


def _default_tokenize() -> Callable[[str], list[str]]:
    from geo_rag_runtime.text.keyword_terms import normalize_tokens

    return normalize_tokens


class KeywordRetriever:
    """Top-k chunks by BM25 (retriever="sparse"); same filters and overlap merging as the dense one."""

    name = "sparse"

    def __init__(
        self,
        index: KeywordIndex,
        top_k: int = 5,
        filters: Mapping[str, Any] | None = None,
        *,
        tokenize: Callable[[str], list[str]] | None = None,
        fetch_factor: int = 3,
        max_merged: int = 3,
        max_question_chars: int = 2000,
    ) -> None:
        if top_k <= 0:
            raise ValueError("top_k must be positive")
        self.index = index
        self.top_k = top_k
        self.filters = dict(filters or {})
        self._parsed = parse_filters(self.filters)
        self.tokenize = tokenize or _default_tokenize()
        self.fetch_factor = max(1, fetch_factor)
        self.max_merged = max_merged
        self.max_question_chars = max_question_chars

    def retrieve(
        self, question: str, *, top_k: int | None = None, filters: Mapping[str, Any] | None = None
    ) -> list[RetrievedItem]:
        """Best chunks for ``question`` by BM25 score over the normalized tokens."""
        wanted = top_k or self.top_k
        parsed = parse_filters(filters) if filters is not None else self._parsed
        tokens = self.tokenize(preprocess_query(question, self.max_question_chars))
        record_filter = (lambda record: matches_filters(record, parsed)) if parsed else None
        hits = self.index.search(tokens, wanted * self.fetch_factor, record_filter=record_filter)
        scores = dict(hits)
        items = [
            record_item(record, scores[record["chunk_id"]])
            for record in self.index.records([chunk_id for chunk_id, _ in hits])
        ]
        return collapse_overlaps(items, top_k=wanted, max_merged=self.max_merged)


def record_item(record: Mapping[str, Any], score: float, retriever: str = "sparse") -> RetrievedItem:
    """A keyword-index record (chunk text and metadata) as a retrieved, citable chunk."""
    return RetrievedItem(
        kind="chunk",
        text=record["text"],
        score=score,
        retriever=retriever,
        chunk_id=record["chunk_id"],
        paper_id=record["paper_id"],
        source_file=record["source_file"],
        title=record["title"],
        section=record["section"],
        page_start=record.get("page_start"),
        page_end=record.get("page_end"),
        provenance=[
            {
                "chunk_id": record["chunk_id"],
                "paper_id": record["paper_id"],
                "ordinal": record["ordinal"],
                "char_start": record["char_start"],
                "char_end": record["char_end"],
                "page_start": record.get("page_start"),
                "page_end": record.get("page_end"),
            }
        ],
    )
