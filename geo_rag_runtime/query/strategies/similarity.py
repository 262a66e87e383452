"""Explicit facts → dense similarity search (PAPER.md §6)."""

from __future__ import annotations

from geo_rag_runtime.models import QueryType
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun
from geo_rag_runtime.query.tools import RetrievalTools

__all__ = ["DenseSimilarity"]


class DenseSimilarity(Strategy):
    """Explicit facts: the passage that states the fact is the one most similar to the question."""

    name = "dense_similarity"
    category: QueryType = "explicit_fact"

    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        return StrategyRun(self.category, self.name, tools.dense(question.search_text, top_k))
