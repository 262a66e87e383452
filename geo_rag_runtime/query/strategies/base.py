"""What every strategy is: ``retrieve`` (stage "vector") then ``refine`` (stage "fusion").

``refine`` is separate because compression and source choice need the graph facts, which the
pipeline fetches between the two steps; the pipeline times each step on its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import QueryType, RetrievedItem
from geo_rag_runtime.prompts import Prompt
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = ["HYBRID_FUSION", "Candidates", "Strategy", "StrategyRun", "candidates", "llm_strings"]

_MAX_LLM_TEXT = 400

# How every HybridRAG route fuses its dense and BM25 lists (reciprocal rank fusion: k, list weights).
# Measured on the hand-written 17-paper set (166 answerable questions, evidence recall@5 after the
# context is built; scripts/ablate_retrieval.py): dense 0.699, equal-weight RRF k=60 0.775 before the
# context, k=10 with BM25 weighted 2× 0.757 and 3× 0.762 after it. Geochemical questions name rare
# terms (87Sr/86Sr, a formation, a sample) that BM25 matches exactly and a 384-d MiniLM blurs.
HYBRID_FUSION: dict[str, Any] = {"k": 10, "weights": (1.0, 3.0)}
CANDIDATE_FACTOR = 4  # each retriever returns this many × top_k before fusion


@dataclass
class StrategyRun:
    """What a strategy retrieved and how; ``label`` becomes ``Answer.strategy``."""

    category: QueryType
    label: str
    chunks: list[RetrievedItem]
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # rephrasings, expansion terms, sources
    prompts: list[str] = field(default_factory=list)  # ids of the prompt templates sent to the LLM


@dataclass
class Candidates:
    """The first stage every HybridRAG route shares: dense and BM25 hits of the question, and their
    fusion (best first). Routes add their own lists (rephrasings, expansions) to ``lists``."""

    dense: list[RetrievedItem]
    sparse: list[RetrievedItem]

    @property
    def lists(self) -> list[list[RetrievedItem]]:
        return [self.dense, self.sparse]

    def fused(self, top_k: int, *extra: tuple[list[RetrievedItem], float]) -> list[RetrievedItem]:
        """Dense and BM25 fused by :data:`HYBRID_FUSION`, plus ``extra`` (list, weight) pairs."""
        from geo_rag_runtime.retrieval.fusion import fuse

        lists = [*self.lists, *(items for items, _ in extra)]
        weights = [*HYBRID_FUSION["weights"], *(weight for _, weight in extra)]
        return fuse(*lists, k=HYBRID_FUSION["k"], weights=weights, top_k=top_k)


def candidates(question: Question, tools: RetrievalTools, top_k: int, notes: list[str]) -> Candidates:
    """Dense and BM25 top ``CANDIDATE_FACTOR × top_k`` for the question's search form."""
    n = CANDIDATE_FACTOR * top_k
    if tools.sparse is None:
        notes.append("keyword index unavailable: retrieval used the vector store only")
    return Candidates(tools.dense(question.search_text, n), tools.keyword(question.search_text, n))


class Strategy(ABC):
    """A retrieval strategy for one query type."""

    name: str
    category: QueryType

    @abstractmethod
    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        """Retrieve ranked chunks for the question (stage "vector")."""

    def refine(
        self,
        question: Question,
        run: StrategyRun,
        facts: list[RetrievedItem],
        tools: RetrievalTools,
        top_k: int,
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        """Post-retrieval step (stage "fusion"): by default the chunks and facts as they are."""
        return run.chunks[:top_k], facts


def llm_strings(llm: ChatModel, prompt: Prompt, question: str, key: str, limit: int) -> list[str]:
    """A validated list of short strings from the LLM (ServiceError when unusable)."""
    schema = {
        "type": "object",
        "properties": {key: {"type": "array", "items": {"type": "string"}, "maxItems": limit}},
        "required": [key],
    }
    system, user = prompt.render(question=question)
    value = llm.complete_json(system, user, json_schema=schema, max_tokens=300)
    items = value.get(key)
    if not isinstance(items, list):
        raise ServiceError(f"LLM output has no list {key!r}")
    out: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip() and len(item) <= _MAX_LLM_TEXT:
            text = " ".join(item.split())
            if text.casefold() not in {o.casefold() for o in out}:
                out.append(text)
    if not out:
        raise ServiceError(f"LLM output {key!r} holds no usable strings")
    return out[:limit]
