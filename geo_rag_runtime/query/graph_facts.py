"""Graph facts for a question: the knowledge graph around its entities, citable like passages.

The graph keeps paper and chunk ids in each fact's provenance; the keyword index holds every chunk's
file and title, so a fact can be cited by paper without another store round trip.
"""

from __future__ import annotations

from geo_rag_runtime.errors import GeoRagError
from geo_rag_runtime.models import QueryType, RetrievedItem
from geo_rag_runtime.query.generation import passage_refs
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.tools import RetrievalTools

__all__ = ["FACT_RELEVANCE_FLOOR", "MAX_FACTS", "facts_for_the_question", "graph_facts"]

# Chosen on half of 447 (question, fact) pairs a reader labelled (24 corpus questions' facts, 7 % of
# them relevant as retrieved): the 3 facts whose source sentence is most relevant to the question,
# if at least 0.4. On the other half the share of shown facts a reader calls relevant went from
# 0.09 to 0.32, keeping 12 of the 25 relevant ones
# (docs/method.md#graph-retrieval).
MAX_FACTS = 3
FACT_RELEVANCE_FLOOR = 0.4


def graph_facts(
    question: Question,
    category: QueryType,
    tools: RetrievalTools,
    notes: list[str],
    *,
    unavailable: str | None,
) -> list[RetrievedItem]:
    """Ranked facts (empty, with a note, when the graph is missing or fails)."""
    if tools.graph is None:
        notes.append(f"graph store unavailable ({unavailable}): answered from passages only")
        return []
    try:
        from geo_rag_runtime.retrieval.graph import GraphRetriever

        facts = GraphRetriever(tools.graph).retrieve(
            question.text,
            category=category,
            entities=question.entities if tools.recognize is not None else None,
        )
    except (GeoRagError, RuntimeError, ValueError, OSError) as exc:
        notes.append(f"graph retrieval failed ({type(exc).__name__}: {exc}): answered from passages only")
        return []
    return _with_sources(tools.visible_facts(facts), tools)


def _with_sources(facts: list[RetrievedItem], tools: RetrievalTools) -> list[RetrievedItem]:
    """Facts whose provenance also names the source file and title of each chunk it came from.

    The graph keeps paper and chunk ids; the keyword index holds every chunk's file and title, so
    a fact can be cited like a passage without another store round trip.
    """
    wanted = {
        str(p["chunk_id"])
        for f in facts
        for p in f.provenance
        if p.get("chunk_id") and not p.get("source_file")
    }
    if not wanted or tools.sparse is None:
        return facts
    try:
        found = {r["chunk_id"]: r for r in tools.sparse.records(sorted(wanted))}
    except Exception:  # provenance stays as the graph gave it
        return facts
    out = []
    for fact in facts:
        provenance = []
        for entry in fact.provenance:
            record = found.get(str(entry.get("chunk_id")))
            if record is not None and not entry.get("source_file"):
                entry = {
                    **entry,
                    "source_file": record.get("source_file"),
                    "title": record.get("title"),
                    "page_start": record.get("page_start"),
                    "page_end": record.get("page_end"),
                }
            provenance.append(entry)
        out.append(fact.model_copy(update={"provenance": provenance}))
    return out


def facts_for_the_question(
    question: Question, facts: list[RetrievedItem], tools: RetrievalTools
) -> list[RetrievedItem]:
    """The graph facts that bear on the question, not merely on its entities: ranked by the
    relevance of the sentence each was read from (its triple when none), the best
    :data:`MAX_FACTS` above :data:`FACT_RELEVANCE_FLOOR`. Reported values are kept as they are."""
    values = [f for f in facts if f.retriever == "measurements"]
    graph = [f for f in facts if f.retriever != "measurements"]
    if not graph:
        return facts
    texts = [next((str(p["sentence"]) for p in f.provenance if p.get("sentence")), f.text) for f in graph]
    tools.scorer.prefill(passage_refs(graph))  # source sentences: stored at ingest with their chunk
    scores = tools.scorer.for_question(question.text).score(texts)
    ranked = sorted(zip(graph, scores, strict=True), key=lambda pair: -pair[1].total)
    chosen = [f for f, score in ranked if score.total >= FACT_RELEVANCE_FLOOR][:MAX_FACTS]
    return values + chosen
