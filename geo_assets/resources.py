"""One Dagster resource per external system, each built lazily at run time.

Every resource reads the GeoRAG settings (environment variables, docs/user-guide.md#configuration)
when a run starts, never at import time; a field set here overrides the environment (e.g. in tests or in a
deployment's ``Definitions``). Secrets (``OPENAI_API_KEY``, ``NEO4J_PASSWORD``) stay in the
environment, so they never show in the UI.
"""

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import dagster as dg

from geo_rag_runtime.settings import Settings, get_settings
from geo_rag_runtime.stores import opening

if TYPE_CHECKING:
    from geo_rag_runtime.embeddings import Embedder
    from geo_rag_runtime.stores.documents import DocumentStore
    from geo_rag_runtime.stores.graph.base import GraphStore
    from geo_rag_runtime.stores.sparse import SparseIndex
    from geo_rag_runtime.stores.vectors import ChromaVectorStore


class GeoRagResource(dg.ConfigurableResource):
    """Where the embedded stores live and which folder is watched (overrides GEO_RAG_HOME/PAPERS)."""

    home: str | None = None
    papers: str | None = None

    def settings(self, **overrides: Any) -> Settings:
        values = {k: v for k, v in {"home": self.home, "papers": self.papers, **overrides}.items() if v}
        return get_settings(**values)


class HomeWriterResource(dg.ConfigurableResource):
    """Holds the home's writer lock (``geo_rag_runtime.home_lock``) for the whole run of any asset that
    writes to the home: what keeps runs launched by the sensor, the schedule or the UI from writing
    beside ``geo-rag ingest``, ``backup``, ``restore`` or ``purge`` (and beside each other).

    Dagster initializes a resource before the run's first step and releases it after the last one
    (the code location runs in process, ``definitions.py``), so the lock is taken before any pool
    slot is claimed: a run waiting here holds nothing another writer needs. Within ``geo-rag
    ingest``, which already holds the lock, the lock is re-entered without waiting.
    """

    geo: GeoRagResource

    @contextlib.contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator["HomeWriterResource"]:
        from geo_rag_runtime.home_lock import home_lock

        run = context.run
        what = "Dagster run"
        if run is not None:
            partition = run.tags.get("dagster/partition")
            what = f"Dagster run {run.run_id[:8]}" + (f" of {partition}" if partition else "")
        say = context.log.warning if context.log is not None else print
        with home_lock(self.geo.settings().home_dir, say, what=what):
            yield self


class PdfToTeiResource(dg.ConfigurableResource):
    """GROBID when ``GROBID_URL`` (or ``grobid_url``) is set, else the embedded PDF parser."""

    geo: GeoRagResource
    grobid_url: str | None = None

    def settings(self) -> Settings:
        """The settings the conversion runs with (``grobid_url`` overrides the environment's)."""
        return self.geo.settings(grobid_url=self.grobid_url)


class DocumentStoreResource(dg.ConfigurableResource):
    """MongoDB when ``MONGODB_URI`` is set, else embedded litemongo under the home."""

    geo: GeoRagResource
    mongodb_uri: str | None = None

    @contextlib.contextmanager
    def open(self, *, read_only: bool = False) -> Iterator["DocumentStore"]:
        """The store for one block; ``read_only`` for steps that only read (no index creation)."""
        store = opening.open_documents(self.geo.settings(mongodb_uri=self.mongodb_uri), read_only=read_only)
        try:
            yield store
        finally:
            store.close()


class VectorStoreResource(dg.ConfigurableResource):
    """Chroma (server when ``CHROMA_HOST`` is set, else persistent on disk) and the BM25 index."""

    geo: GeoRagResource
    chroma_host: str | None = None

    def settings(self) -> Settings:
        return self.geo.settings(chroma_host=self.chroma_host)

    def vectors(self) -> "ChromaVectorStore":
        return opening.open_vectors(self.settings())

    def sparse(self) -> "SparseIndex":
        return opening.open_keyword_index(self.settings())


class EmbedderResource(dg.ConfigurableResource):
    """The embedding model (local MiniLM weights by default, or an OpenAI-compatible API)."""

    geo: GeoRagResource
    model: str | None = None

    def embedder(self) -> "Embedder":
        return opening.open_embedder(self.geo.settings(embedding_model=self.model))

    def token_counter(self) -> Any:
        from geo_rag_runtime.text.tokenizer import get_token_counter

        return get_token_counter(self.geo.settings(embedding_model=self.model))


class GraphStoreResource(dg.ConfigurableResource):
    """Neo4j when ``NEO4J_URI`` is set, else the embedded LadybugDB under the home."""

    geo: GeoRagResource
    neo4j_uri: str | None = None

    @contextlib.contextmanager
    def open(self) -> Iterator["GraphStore"]:
        store = opening.open_graph(self.geo.settings(neo4j_uri=self.neo4j_uri))
        try:
            yield store
        finally:
            store.close()


class LLMResource(dg.ConfigurableResource):
    """An OpenAI-compatible chat model, or None: stages then use their labelled fallbacks."""

    geo: GeoRagResource
    model: str | None = None

    def client(self, purpose: str = "answers") -> Any:
        """The LLM for ``purpose``; ingest purposes ("triples", "queries") are opt-in
        (``GEO_RAG_LLM_INGEST``), so a running local server never slows a plain ingest down."""
        from geo_rag_runtime.llm import get_llm

        settings = self.geo.settings()
        if purpose != "answers" and purpose not in settings.llm_ingest:
            return None
        return get_llm(settings, model=self.model)


def default_resources(home: str | None = None, papers: str | None = None) -> dict[str, Any]:
    """The resources of the code location; everything else comes from the environment at run time."""
    geo = GeoRagResource(home=home, papers=papers)
    return {
        "geo": geo,
        "home_writer": HomeWriterResource(geo=geo),
        "pdf_to_tei": PdfToTeiResource(geo=geo),
        "documents": DocumentStoreResource(geo=geo),
        "vector_store": VectorStoreResource(geo=geo),
        "embedder": EmbedderResource(geo=geo),
        "graph": GraphStoreResource(geo=geo),
        "llm": LLMResource(geo=geo),
    }
