"""Chunk vectors in ChromaDB: embedded ``PersistentClient`` by default, a Chroma server when configured.

Chroma never embeds anything here: every collection is opened with ``embedding_function=None`` (its
default function would download ONNX weights) and every vector comes from our embedder. The
collection uses the cosine space, so ``score = 1 - distance`` is the cosine similarity.

One vector space per collection. The collection's metadata records the embedder identity (provider,
model, dimension); ``ensure_model`` refuses to mix vectors of two models and names the fix.

Several processes (Dagster runs each step in its own) may share the embedded store, which Chroma does
not coordinate: measured here, two processes upserting 1,000 vectors each at once left 450 of the
2,000 out of the HNSW index although ``count()`` showed them all, and without a lock a writer may
even crash. Writes therefore hold a file lock in
the store's folder and leave a generation marker; a store that sees another process's generation
reopens its client before the next read or write, because an open client keeps serving its own
in-memory index and would not see the new vectors. A Chroma server (``CHROMA_HOST``) does its own
coordination; then neither lock nor marker is used.

Queries are exact up to :data:`EXACT_SEARCH_LIMIT` vectors: the query is compared with every stored
vector (held in memory per store generation), best first, ties broken by chunk id. Chroma's HNSW
index is approximate, and an embedded store rebuilds the part of the index still in its write-ahead
log in a different order in each process, so the same question could miss a near neighbour in one
process and find it in the next (measured on the 17-paper store: a chunk of cosine 0.351, 11th by
similarity, was missing from the 60 nearest in some processes). Larger collections use the HNSW
index.
"""

from __future__ import annotations

import os
import threading
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from filelock import FileLock

from geo_rag_runtime.errors import REBUILD_HINT, ConfigurationError, InputError, StoreError
from geo_rag_runtime.models import Chunk, RetrievedItem
from geo_rag_runtime.settings import Settings, get_settings

if TYPE_CHECKING:
    from chromadb.api import ClientAPI
    from chromadb.api.models.Collection import Collection

__all__ = ["ChromaVectorStore", "CHUNK_METADATA_KEYS"]

# metadata stored with every vector (never None: Chroma rejects None values)
CHUNK_METADATA_KEYS = (
    "paper_id",
    "source_file",
    "title",
    "section",
    "ordinal",
    "char_start",
    "char_end",
    "token_count",
)
_MODEL_KEY = "georag_embedding_model"
_DIM_KEY = "georag_embedding_dim"
_PROVIDER_KEY = "georag_embedding_provider"
_GENERATION_FILE = ".georag-generation"
_LOCK_FILE = ".georag-write.lock"
# collections up to this many vectors are searched exactly (see the module docstring); 50,000
# vectors of 384 dimensions hold 77 MB in memory
EXACT_SEARCH_LIMIT = 50_000


def _chunk_metadata(chunk: Chunk) -> dict[str, str | int]:
    pages = {
        key: int(value)
        for key, value in (("page_start", chunk.page_start), ("page_end", chunk.page_end))
        if value is not None  # Chroma rejects None: an unknown page is simply absent
    }
    return {
        **pages,
        "paper_id": chunk.paper_id,
        "source_file": chunk.source_file,
        "title": chunk.title or "",
        "section": chunk.section or "",
        "ordinal": int(chunk.ordinal),
        "char_start": int(chunk.char_start),
        "char_end": int(chunk.char_end),
        "token_count": int(chunk.token_count),
    }


def _describe(identity: Mapping[str, Any]) -> str:
    return f"{identity.get('model')} (dim {identity.get('dim')})"


class ChromaVectorStore:
    """Upsert, delete and query chunk vectors; one instance per process/run (see module docstring)."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        client: ClientAPI | None = None,
        collection: str | None = None,
        read_only: bool = False,
        lock_timeout_s: float = 300.0,
    ) -> None:
        os.environ.setdefault("ANONYMIZED_TELEMETRY", "False")
        self.settings = settings or get_settings()
        self.collection_name = collection or self.settings.chroma_collection
        self.read_only = read_only
        self._given_client = client
        self._embedded = client is None and not self.settings.chroma_host
        self._folder: Path | None = self.settings.path("chroma") if self._embedded else None
        self._lock = (
            FileLock(str(self._folder / _LOCK_FILE), timeout=lock_timeout_s) if self._folder else None
        )
        self._client: ClientAPI | None = None
        self._collection: Collection | None = None
        self._generation: str | None = None
        # every stored vector for exact search, unit length, with its chunk id (embedded store only:
        # dropped on every write and whenever another process's generation is seen)
        self._matrix: tuple[list[str], np.ndarray] | None = None
        # Threads of one server share this store: opening and reopening happen under this lock,
        # queries run concurrently on the open collection (Chroma's client is thread-safe).
        self._opening = threading.RLock()

    # ----------------------------------------------------------------- connection

    @property
    def location(self) -> str:
        """Where the vectors live, for messages and status output."""
        if self._folder is not None:
            return str(self._folder)
        if self._given_client is not None:
            return "given client"
        return f"http://{self.settings.chroma_host}:{self.settings.chroma_port}"

    def _open_client(self) -> ClientAPI:
        if self._given_client is not None:
            return self._given_client
        import chromadb
        from chromadb.config import Settings as ChromaSettings

        chroma_settings = ChromaSettings(anonymized_telemetry=False)
        try:
            if self._folder is not None:
                return chromadb.PersistentClient(path=str(self._folder), settings=chroma_settings)
            return chromadb.HttpClient(
                host=self.settings.chroma_host or "localhost",
                port=self.settings.chroma_port,
                settings=chroma_settings,
            )
        except Exception as exc:  # chromadb raises ValueError / httpx errors / its own errors
            raise StoreError(
                f"cannot open the Chroma vector store at {self.location}: {exc}; {REBUILD_HINT}"
            ) from exc

    def _read_generation(self) -> str | None:
        if self._folder is None:
            return None
        try:
            return (self._folder / _GENERATION_FILE).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None

    def _bump_generation(self) -> None:
        if self._folder is None:
            return
        marker = self._folder / _GENERATION_FILE
        tmp = marker.with_suffix(f".{uuid.uuid4().hex}.tmp")
        generation = uuid.uuid4().hex
        tmp.write_text(generation, encoding="utf-8")
        os.replace(tmp, marker)
        self._generation = generation
        self._matrix = None

    def _client_now(self) -> ClientAPI:
        """The open client, reopened first if another process wrote since it was opened."""
        generation = self._read_generation()
        if self._client is not None and self._folder is not None and generation != self._generation:
            self.close()
        if generation != self._generation:
            self._matrix = None
        if self._client is None:
            self._client = self._open_client()
            self._generation = generation
        return self._client

    def _get_collection(self, *, create: bool) -> Collection | None:
        with self._opening:
            return self._get_collection_locked(create=create)

    def _get_collection_locked(self, *, create: bool) -> Collection | None:
        client = self._client_now()
        if self._collection is not None:
            return self._collection
        try:
            if create:
                self._collection = client.get_or_create_collection(
                    self.collection_name,
                    configuration={"hnsw": {"space": "cosine"}},
                    embedding_function=None,
                )
            else:
                existing = {c.name if hasattr(c, "name") else str(c) for c in client.list_collections()}
                if self.collection_name not in existing:
                    return None
                self._collection = client.get_collection(self.collection_name, embedding_function=None)
        except Exception as exc:
            raise StoreError(
                f"cannot open collection {self.collection_name!r} in the vector store at {self.location}: "
                f"{exc}; {REBUILD_HINT}"
            ) from exc
        space = (self._collection.configuration or {}).get("hnsw") or {}
        if space and space.get("space") not in (None, "cosine"):
            raise StoreError(
                f"collection {self.collection_name!r} at {self.location} uses the {space.get('space')!r} "
                "space; GeoRAG needs 'cosine': delete the collection and re-ingest"
            )
        return self._collection

    def close(self) -> None:
        """Release the client (an embedded Chroma stops when its last client closes)."""
        client, self._client, self._collection = self._client, None, None
        self._matrix = None
        if client is not None and client is not self._given_client and hasattr(client, "close"):
            client.close()

    def __enter__(self) -> ChromaVectorStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _writing(self) -> Iterator[Collection]:
        if self.read_only:
            raise StoreError(f"the vector store at {self.location} was opened read-only")
        with self._lock if self._lock is not None else nullcontext():
            collection = self._get_collection(create=True)
            assert collection is not None
            try:
                yield collection
            finally:  # even a failed write may have changed the index other processes hold
                self._matrix = None
                self._bump_generation()

    # ----------------------------------------------------------------- model identity

    @property
    def model_identity(self) -> dict[str, Any] | None:
        """The embedder identity recorded in the collection, or None if none was recorded."""
        collection = self._get_collection(create=False)
        metadata = (collection.metadata if collection is not None else None) or {}
        if _MODEL_KEY not in metadata:
            return None
        return {
            "provider": metadata.get(_PROVIDER_KEY, ""),
            "model": metadata[_MODEL_KEY],
            "dim": int(metadata.get(_DIM_KEY, 0)),
        }

    def check_model(self, identity: Mapping[str, Any]) -> bool:
        """Raise ConfigurationError if the stored vectors come from another model; never writes.

        Returns True when the identity is already recorded, False when the store holds no vectors
        and no matching identity (so a writer may record it).
        """
        if "model" not in identity or "dim" not in identity:
            raise ConfigurationError(f"an embedder identity needs 'model' and 'dim', got {dict(identity)}")
        stored = self.model_identity
        if (
            stored is not None
            and stored["model"] == identity["model"]
            and stored["dim"] == int(identity["dim"])
        ):
            return True
        held = self.count()
        if held and stored is None:
            raise ConfigurationError(
                f"the vector store at {self.location} holds {held} vectors of an unrecorded model; "
                f"configured {_describe(identity)}: re-ingest into an empty store"
            )
        if held and stored is not None:
            raise ConfigurationError(
                f"the vector store holds embeddings of {_describe(stored)}; configured {_describe(identity)}: "
                "re-ingest or set GEO_RAG_EMBEDDING_MODEL"
            )
        return False

    def ensure_model(self, identity: Mapping[str, Any]) -> None:
        """Refuse to mix vector spaces; record the identity in an empty or new collection."""
        if self.check_model(identity) or self.read_only:
            return  # recorded already, or nothing stored to mix with and no right to write
        with self._writing() as collection:
            metadata = dict(collection.metadata or {})
            metadata.update(
                {
                    _MODEL_KEY: str(identity["model"]),
                    _DIM_KEY: int(identity["dim"]),
                    _PROVIDER_KEY: str(identity.get("provider", "")),
                }
            )
            collection.modify(metadata=metadata)

    # ----------------------------------------------------------------- writes

    def upsert_chunks(
        self,
        chunks: Sequence[Chunk],
        embeddings: np.ndarray,
        model_identity: Mapping[str, Any],
        *,
        prune_stale: bool = True,
    ) -> int:
        """Upsert chunk vectors keyed by chunk id; with ``prune_stale`` the papers' older chunks go.

        Re-running the same input changes nothing (ids are deterministic). Pruning makes a re-chunked
        paper hold exactly its new chunks instead of old and new side by side.
        """
        vectors = np.asarray(embeddings, dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != len(chunks):
            raise InputError(f"{len(chunks)} chunks but embeddings of shape {tuple(vectors.shape)}")
        if len(chunks) and vectors.shape[1] != int(model_identity["dim"]):
            raise InputError(
                f"embeddings have dimension {vectors.shape[1]} but the model identity says {model_identity['dim']}"
            )
        if not np.all(np.isfinite(vectors)):
            raise InputError("embeddings contain NaN or infinite values")
        ids = [chunk.chunk_id for chunk in chunks]
        if len(set(ids)) != len(ids):
            raise InputError("duplicate chunk ids in one upsert")
        self.ensure_model(model_identity)
        with self._writing() as collection:
            if prune_stale:
                keep = set(ids)
                for paper_id in sorted({chunk.paper_id for chunk in chunks}):
                    held = collection.get(where={"paper_id": paper_id}, include=[])["ids"]
                    stale = [chunk_id for chunk_id in held if chunk_id not in keep]
                    if stale:
                        collection.delete(ids=stale)
            step = self._max_batch(collection)
            for start in range(0, len(chunks), step):
                part = chunks[start : start + step]
                collection.upsert(
                    ids=ids[start : start + step],
                    embeddings=vectors[start : start + step],
                    documents=[chunk.text for chunk in part],
                    metadatas=[_chunk_metadata(chunk) for chunk in part],
                )
        return len(chunks)

    def _max_batch(self, collection: Collection) -> int:
        client = self._client_now()
        try:
            return max(1, int(client.get_max_batch_size()))
        except Exception:  # older servers do not report it
            return 1000

    def delete_paper(self, paper_id: str) -> int:
        """Remove every vector of a paper; returns how many were removed."""
        with self._writing() as collection:
            held = collection.get(where={"paper_id": paper_id}, include=[])["ids"]
            if held:
                collection.delete(ids=held)
        return len(held)

    # ----------------------------------------------------------------- reads

    def count(self) -> int:
        collection = self._get_collection(create=False)
        return int(collection.count()) if collection is not None else 0

    def count_paper(self, paper_id: str) -> int:
        collection = self._get_collection(create=False)
        if collection is None:
            return 0
        return len(collection.get(where={"paper_id": paper_id}, include=[])["ids"])

    def paper_ids(self) -> set[str]:
        """Papers that have vectors (reads all metadata: for status output, not for queries)."""
        collection = self._get_collection(create=False)
        if collection is None:
            return set()
        metadatas = collection.get(include=["metadatas"])["metadatas"] or []
        return {str(meta["paper_id"]) for meta in metadatas if meta and "paper_id" in meta}

    def embeddings(self, chunk_ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of ``chunk_ids``, rows in that order (for backups); StoreError if one
        is missing."""
        collection = self._get_collection(create=False)
        if not chunk_ids:
            return np.zeros((0, int((self.model_identity or {}).get("dim", 0))), dtype=np.float32)
        if collection is None:
            raise StoreError(f"the vector store at {self.location} holds no collection")
        got = collection.get(ids=list(chunk_ids), include=["embeddings"])
        by_id = dict(zip(got["ids"], got["embeddings"] if got["embeddings"] is not None else [], strict=True))
        missing = [i for i in chunk_ids if i not in by_id]
        if missing:
            raise StoreError(f"{len(missing)} chunk(s) have no vector, e.g. {missing[0]}: re-ingest them")
        return np.asarray([by_id[i] for i in chunk_ids], dtype=np.float32)

    def query(
        self, embedding: np.ndarray, top_k: int, where: Mapping[str, Any] | None = None
    ) -> list[RetrievedItem]:
        """Nearest chunks by cosine similarity (best first); ``where`` is a Chroma where-clause."""
        collection = self._get_collection(create=False)
        if collection is None or top_k <= 0:
            return []
        total = collection.count()
        if total == 0:
            return []
        vector = np.asarray(embedding, dtype=np.float32).reshape(1, -1)
        stored = self.model_identity
        if stored is not None and vector.shape[1] != stored["dim"]:
            raise ConfigurationError(
                f"the vector store holds embeddings of {_describe(stored)}; the query vector has "
                f"dimension {vector.shape[1]}: re-ingest or set GEO_RAG_EMBEDDING_MODEL"
            )
        try:
            if self._exact_search(total):
                ids, documents, metadatas, scores = self._exact_query(
                    collection, vector[0], int(top_k), where
                )
            else:
                result = collection.query(
                    query_embeddings=vector,
                    n_results=min(int(top_k), total),
                    where=dict(where) if where else None,
                    include=["documents", "metadatas", "distances"],
                )
                ids = result["ids"][0]
                documents = list((result.get("documents") or [[]])[0] or [])
                metadatas = list((result.get("metadatas") or [[]])[0] or [])
                distances = (result.get("distances") or [[]])[0] or []
                scores = [1.0 - float(distance) for distance in distances]
        except ValueError as exc:  # malformed where-clause
            raise InputError(f"the vector store rejected the query: {exc}") from exc
        items: list[RetrievedItem] = []
        for chunk_id, text, meta, score in zip(ids, documents, metadatas, scores, strict=True):
            meta = dict(meta or {})
            items.append(
                RetrievedItem(
                    kind="chunk",
                    text=text or "",
                    score=score,
                    retriever="dense",
                    chunk_id=chunk_id,
                    paper_id=_str_or_none(meta.get("paper_id")),
                    source_file=_str_or_none(meta.get("source_file")),
                    title=_str_or_none(meta.get("title")),
                    section=_str_or_none(meta.get("section")),
                    page_start=_int_or_none(meta.get("page_start")),
                    page_end=_int_or_none(meta.get("page_end")),
                    provenance=[_position(chunk_id, meta)],
                )
            )
        items.sort(key=lambda item: (-item.score, item.chunk_id or ""))
        return items

    def _exact_search(self, total: int) -> bool:
        """Whether queries compare every vector: a local store (embedded or a given client) of at
        most :data:`EXACT_SEARCH_LIMIT` vectors; a Chroma server's collection uses its HNSW index."""
        return (self._folder is not None or self._given_client is not None) and total <= EXACT_SEARCH_LIMIT

    def _unit_vectors(self, collection: Collection) -> tuple[list[str], np.ndarray]:
        """Every stored vector at unit length with its chunk id, ids sorted (cached per generation in
        an embedded store; a given client may be written through other stores, so it is read anew)."""
        with self._opening:
            if self._matrix is not None and self._folder is not None:
                return self._matrix
            got = collection.get(include=["embeddings"])
            rows = got["embeddings"] if got["embeddings"] is not None else []
            pairs = sorted(zip(got["ids"], rows, strict=True), key=lambda pair: pair[0])
            ids = [chunk_id for chunk_id, _ in pairs]
            dim = int((self.model_identity or {}).get("dim", 0))
            raw = np.asarray([row for _, row in pairs], dtype=np.float32).reshape(
                len(pairs), -1 if pairs else dim
            )
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            unit = (raw / np.where(norms > 0, norms, 1.0)).astype(np.float32)
            self._matrix = (ids, unit)
            return self._matrix

    def _exact_query(
        self, collection: Collection, vector: np.ndarray, top_k: int, where: Mapping[str, Any] | None
    ) -> tuple[list[str], list[str | None], list[Mapping[str, Any] | None], list[float]]:
        """The ``top_k`` chunks of highest cosine similarity among those ``where`` admits, best first,
        ties by chunk id: (ids, documents, metadatas, scores)."""
        ids, matrix = self._unit_vectors(collection)
        norm = float(np.linalg.norm(vector))
        similarity = matrix @ (vector / norm if norm > 0 else vector)
        candidates = np.arange(len(ids))
        if where:
            allowed = set(collection.get(where=dict(where), include=[])["ids"])
            candidates = np.asarray(
                [i for i, chunk_id in enumerate(ids) if chunk_id in allowed], dtype=np.int64
            )
        # ids are sorted, so a stable sort on -similarity breaks ties by chunk id
        best = candidates[np.argsort(-similarity[candidates], kind="stable")][:top_k]
        chosen = [ids[i] for i in best]
        if not chosen:
            return [], [], [], []
        got = collection.get(ids=chosen, include=["documents", "metadatas"])
        documents: dict[str, str | None] = dict(zip(got["ids"], got["documents"] or [], strict=False))
        metadatas: dict[str, Mapping[str, Any] | None] = dict(
            zip(got["ids"], got["metadatas"] or [], strict=False)
        )
        return (
            chosen,
            [documents.get(chunk_id) for chunk_id in chosen],
            [metadatas.get(chunk_id) for chunk_id in chosen],
            [float(similarity[i]) for i in best],
        )


def _str_or_none(value: Any) -> str | None:
    return None if value is None else str(value)


def _position(chunk_id: str, meta: Mapping[str, Any]) -> dict[str, Any]:
    """Where the chunk lies in its paper: lets retrievers merge overlapping windows."""
    return {
        "chunk_id": chunk_id,
        "paper_id": meta.get("paper_id"),
        "ordinal": int(meta.get("ordinal", -1)),
        "char_start": int(meta.get("char_start", -1)),
        "char_end": int(meta.get("char_end", -1)),
        "page_start": _int_or_none(meta.get("page_start")),
        "page_end": _int_or_none(meta.get("page_end")),
    }


def _int_or_none(value: Any) -> int | None:
    return None if value is None else int(value)
