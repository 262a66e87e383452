"""One retrieval strategy per query type (docs/method.md#query-types-and-routes).

=========================  ===================================  ====================================
query type                 strategy                             what runs
=========================  ===================================  ====================================
explicit_fact              ``similarity``                       dense + BM25 top-k, fused
implicit_reasoning         ``multi_query``                      dense + BM25 of the question, plus
                                                                the dense hits of rephrasings (RRF)
interpretable_rationale    ``keyword_expansion+compression``    dense + BM25, plus BM25 of the query
                                                                expanded with the field's terms;
                                                                compression only with the LLM step
hidden_rationale           ``hybrid_sparse_dense``              dense + BM25 fused, then a choice
                                                                among sources (passages, graph facts)
=========================  ===================================  ====================================

Every route starts from the same first stage, dense and BM25 fused by reciprocal rank
(``base.HYBRID_FUSION``); the route's own lists join that fusion with lower weights. Measured on the
hand-written 17-paper set (scripts/ablate_retrieval.py, docs/experiments.md#the-ablation): the fused
first stage is what lifts evidence recall over dense search; rephrasings and expansions were
neutral there, deterministic compression cut evidence recall@5 from 0.76 to 0.36 (it drops the
sentences around the best one), and filtering passages by retriever agreement cost 0.02 on hidden
rationale questions — so compression runs only when an LLM is asked to do it, and passages are no
longer filtered by agreement.

The paper lets an LLM write the rephrasings and expansions, compress passages and pick sources. With
an LLM configured for a step (``llm_steps``) it is asked for JSON (prompts in
``geo_rag_runtime.prompts``), validated, with a fallback on any failure; without one the
deterministic equivalents run, named in the strategy label.
"""

from __future__ import annotations

from geo_rag_runtime.models import QUERY_TYPES, QueryType
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun
from geo_rag_runtime.query.strategies.expansion import KeywordExpansionCompression
from geo_rag_runtime.query.strategies.hybrid import HybridSparseDense
from geo_rag_runtime.query.strategies.multi_query import MultiQuery
from geo_rag_runtime.query.strategies.similarity import Similarity

__all__ = [
    "Strategy",
    "StrategyRun",
    "Similarity",
    "MultiQuery",
    "KeywordExpansionCompression",
    "HybridSparseDense",
    "STRATEGIES",
    "strategy_for",
]

STRATEGIES: dict[QueryType, Strategy] = {
    "explicit_fact": Similarity(),
    "implicit_reasoning": MultiQuery(),
    "interpretable_rationale": KeywordExpansionCompression(),
    "hidden_rationale": HybridSparseDense(),
}
assert set(STRATEGIES) == set(QUERY_TYPES)


def strategy_for(category: QueryType) -> Strategy:
    """The strategy the method assigns to a query type (docs/method.md#query-types-and-routes)."""
    try:
        return STRATEGIES[category]
    except KeyError:
        raise ValueError(f"unknown query type {category!r}; known: {', '.join(QUERY_TYPES)}") from None
