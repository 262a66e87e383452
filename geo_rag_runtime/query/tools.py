"""The handles a strategy may use, opened once by the service: stores, models and their shortcuts."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from geo_rag_runtime.models import RetrievedItem
from geo_rag_runtime.query.relevance import RelevanceScorer
from geo_rag_runtime.query.selector import SelectorModel
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores.protocols import (
    ChatModel,
    EmbeddingModel,
    GraphReader,
    KeywordIndex,
    MeasurementReader,
    VectorStore,
)

__all__ = ["RetrievalTools"]


@dataclass
class RetrievalTools:
    """Everything a strategy may use; the vector store is required, the rest may be missing."""

    settings: Settings
    embedder: EmbeddingModel
    vectors: VectorStore
    scorer: RelevanceScorer
    sparse: KeywordIndex | None = None
    graph: GraphReader | None = None
    vocabulary: Any | None = None  # geo_rag_runtime.vocab.Vocabulary
    recognize: Callable[[str], Sequence[Any]] | None = None
    llm: ChatModel | None = None
    measurements: MeasurementReader | None = None  # reported values (the document store, read-only)
    selector: SelectorModel | None = None  # the answer-sentence ranker; None: relevance alone ranks
    # papers an ingest is rewriting (stores.publication): no passage, fact or value of theirs is used
    hidden_papers: frozenset[str] = frozenset()

    def step_llm(self, step: str) -> ChatModel | None:
        """The LLM for one retrieval step (rephrase, expand, compress, choose) when ``llm_steps`` turns
        it on; None means: run the step's deterministic version."""
        return self.llm if self.llm is not None and step in self.settings.llm_steps else None

    def dense(self, search_text: str, top_k: int) -> list[RetrievedItem]:
        """Dense top-k for text already prepared for search (``query.question.search_form``).

        The question's vector comes from (and stays in) the shared cache.
        """
        from geo_rag_runtime.retrieval.vector import VectorRetriever

        retriever = VectorRetriever(
            self.vectors,
            self.scorer.query_embedder,
            top_k=top_k,
            max_question_chars=self.settings.max_question_chars,
        )
        return retriever.retrieve(search_text, prepared=True, filters=self._visible())

    def dense_many(self, texts: Sequence[str], top_k: int) -> list[list[RetrievedItem]]:
        """Dense hits of several texts (rephrasings), their vectors computed in one batch."""
        from geo_rag_runtime.retrieval.vector import preprocess_query

        prepared = [preprocess_query(t, self.settings.max_question_chars) for t in texts]
        self.scorer.cache.embed(prepared)
        return [self.dense(p, top_k) for p in prepared]

    def keyword(self, text: str, top_k: int) -> list[RetrievedItem]:
        """BM25 top-k (empty without a keyword index)."""
        from geo_rag_runtime.retrieval.keyword import KeywordRetriever

        if self.sparse is None:
            return []
        retriever = KeywordRetriever(
            self.sparse, top_k=top_k, max_question_chars=self.settings.max_question_chars
        )
        return retriever.retrieve(text, filters=self._visible())

    def _visible(self) -> dict[str, Any] | None:
        """The filter that leaves out the papers being rebuilt (None: every paper is complete)."""
        return {"paper_id": {"$nin": sorted(self.hidden_papers)}} if self.hidden_papers else None

    def visible_facts(self, facts: Sequence[RetrievedItem]) -> list[RetrievedItem]:
        """Graph facts without the provenance of papers being rebuilt; a fact that only they
        support goes."""
        if not self.hidden_papers:
            return list(facts)
        out = []
        for fact in facts:
            kept = self._visible_provenance(fact.provenance)
            if len(kept) == len(fact.provenance):
                out.append(fact)
            elif kept:
                first = kept[0]
                update = {
                    "provenance": kept,
                    "paper_id": first.get("paper_id"),
                    "chunk_id": first.get("chunk_id"),
                }
                out.append(fact.model_copy(update=update))
        return out

    def only_hidden(self, provenance: Sequence[Mapping[str, Any]]) -> bool:
        """Whether every paper that states something is being rebuilt (then it is not used)."""
        return bool(provenance) and not self._visible_provenance(provenance)

    def _visible_provenance(self, provenance: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
        """The provenance entries whose paper is not being rebuilt (the one rule both use)."""
        return [p for p in provenance if str(p.get("paper_id", "")) not in self.hidden_papers]
