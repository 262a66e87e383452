"""Hidden rationale (and the route for unsure classifications) → the shared dense + BM25 first stage,
then a choice among sources: the LLM's, or by agreement — graph facts only when their entities occur
in the question or in a kept passage (docs/method.md#query-types-and-routes).

Passages are kept in fused order. An earlier agreement rule also dropped passages that only one
retriever found unless that one ranked them high; on the hand-written sets it cost hidden-rationale
questions evidence recall@5 (corpus 0.742 → 0.718, dev unchanged), so it is gone.
"""

from __future__ import annotations

from geo_rag_runtime.errors import GeoRagError, ServiceError
from geo_rag_runtime.models import QueryType, RetrievedItem
from geo_rag_runtime.prompts import CHOOSE_SOURCES
from geo_rag_runtime.query.analysis import fact_entities, named_entities
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.strategies.base import Strategy, StrategyRun, candidates
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = ["HybridSparseDense"]


class HybridSparseDense(Strategy):
    """Hidden rationale (and the fallback route): BM25 + dense fused by RRF, then a choice of sources."""

    name = "hybrid_sparse_dense"
    category: QueryType = "hidden_rationale"

    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        from geo_rag_runtime.retrieval.fusion import positions

        notes: list[str] = []
        first = candidates(question, tools, top_k, notes)
        found: dict[str, set[str]] = {}
        for retriever, items in (("dense", first.dense), ("sparse", first.sparse)):
            for item in items:
                for entry in positions(item):
                    found.setdefault(entry["chunk_id"], set()).add(retriever)
        return StrategyRun(self.category, self.name, first.fused(top_k * 2), notes, {"found": found})

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
        """Passages in fused order; graph facts whose entities the question or a kept passage names."""
        chunks = run.chunks[:top_k]
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
