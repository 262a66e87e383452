"""One retrieval strategy per query type (PAPER.md §6).

=========================  ===================================  ====================================
query type                 strategy                             what runs
=========================  ===================================  ====================================
explicit_fact              ``dense_similarity``                 dense top-k similarity search
implicit_reasoning         ``multi_query``                      several rephrasings, union of their
                                                                dense hits (RRF), multi-hop answer
interpretable_rationale    ``keyword_expansion+compression``    expanded query (dense + BM25), then
                                                                contextual compression of passages
hidden_rationale           ``hybrid_sparse_dense``              BM25 + dense fused by RRF, then a
                                                                choice among sources (dense, sparse,
                                                                graph facts)
=========================  ===================================  ====================================

The paper lets an LLM write the rephrasings and expansions, compress passages and pick sources. With
an LLM configured these steps ask it for JSON (prompts in ``geo_rag_runtime.prompts``), validate it,
and fall back on any failure; without one they run deterministic equivalents that are real code,
named in the strategy label.
"""

from __future__ import annotations

from geo_rag_runtime.models import QUERY_TYPES, QueryType
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun
from geo_rag_runtime.query.strategies.dense import DenseSimilarity
from geo_rag_runtime.query.strategies.expansion import KeywordExpansionCompression
from geo_rag_runtime.query.strategies.hybrid import HybridSparseDense
from geo_rag_runtime.query.strategies.multi_query import MultiQuery

__all__ = [
    "Strategy",
    "StrategyRun",
    "DenseSimilarity",
    "MultiQuery",
    "KeywordExpansionCompression",
    "HybridSparseDense",
    "STRATEGIES",
    "strategy_for",
]

STRATEGIES: dict[QueryType, Strategy] = {
    "explicit_fact": DenseSimilarity(),
    "implicit_reasoning": MultiQuery(),
    "interpretable_rationale": KeywordExpansionCompression(),
    "hidden_rationale": HybridSparseDense(),
}
assert set(STRATEGIES) == set(QUERY_TYPES)


def strategy_for(category: QueryType) -> Strategy:
    """The strategy that PAPER.md §6 assigns to a query type."""
    try:
        return STRATEGIES[category]
    except KeyError:
        raise ValueError(f"unknown query type {category!r}; known: {', '.join(QUERY_TYPES)}") from None
