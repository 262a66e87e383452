"""Query-side retrieval: dense (Chroma), sparse (BM25) and their reciprocal rank fusion.

Each retriever has ``retrieve(question, *, top_k=None, filters=None) -> list[RetrievedItem]``; results
are best first, without duplicates, with overlapping windows of one paper merged (see ``fusion``).
"""

from geo_rag_runtime.retrieval.fusion import collapse_overlaps, fuse, positions
from geo_rag_runtime.retrieval.keyword import KeywordRetriever
from geo_rag_runtime.retrieval.vector import (
    FILTER_KEYS,
    VectorRetriever,
    build_where,
    matches_filters,
    parse_filters,
    preprocess_query,
)

__all__ = [
    "FILTER_KEYS",
    "KeywordRetriever",
    "VectorRetriever",
    "build_where",
    "collapse_overlaps",
    "fuse",
    "matches_filters",
    "parse_filters",
    "positions",
    "preprocess_query",
]
