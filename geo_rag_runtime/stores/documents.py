"""The document store: papers, chunks and triples through the pymongo API.

``MONGODB_URI`` selects a real MongoDB (``pymongo.MongoClient``); otherwise the embedded default
is ``litemongo`` (mongomock over SQLite files under ``GEO_RAG_HOME/documents``), which speaks the
same API in process. Every write is an upsert keyed by a deterministic id, so re-running a stage is
idempotent.

Concurrency: Dagster runs steps in separate processes. Single-document upserts from two processes
into litemongo were measured not to lose documents (tests/runtime/test_documents.py), but a
paper's chunk set is replaced in two steps (delete stale ids, upsert the new ones), and litemongo's
unique indexes are checked in process only. So on the embedded store every write method holds an
inter-process file lock (``documents.lock``); the Dagster pool ``docstore`` additionally keeps
writes to one at a time. A real MongoDB needs neither.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import re
from collections import Counter
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path
from typing import Any

from filelock import FileLock

from geo_rag_runtime import contract
from geo_rag_runtime.errors import REBUILD_HINT, StoreError
from geo_rag_runtime.models import Chunk, Measurement, Paper, Triple
from geo_rag_runtime.settings import Settings


def _now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


class DocumentStore:
    """Papers, chunks and triples with unique ids, and the registry of which PDF each ``papers``
    partition stands for; one instance per run (no shared state)."""

    def __init__(self, database: Any, *, lock_path: Path | None = None, backend: str = "mongodb") -> None:
        self.db = database
        self.backend = backend
        self._lock = FileLock(str(lock_path), timeout=120) if lock_path else None
        self._client: Any = None

    # -- plumbing -------------------------------------------------------------------------
    @contextlib.contextmanager
    def _writing(self) -> Iterator[None]:
        if self._lock is None:
            yield
        else:
            with self._lock:
                yield

    def ensure_indexes(self) -> None:
        """Unique ids per collection plus the lookups the pipeline does (by paper, by hash)."""
        with self._writing():
            self.db[contract.PAPERS].create_index("paper_id", unique=True)
            self.db[contract.PAPERS].create_index("sha256", unique=True)
            self.db[contract.CHUNKS].create_index("chunk_id", unique=True)
            self.db[contract.CHUNKS].create_index("paper_id")
            self.db[contract.TRIPLES].create_index("triple_id", unique=True)
            self.db[contract.TRIPLES].create_index("paper_id")
            self.db[contract.MEASUREMENTS].create_index("measurement_id", unique=True)
            self.db[contract.MEASUREMENTS].create_index("paper_id")
            self.db[contract.MEASUREMENTS].create_index("analyte")

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # -- papers ---------------------------------------------------------------------------
    def upsert_paper(self, paper: Paper, **extra: Any) -> None:
        doc = paper.model_dump()
        doc.update(extra)
        doc["_id"] = paper.paper_id
        doc["updated_at"] = _now()
        with self._writing():
            self.db[contract.PAPERS].replace_one({"_id": paper.paper_id}, doc, upsert=True)

    def set_paper_fields(self, paper_id: str, **fields: Any) -> None:
        with self._writing():
            self.db[contract.PAPERS].update_one({"_id": _literal(paper_id)}, {"$set": fields})

    def get_paper(self, paper_id: str) -> dict[str, Any] | None:
        doc: dict[str, Any] | None = self.db[contract.PAPERS].find_one({"_id": _literal(paper_id)})
        return doc

    def find_paper_by_sha256(self, sha256: str) -> dict[str, Any] | None:
        doc: dict[str, Any] | None = self.db[contract.PAPERS].find_one({"sha256": _literal(sha256)})
        return doc

    def find_paper_by_source(self, source_file: str) -> dict[str, Any] | None:
        doc: dict[str, Any] | None = self.db[contract.PAPERS].find_one({"source_file": _literal(source_file)})
        return doc

    def papers(self) -> list[dict[str, Any]]:
        projection = {"sections": 0, "references": 0, "captions": 0}
        return list(self.db[contract.PAPERS].find({}, projection).sort("source_file", 1))

    def find_paper_by_partition(self, partition_key: str) -> dict[str, Any] | None:
        """The whole paper document stored for a ``papers`` partition (``None`` when there is none).

        ``partition_key`` is the field ``paper_json`` stores beside the paper (see ``geo_assets``)."""
        doc: dict[str, Any] | None = self.db[contract.PAPERS].find_one(
            {"partition_key": _literal(partition_key)}
        )
        return doc

    def paper_sha256_for_partition(self, partition_key: str) -> str | None:
        """Content hash of the paper stored for a ``papers`` partition, read without the rest of the
        document; ``None`` when no paper is stored for it (or the stored one has no hash)."""
        doc: dict[str, Any] | None = self.db[contract.PAPERS].find_one(
            {"partition_key": _literal(partition_key)}, {"sha256": 1}
        )
        sha256 = None if doc is None else doc.get("sha256")
        return None if sha256 is None else str(sha256)

    def papers_for_partition(self, partition_key: str) -> list[dict[str, Any]]:
        """Every paper stored for a ``papers`` partition (id, hash, source): one, or two in the moment
        between a replaced PDF's new version being stored and ``retire.retire_replaced`` setting the
        old one aside."""
        return list(
            self.db[contract.PAPERS].find(
                {"partition_key": _literal(partition_key)},
                {"paper_id": 1, "sha256": 1, "source_file": 1, "source_path": 1},
            )
        )

    # -- chunks ---------------------------------------------------------------------------
    def replace_chunks(self, paper_id: str, chunks: Sequence[Chunk]) -> dict[str, int]:
        """Make the stored chunks of a paper exactly ``chunks`` (upsert new, delete stale)."""
        ids = [c.chunk_id for c in chunks]
        if len(set(ids)) != len(ids):
            raise StoreError(f"duplicate chunk ids for paper {paper_id}")
        return self._replace_paper_set(contract.CHUNKS, paper_id, {c.chunk_id: c for c in chunks})

    def chunks_for_paper(self, paper_id: str) -> list[Chunk]:
        docs = self.db[contract.CHUNKS].find({"paper_id": _literal(paper_id)}).sort("ordinal", 1)
        return [Chunk.model_validate(_strip_id(d)) for d in docs]

    def get_chunks(self, chunk_ids: Sequence[str]) -> list[Chunk]:
        docs = {d["_id"]: d for d in self.db[contract.CHUNKS].find({"_id": {"$in": list(chunk_ids)}})}
        return [Chunk.model_validate(_strip_id(docs[i])) for i in chunk_ids if i in docs]

    # -- triples --------------------------------------------------------------------------
    def replace_triples(self, paper_id: str, triples: Sequence[Triple]) -> dict[str, int]:
        return self._replace_paper_set(contract.TRIPLES, paper_id, {t.triple_id: t for t in triples})

    def triples_for_paper(self, paper_id: str) -> list[Triple]:
        docs = self.db[contract.TRIPLES].find({"paper_id": _literal(paper_id)})
        return [Triple.model_validate(_strip_id(d)) for d in docs]

    def triple_entities(self) -> Iterator[tuple[str, str]]:
        """``(entity type, name)`` of the head and then the tail of every stored triple, in store order
        (repeats included), reading only those four fields. Streams from a cursor: consume it while
        the store is open."""
        projection = {"head": 1, "head_type": 1, "tail": 1, "tail_type": 1}
        for doc in self.db[contract.TRIPLES].find({}, projection):
            yield str(doc["head_type"]), str(doc["head"])
            yield str(doc["tail_type"]), str(doc["tail"])

    # -- measurements -----------------------------------------------------------------------
    def replace_measurements(self, paper_id: str, rows: Sequence[Measurement]) -> dict[str, int]:
        """A paper's measurement rows, replacing the previous set (rows no longer extracted go)."""
        return self._replace_paper_set(contract.MEASUREMENTS, paper_id, {m.measurement_id: m for m in rows})

    def _replace_paper_set(self, collection: str, paper_id: str, items: dict[str, Any]) -> dict[str, int]:
        """Upsert ``items`` (id → model) as the paper's whole set in ``collection`` and delete the
        paper's documents that are not among them, under the write lock."""
        from pymongo import ReplaceOne

        with self._writing():
            col = self.db[collection]
            stale = col.delete_many({"paper_id": paper_id, "_id": {"$nin": list(items)}}).deleted_count
            if items:
                col.bulk_write(
                    [
                        ReplaceOne({"_id": i}, {**m.model_dump(), "_id": i}, upsert=True)
                        for i, m in items.items()
                    ],
                    ordered=False,
                )
        return {"upserted": len(items), "deleted_stale": stale}

    def find_measurements(
        self,
        *,
        analyte: str | Sequence[str] | None = None,
        paper_id: str | Sequence[str] | None = None,
        minimum: float | None = None,
        maximum: float | None = None,
        limit: int = 0,
        exclude_papers: Collection[str] = (),
    ) -> list[Measurement]:
        """Rows matching every given filter (values are query parameters, never query text), in
        paper and text order. ``analyte`` and ``paper_id`` take one value or several (any of them);
        ``minimum``/``maximum`` bound ``value`` (a range's low end); rows of ``exclude_papers``
        (papers being rebuilt or retired) are left out."""
        query: dict[str, Any] = {}
        for field_name, wanted in (("analyte", analyte), ("paper_id", paper_id)):
            if isinstance(wanted, str):
                query[field_name] = wanted
            elif wanted is not None:
                query[field_name] = {"$in": [str(w) for w in wanted]}
        if exclude_papers:
            excluded = sorted(str(p) for p in exclude_papers)
            chosen = query.get("paper_id")
            if chosen is None:
                query["paper_id"] = {"$nin": excluded}
            else:
                wanted_ids = [chosen] if isinstance(chosen, str) else chosen["$in"]
                query["paper_id"] = {"$in": [p for p in wanted_ids if p not in set(excluded)]}
        bounds: dict[str, float] = {}
        if minimum is not None:
            bounds["$gte"] = float(minimum)
        if maximum is not None:
            bounds["$lte"] = float(maximum)
        if bounds:
            query["value"] = bounds
        docs = self.db[contract.MEASUREMENTS].find(query).sort([("paper_id", 1), ("char_start", 1)])
        if limit:
            docs = docs.limit(int(limit))
        return [Measurement.model_validate(_strip_id(d)) for d in docs]

    def measurement_analytes(self) -> dict[str, int]:
        """How many rows each analyte has, most first."""
        counts = Counter(
            str(doc["analyte"]) for doc in self.db[contract.MEASUREMENTS].find({}, {"analyte": 1})
        )
        return dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))

    # -- sources registry (partition key -> PDF path) -------------------------------------
    def register_source(self, key: str, path: str) -> None:
        """Record (or re-point) partition ``key`` to the PDF at ``path``; an upsert under the write lock.

        Choosing the key (and resolving ``path``) is the caller's business: the store keeps the map."""
        with self._writing():
            self.db[contract.SOURCES].replace_one(
                {"_id": _literal(key)}, {"_id": key, "path": path}, upsert=True
            )

    def source_path(self, key: str) -> str | None:
        """The PDF path registered for partition ``key``, as stored; ``None`` when it is not registered."""
        doc: dict[str, Any] | None = self.db[contract.SOURCES].find_one({"_id": _literal(key)})
        return None if doc is None else str(doc["path"])

    def source_key_for_path(self, path: str) -> str | None:
        """The partition key a PDF path (compared as stored, exactly) is registered under, else ``None``."""
        doc: dict[str, Any] | None = self.db[contract.SOURCES].find_one({"path": _literal(path)})
        return None if doc is None else str(doc["_id"])

    def sources(self) -> dict[str, str]:
        """Every registered partition key with its PDF path, in store order."""
        return {str(d["_id"]): str(d["path"]) for d in self.db[contract.SOURCES].find({})}

    def delete_source(self, key: str) -> int:
        """Forget partition ``key`` (under the write lock); returns how many entries went (0 or 1)."""
        with self._writing():
            deleted: int = self.db[contract.SOURCES].delete_one({"_id": _literal(key)}).deleted_count
        return deleted

    # -- lifecycle ------------------------------------------------------------------------
    def delete_paper(self, paper_id: str) -> dict[str, int]:
        """Remove a paper and everything derived from it in this store."""
        with self._writing():
            return {
                "papers": self.db[contract.PAPERS].delete_many({"_id": _literal(paper_id)}).deleted_count,
                "chunks": self.db[contract.CHUNKS]
                .delete_many({"paper_id": _literal(paper_id)})
                .deleted_count,
                "triples": self.db[contract.TRIPLES]
                .delete_many({"paper_id": _literal(paper_id)})
                .deleted_count,
                "measurements": self.db[contract.MEASUREMENTS]
                .delete_many({"paper_id": _literal(paper_id)})
                .deleted_count,
            }

    def counts(self) -> dict[str, int]:
        return {
            name: self.db[name].count_documents({})
            for name in (contract.PAPERS, contract.CHUNKS, contract.TRIPLES, contract.MEASUREMENTS)
        }

    def set_meta(self, key: str, value: Any) -> None:
        with self._writing():
            self.db[contract.META].replace_one(
                {"_id": _literal(key)}, {"_id": key, "value": value}, upsert=True
            )

    def get_meta(self, key: str) -> Any:
        doc = self.db[contract.META].find_one({"_id": _literal(key)})
        return doc["value"] if doc else None


def _literal(value: Any) -> str:
    """A name used as a filter value, as text: a dict or list reaching a query from outside (JSON,
    a caller's bug) would act as an operator — on a real MongoDB ``delete_paper({"$ne": None})``
    deleted every paper — so anything but a string is refused."""
    if not isinstance(value, str):
        raise StoreError(f"expected a text id or name, got {type(value).__name__}")
    return value


def _redacted(uri: str) -> str:
    """The URI without its password, for messages."""
    return re.sub(r"(//[^:/@]+:)[^@]*@", r"\1***@", uri)


def _strip_id(doc: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in doc.items() if k != "_id"}


def _check_files(database: Path) -> None:
    """Read the first page of each embedded collection file (a fraction of a millisecond each).

    litemongo opens its SQLite files lazily and a damaged one surfaces later as sqlite3's bare
    "file is not a database", naming neither the file nor the fix; a crash or a full disk mid-write
    is caught here instead, with both."""
    import sqlite3

    if not database.is_dir():
        return
    for path in sorted(database.iterdir()):
        if not path.is_file() or path.name.endswith(("-wal", "-shm", "-journal")):
            continue
        try:
            with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5)) as db:
                db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"unreadable document store file {path}: {exc}; {REBUILD_HINT}") from exc


def _uri_sets(uri: str, option: str) -> bool:
    """Whether a MongoDB URI's query string sets ``option`` (option names are case-insensitive)."""
    from urllib.parse import parse_qsl

    query = uri.partition("?")[2]
    return any(key.casefold() == option.casefold() for key, _ in parse_qsl(query))


def open_document_store(settings: Settings, *, read_only: bool = False) -> DocumentStore:
    """Connect to MongoDB when ``MONGODB_URI`` is set, else to the embedded litemongo store.

    ``read_only`` (query serving) skips creating indexes, which is a write a read-only database user
    may not make."""
    if settings.mongodb_uri:
        import pymongo

        # a 5 s default for finding the server (pymongo's own is 30 s), unless the URI sets its own:
        # pymongo lets a keyword argument override the URI's option, which would ignore the operator's
        options: dict[str, Any] = (
            {}
            if _uri_sets(settings.mongodb_uri, "serverSelectionTimeoutMS")
            else {"serverSelectionTimeoutMS": 5000}
        )
        client: Any = pymongo.MongoClient(settings.mongodb_uri, **options)
        try:
            client.admin.command("ping")
        except Exception as exc:  # pymongo raises several types; all mean "not reachable"
            raise StoreError(f"MongoDB at {_redacted(settings.mongodb_uri)} is not reachable: {exc}") from exc
        store = DocumentStore(client[settings.mongodb_db], backend="mongodb")
    else:
        import litemongo

        folder = settings.path("documents")
        _check_files(folder / settings.mongodb_db)
        # litemongo creates these folders with check-then-mkdir, which races when several processes
        # open a fresh home at once (FileExistsError in the loser); creating them first is idempotent.
        (folder / settings.mongodb_db).mkdir(parents=True, exist_ok=True)
        client = litemongo.connect(str(folder))
        store = DocumentStore(
            client[settings.mongodb_db], lock_path=folder / "documents.lock", backend="litemongo"
        )
    store._client = client
    if not read_only:
        store.ensure_indexes()
    return store
