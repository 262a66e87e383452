"""Hidden rationale (and the route for unsure classifications) → BM25 + dense fused by reciprocal
rank, then a choice among sources: the LLM's, or by agreement — chunks both retrievers found first,
single-retriever chunks only when strong, graph facts only when their entities occur in the question
or in a kept passage (PAPER.md §6)."""

from __future__ import annotations

from typing import Any

from geo_rag_runtime.errors import GeoRagError, ServiceError
from geo_rag_runtime.models import QueryType, RetrievedItem
from geo_rag_runtime.prompts import CHOOSE_SOURCES
from geo_rag_runtime.query.analysis import fact_entities, named_entities
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = ["HybridSparseDense", "DENSE_FLOOR", "HYBRID_FUSION", "TOP_SPARSE_RANKS"]

DENSE_FLOOR = 0.25  # cosine below which a dense-only hit is not chosen by the hybrid source choice
TOP_SPARSE_RANKS = 2  # a sparse-only hit is chosen when it ranks among BM25's best two
# reciprocal rank fusion of (dense, sparse): RRF's k and the lists' weights. On the corpus set BM25 alone
# reached evidence recall@5 0.795, equal-weight RRF 0.775, dense 0.735 (scripts/ablate_retrieval.py); a
# BM25-weighted fusion (k=10, weights 1:2) reached 0.793 in a retrieval-only run, not yet measured end to end
HYBRID_FUSION: dict[str, Any] = {"k": 60, "weights": (1.0, 1.0)}


class HybridSparseDense(Strategy):
    """Hidden rationale (and the fallback route): BM25 + dense fused by RRF, then a choice of sources."""

    name = "hybrid_sparse_dense"
    category: QueryType = "hidden_rationale"

    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        from geo_rag_runtime.retrieval.fusion import fuse, positions

        notes: list[str] = []
        dense = tools.dense(question.search_text, top_k * 2)
        sparse = tools.keyword(question.search_text, top_k * 2)
        if tools.sparse is None:
            notes.append("keyword index unavailable: hybrid retrieval used the vector store only")
        fused = fuse(dense, sparse, top_k=top_k * 2, **HYBRID_FUSION)
        found: dict[str, set[str]] = {}
        dense_score: dict[str, float] = {}
        sparse_rank: dict[str, int] = {}
        for retriever, items in (("dense", dense), ("sparse", sparse)):
            for rank, item in enumerate(items):
                for entry in positions(item):
                    found.setdefault(entry["chunk_id"], set()).add(retriever)
                    if retriever == "dense":
                        dense_score.setdefault(entry["chunk_id"], item.score)
                    else:
                        sparse_rank.setdefault(entry["chunk_id"], rank)
        return StrategyRun(
            self.category,
            self.name,
            fused,
            notes,
            {"found": found, "dense_score": dense_score, "sparse_rank": sparse_rank},
        )

    def refine(
        self,
        question: Question,
        run: StrategyRun,
        facts: list[RetrievedItem],
        tools: RetrievalTools,
        top_k: int,
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        how = "agreement"
        chosen: tuple[list[RetrievedItem], list[RetrievedItem]] | None = None
        if (llm := tools.step_llm("choose")) is not None and (run.chunks or facts):
            run.prompts.append(CHOOSE_SOURCES.id)
            try:
                chosen = _llm_choose(question.text, run.chunks, facts, llm, top_k)
                how = "llm"
            except GeoRagError as exc:
                run.notes.append(f"LLM source choice failed ({exc}); chose sources by agreement")
        if chosen is None:
            chosen = self._choose_by_agreement(question, run, facts, tools, top_k)
        chunks, kept_facts = chosen
        sources = sorted(
            {"dense" for c in chunks if self._found(run, c) & {"dense"}}
            | {"sparse" for c in chunks if self._found(run, c) & {"sparse"}}
        )
        if kept_facts:
            sources.append("graph")
        run.label = f"{self.name}(sources={'+'.join(sources) or 'none'}, choice={how})"
        run.details["sources"] = sources
        return chunks, kept_facts

    @staticmethod
    def _found(run: StrategyRun, item: RetrievedItem) -> set[str]:
        from geo_rag_runtime.retrieval.fusion import positions

        out: set[str] = set()
        for entry in positions(item):
            out |= run.details.get("found", {}).get(entry["chunk_id"], set())
        return out

    def _choose_by_agreement(
        self,
        question: Question,
        run: StrategyRun,
        facts: list[RetrievedItem],
        tools: RetrievalTools,
        top_k: int,
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        """Chunks both retrievers found first; single-retriever chunks only when strong."""
        from geo_rag_runtime.retrieval.fusion import positions

        both, single = [], []
        for item in run.chunks:
            found = self._found(run, item)
            if "dense" in found and "sparse" in found:
                both.append(item)
                continue
            ids = [entry["chunk_id"] for entry in positions(item)]
            cosine = max((run.details["dense_score"].get(i, -1.0) for i in ids), default=-1.0)
            rank = min((run.details["sparse_rank"].get(i, top_k) for i in ids), default=top_k)
            top_sparse = rank < TOP_SPARSE_RANKS
            if ("dense" in found and cosine >= DENSE_FLOOR) or top_sparse:
                single.append(item)
        chunks = (both + single)[:top_k] or run.chunks[:top_k]
        # graph facts agree with the text when an entity of theirs occurs in the question or a kept passage
        named = named_entities([question.text] + [c.text for c in chunks], tools)
        kept_facts = [f for f in facts if any(name.casefold() in named for name in fact_entities(f))]
        return chunks, kept_facts


def _llm_choose(
    question: str, chunks: list[RetrievedItem], facts: list[RetrievedItem], llm: ChatModel, top_k: int
) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
    listing = "\n".join(
        f"[C{i}] ({c.source_file}, {c.section or 'no section'}) {' '.join(c.text.split())[:300]}"
        for i, c in enumerate(chunks)
    )
    listing += "\n" + "\n".join(f"[F{i}] {f.text}" for i, f in enumerate(facts))
    schema = {
        "type": "object",
        "properties": {
            "chunks": {"type": "array", "items": {"type": "integer"}},
            "facts": {"type": "array", "items": {"type": "integer"}},
        },
        "required": ["chunks", "facts"],
    }
    system, user = CHOOSE_SOURCES.render(top_k=top_k, question=question, listing=listing)
    value = llm.complete_json(system, user, json_schema=schema, max_tokens=200)
    picked_chunks = value.get("chunks")
    picked_facts = value.get("facts")
    if not isinstance(picked_chunks, list) or not isinstance(picked_facts, list):
        raise ServiceError("LLM source choice lacks the lists 'chunks' and 'facts'")
    chunk_ids = [i for i in dict.fromkeys(picked_chunks) if isinstance(i, int) and 0 <= i < len(chunks)]
    fact_ids = [i for i in dict.fromkeys(picked_facts) if isinstance(i, int) and 0 <= i < len(facts)]
    if chunks and not chunk_ids:
        raise ServiceError("LLM source choice kept no passage")
    return [chunks[i] for i in chunk_ids[:top_k]], [facts[i] for i in fact_ids]
