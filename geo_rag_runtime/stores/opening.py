"""The one place that opens every backend from ``Settings``.

Which implementation answers is configuration: MongoDB (``MONGODB_URI``) or embedded litemongo;
a Chroma server (``CHROMA_HOST``) or ``chromadb.PersistentClient``; Neo4j (``NEO4J_URI``) or
embedded LadybugDB; local MiniLM or an OpenAI-compatible embedder; an OpenAI-compatible chat model
or none. Query serving opens stores read-only; ingest opens them writable. Backend libraries are
imported lazily, so asking a question never loads what it does not use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from geo_rag_runtime.settings import Settings

if TYPE_CHECKING:
    from geo_rag_runtime.embeddings import Embedder
    from geo_rag_runtime.llm import LLMClient
    from geo_rag_runtime.router.model import QueryClassifier
    from geo_rag_runtime.stores.documents import DocumentStore
    from geo_rag_runtime.stores.graph.base import GraphStore
    from geo_rag_runtime.stores.sparse import SparseIndex
    from geo_rag_runtime.stores.vectors import ChromaVectorStore

__all__ = [
    "open_documents",
    "open_vectors",
    "open_keyword_index",
    "open_graph",
    "open_embedder",
    "open_llm",
    "open_classifier",
    "store_counts",
]


def open_documents(settings: Settings, *, read_only: bool = False) -> DocumentStore:
    """The document store (papers, chunks, triples, measurements, sources registry); ``read_only``
    for query serving (no index creation)."""
    from geo_rag_runtime.stores.documents import open_document_store

    return open_document_store(settings, read_only=read_only)


def open_vectors(settings: Settings, *, read_only: bool = False) -> ChromaVectorStore:
    """The chunk vectors; ``read_only`` for query serving (no write lock, reopens after writers)."""
    from geo_rag_runtime.stores.vectors import ChromaVectorStore

    return ChromaVectorStore(settings, read_only=read_only)


def open_keyword_index(settings: Settings) -> SparseIndex:
    """The BM25 index (per-paper token files are the source of truth; reads are lock-free)."""
    from geo_rag_runtime.stores.sparse import SparseIndex

    return SparseIndex(settings)


def open_graph(settings: Settings, *, read_only: bool = False) -> GraphStore:
    """The knowledge graph; ``read_only`` for query serving."""
    from geo_rag_runtime.stores.graph import get_graph_store

    return get_graph_store(settings, read_only=read_only)


def open_embedder(settings: Settings) -> Embedder:
    """The configured embedder (loaded once per process)."""
    from geo_rag_runtime.embeddings import get_embedder

    return get_embedder(settings)


def open_llm(settings: Settings) -> LLMClient | None:
    """The configured chat model, or None when none is configured (the fallbacks run)."""
    from geo_rag_runtime.llm import get_llm

    return get_llm(settings)


def open_classifier(settings: Settings) -> QueryClassifier:
    """The query classifier artifact (hash-checked; loaded once per process, reloaded when retrained)."""
    from geo_rag_runtime.router.model import get_classifier

    return get_classifier(settings)


def text_coverage(papers: list[dict[str, Any]]) -> dict[str, Any]:
    """Median text coverage of the ingested papers and every paper below the warning line."""
    from statistics import median

    from geo_rag_runtime.contract import COVERAGE_WARN_BELOW

    measured = [p for p in papers if p.get("coverage") is not None]
    low = sorted((p for p in measured if p["coverage"] < COVERAGE_WARN_BELOW), key=lambda p: p["coverage"])
    return {
        "papers_measured": len(measured),
        "median": round(median(p["coverage"] for p in measured), 3) if measured else None,
        "below_warning": [
            {
                "paper": p.get("partition_key") or p.get("source_file"),
                "coverage": p["coverage"],
                "note": p.get("coverage_note", ""),
            }
            for p in low
        ],
    }


def store_counts(settings: Settings) -> dict[str, Any]:
    """Counts per store for ``geo-rag status``; a store that cannot be opened reports its error.

    Every store is opened read-only: status is a read path (a read-only database user may run it,
    and it must not create indexes or wait for a writer's lock)."""
    counts: dict[str, Any] = {}
    try:
        docs = open_documents(settings, read_only=True)
        counts["documents"] = {"backend": docs.backend, **docs.counts()}
        docs.close()
    except Exception as exc:  # report, don't crash: status is for diagnosing
        counts["documents"] = {"error": str(exc)}
    try:
        docs = open_documents(settings, read_only=True)
        counts["text_coverage"] = text_coverage(docs.papers())
        docs.close()
    except Exception as exc:
        counts["text_coverage"] = {"error": str(exc)}
    try:
        vectors = open_vectors(settings, read_only=True)
        counts["vectors"] = {
            "backend": "chroma-http" if settings.chroma_host else "chroma-persistent",
            "vectors": vectors.count(),
            "model": vectors.model_identity,
        }
        vectors.close()
    except Exception as exc:
        counts["vectors"] = {"error": str(exc)}
    try:
        counts["keyword_index"] = {"backend": "bm25s", "chunks": open_keyword_index(settings).count()}
    except Exception as exc:
        counts["keyword_index"] = {"error": str(exc)}
    try:
        graph = open_graph(settings, read_only=True)
        counts["graph"] = {"backend": type(graph).__name__, **graph.counts()}
        graph.close()
    except Exception as exc:
        counts["graph"] = {"error": str(exc)}
    try:
        from geo_rag_runtime.router.model import classifier_manifest

        counts["classifier"] = classifier_manifest(settings)
    except Exception as exc:
        counts["classifier"] = {"error": str(exc)}
    return counts
