"""What the runtime needs from each external system, as typed protocols.

The query pipeline and the assets are written against these, never against a backend client, so
MongoDB vs litemongo, Chroma persistent vs HTTP, LadybugDB vs Neo4j, MiniLM vs an OpenAI-compatible
embedder, and the local vs a remote LLM stay interchangeable behind them. Each protocol lists what
is called today, nothing more; ``geo_rag_runtime.stores.opening`` opens the implementations from
``Settings``. Import-linter keeps the backend libraries inside ``geo_rag_runtime.stores``.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from geo_rag_runtime.models import Chunk, Measurement, Paper, QueryType, RetrievedItem, Triple

if TYPE_CHECKING:
    from geo_rag_runtime.stores.graph.base import Fact

__all__ = [
    "DocumentRepository",
    "MeasurementReader",
    "VectorStore",
    "KeywordIndex",
    "GraphReader",
    "EmbeddingModel",
    "ChatModel",
    "ClassifierDecision",
    "QueryClassifierModel",
    "TokenCounter",
]


@runtime_checkable
class MeasurementReader(Protocol):
    """The measurement rows a question may quote (the document store, opened read-only)."""

    def find_measurements(
        self,
        *,
        analyte: str | Sequence[str] | None = None,
        paper_id: str | Sequence[str] | None = None,
        minimum: float | None = None,
        maximum: float | None = None,
        limit: int = 0,
        exclude_papers: Collection[str] = (),
    ) -> list[Measurement]: ...

    def measurement_analytes(self) -> dict[str, int]: ...


@runtime_checkable
class DocumentRepository(MeasurementReader, Protocol):
    """Papers, chunks, triples, the sources registry and metadata (MongoDB or embedded litemongo).

    Writes that replace a set (a paper's chunks or triples) remove what is stale in the same call.
    """

    backend: str

    def close(self) -> None: ...

    def upsert_paper(self, paper: Paper, **extra: Any) -> None: ...

    def set_paper_fields(self, paper_id: str, **fields: Any) -> None: ...

    def get_paper(self, paper_id: str) -> dict[str, Any] | None: ...

    def find_paper_by_sha256(self, sha256: str) -> dict[str, Any] | None: ...

    def find_paper_by_source(self, source_file: str) -> dict[str, Any] | None: ...

    def find_paper_by_partition(self, partition_key: str) -> dict[str, Any] | None: ...

    def paper_sha256_for_partition(self, partition_key: str) -> str | None: ...

    def papers_for_partition(self, partition_key: str) -> list[dict[str, Any]]: ...

    def papers(self) -> list[dict[str, Any]]: ...

    def replace_chunks(self, paper_id: str, chunks: Sequence[Chunk]) -> dict[str, int]: ...

    def chunks_for_paper(self, paper_id: str) -> list[Chunk]: ...

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]: ...

    def replace_triples(self, paper_id: str, triples: Sequence[Triple]) -> dict[str, int]: ...

    def triples_for_paper(self, paper_id: str) -> list[Triple]: ...

    def triple_entities(self) -> Iterator[tuple[str, str]]: ...

    def replace_measurements(self, paper_id: str, rows: Sequence[Measurement]) -> dict[str, int]: ...

    def register_source(self, key: str, path: str) -> None: ...

    def source_path(self, key: str) -> str | None: ...

    def source_key_for_path(self, path: str) -> str | None: ...

    def sources(self) -> dict[str, str]: ...

    def delete_source(self, key: str) -> int: ...

    def delete_paper(self, paper_id: str) -> dict[str, int]: ...

    def counts(self) -> dict[str, int]: ...

    def set_meta(self, key: str, value: Any) -> None: ...

    def get_meta(self, key: str) -> Any: ...


@runtime_checkable
class VectorStore(Protocol):
    """Chunk vectors with their metadata (Chroma, embedded or server)."""

    @property
    def location(self) -> str: ...

    def count(self) -> int: ...

    def check_model(self, identity: Mapping[str, Any]) -> object: ...

    def query(
        self, embedding: np.ndarray, top_k: int, where: Mapping[str, Any] | None = None
    ) -> list[RetrievedItem]: ...

    def close(self) -> None: ...


@runtime_checkable
class KeywordIndex(Protocol):
    """The BM25 index over the chunks' normalized tokens."""

    def search(
        self,
        query_tokens: Sequence[str],
        top_k: int = ...,
        paper_ids: Collection[str] | None = ...,
        *,
        record_filter: Callable[[Mapping[str, Any]], bool] | None = ...,
    ) -> list[tuple[str, float]]: ...

    def records(self, chunk_ids: Iterable[str]) -> list[dict[str, Any]]: ...

    def count(self) -> int: ...


@runtime_checkable
class GraphReader(Protocol):
    """The read side of the knowledge graph (LadybugDB or Neo4j) that questions use."""

    def subgraph(self, entity_names: Sequence[str], depth: int, limit: int) -> list[Fact]: ...

    def counts(self) -> dict[str, int]: ...

    def close(self) -> None: ...


@runtime_checkable
class EmbeddingModel(Protocol):
    """Texts to unit vectors; ``identity`` names the model so stores can refuse a mismatch."""

    @property
    def identity(self) -> dict[str, Any]: ...

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...


@runtime_checkable
class ChatModel(Protocol):
    """An OpenAI-compatible chat model (the local llama.cpp server, vLLM, OpenAI …)."""

    @property
    def name(self) -> str: ...

    def complete(
        self, system: str, user: str, *, max_tokens: int = ..., json_schema: Mapping[str, Any] | None = ...
    ) -> str: ...

    def complete_json(
        self, system: str, user: str, *, json_schema: Mapping[str, Any] | None = ..., max_tokens: int = ...
    ) -> dict[str, Any]: ...

    def stream(self, system: str, user: str, *, max_tokens: int = ...) -> Iterator[str]: ...


class ClassifierDecision(Protocol):
    """One routing decision of the query classifier."""

    label: QueryType
    min_confidence: float

    @property
    def confidence(self) -> float: ...

    @property
    def confident(self) -> bool: ...

    def to_dict(self) -> dict[str, Any]: ...


@runtime_checkable
class QueryClassifierModel(Protocol):
    """The query-type classifier artifact, loaded for inference."""

    model_version: str

    def predict(self, question: str) -> ClassifierDecision: ...


@runtime_checkable
class TokenCounter(Protocol):
    """Token counts with the embedding model's tokenizer (context budgets, chunk sizes)."""

    def count(self, text: str) -> int: ...
