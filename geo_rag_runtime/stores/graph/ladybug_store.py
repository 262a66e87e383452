"""The embedded graph store: LadybugDB (maintained Kuzu fork), a Cypher database in one folder on disk.

LadybugDB lets one process open a database read-write at a time (a second writer fails on the file lock)
while read-only opens still succeed. Dagster runs partitions in separate processes, so by default each
operation opens the database, works, and closes it again, and writers take a ``filelock`` first so they
queue instead of failing. ``keep_open=True`` holds one connection (benchmarks, a single process).

A read-only store (the query service's) keeps a few idle read handles instead of closing each after
its read: opening one took ~48 ms, 1–2 per HybridRAG question (issue 34). A handle is reused only
while the database's files are unchanged (modification time and size of every file of the
database), so a read still sees the last committed writes of another process; one read uses one
handle at a time (connections are not made for concurrent use).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from filelock import FileLock, Timeout

from geo_rag_runtime.errors import REBUILD_HINT, StoreError
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.stores.graph import cypher
from geo_rag_runtime.stores.graph.base import (
    LEAF_TYPES,
    Fact,
    GraphStore,
    LoadStats,
    check_depth,
    facts_from_rows,
    paper_rows,
)

_MAX_IDS = 50_000


class LadybugGraphStore(GraphStore):
    """Graph store in a LadybugDB database at ``path`` (a file; its folder is created)."""

    def __init__(
        self,
        path: str | Path,
        *,
        read_only: bool = False,
        keep_open: bool = False,
        lock_timeout_s: float = 600.0,
    ) -> None:
        self.path = Path(path)
        self.read_only = read_only
        self.keep_open = keep_open
        self._lock = FileLock(str(self.path) + ".lock", timeout=lock_timeout_s)
        self._db: Any = None
        self._conn: Any = None
        self._schema_ready = False
        self._idle: list[tuple[tuple[Any, ...], Any, Any]] = []  # (files stamp, database, connection)
        self._idle_lock = threading.Lock()
        if read_only and not self.path.exists():
            raise StoreError(f"no graph database at {self.path}: ingest papers first")
        self.path.parent.mkdir(parents=True, exist_ok=True)

    # -- connection handling --

    def _connect(self) -> tuple[Any, Any]:
        """A new (database, connection) pair on the file."""
        import ladybug

        try:
            database = ladybug.Database(str(self.path), read_only=self.read_only)
            return database, ladybug.Connection(database)
        except RuntimeError as exc:
            raise StoreError(f"cannot open graph database {self.path}: {exc}; {REBUILD_HINT}") from exc

    def _open(self) -> Any:
        if self._conn is None:
            self._db, self._conn = self._connect()
        return self._conn

    _MAX_IDLE_READERS = 4

    def _files_stamp(self) -> tuple[Any, ...]:
        """(name, mtime, size) of every file of the database (the file, its WAL, ...): a write by
        any process changes it."""
        stamp = []
        try:
            for entry in sorted(self.path.parent.iterdir()):
                if entry.name.startswith(self.path.name) and not entry.name.endswith(".lock"):
                    stat = entry.stat()
                    stamp.append((entry.name, stat.st_mtime_ns, stat.st_size))
        except OSError:
            return (object(),)  # unreadable: never equal, so nothing is reused
        return tuple(stamp)

    @contextlib.contextmanager
    def _reading(self) -> Iterator[Any]:
        """A read on a database handle of its own: server threads never share a connection
        (LadybugDB connections are not made for concurrent use). A read-write store opens it for
        this read and closes it after; a read-only one reuses an idle handle while the database's
        files are unchanged (module docstring), so either sees the last committed writes."""
        stamp = self._files_stamp() if self.read_only else None
        handle = None
        if stamp is not None:
            with self._idle_lock:
                while self._idle and handle is None:
                    held, database, connection = self._idle.pop()
                    if held == stamp:
                        handle = (database, connection)
                    else:
                        database.close()
        database, connection = handle if handle is not None else self._connect()
        done = False
        try:
            yield connection
            done = True
        finally:
            kept = False
            if done and stamp is not None and self._files_stamp() == stamp:
                with self._idle_lock:
                    if len(self._idle) < self._MAX_IDLE_READERS:
                        self._idle.append((stamp, database, connection))
                        kept = True
            if not kept:
                database.close()

    def _release(self) -> None:
        if self._db is not None:
            self._db.close()
        self._db = self._conn = None

    @contextlib.contextmanager
    def _session(self, write: bool) -> Iterator[Any]:
        if write and self.read_only:
            raise StoreError("graph store opened read-only")
        if not write and not self.keep_open:
            with self._reading() as conn:
                yield conn
            return
        lock = self._lock if write else contextlib.nullcontext()
        try:
            with lock:
                conn = self._open()
                try:
                    if write and not self._schema_ready:
                        self._create_schema(conn)
                    yield conn
                finally:
                    if not self.keep_open:
                        self._release()
        except Timeout as exc:
            raise StoreError(f"graph database {self.path} stayed locked by another writer") from exc

    @staticmethod
    def _rows(conn: Any, query: str, params: Mapping[str, Any] | None = None) -> list[dict[str, Any]]:
        result = conn.execute(query, dict(params or {}))
        columns = result.get_column_names()
        return [dict(zip(columns, row, strict=True)) for row in result.get_all()]

    @staticmethod
    def _run(conn: Any, query: str, params: Mapping[str, Any] | None = None) -> None:
        conn.execute(query, dict(params or {}))

    def _create_schema(self, conn: Any) -> None:
        for statement in cypher.LADYBUG_SCHEMA:
            self._run(conn, statement)
        self._schema_ready = True

    # -- GraphStore --

    def ensure_schema(self) -> None:
        with self._session(write=True):
            pass  # the session creates the schema

    def load(
        self, paper: Mapping[str, Any] | Any, chunks: Sequence[Chunk], triples: Sequence[Triple]
    ) -> LoadStats:
        rows = paper_rows(paper, chunks, triples)
        pid = rows.paper["paper_id"]
        with self._session(write=True) as conn:
            self._run(conn, "BEGIN TRANSACTION")
            try:
                self._delete(conn, pid)
                self._run(conn, cypher.LADYBUG_MERGE_PAPER, rows.paper)
                # nodes first, then MATCH … MERGE the relationships: one combined UNWIND dropped rows
                # (docs/architecture.md#measured-pitfalls)
                for query, batch in (
                    (cypher.LADYBUG_MERGE_CHUNKS, rows.chunks),
                    (cypher.LADYBUG_MERGE_ENTITIES, rows.entities),
                    (cypher.LADYBUG_MERGE_EXTRACTED_FROM, rows.chunks),
                    (cypher.LADYBUG_MERGE_MENTIONS, rows.mentions),
                    (cypher.LADYBUG_MERGE_FACTS, rows.facts),
                ):
                    if batch:  # ladybug cannot type an empty list parameter
                        self._run(conn, query, {"rows": batch})
                self._run(conn, "COMMIT")
            except Exception:
                self._run(conn, "ROLLBACK")
                raise
            stored = self._paper_counts(conn, pid)
            expected = {"chunks": len(rows.chunks), "facts": len(rows.facts), "mentions": len(rows.mentions)}
            if stored != expected:
                raise StoreError(f"graph load of {pid} is incomplete: stored {stored}, expected {expected}")
        return LoadStats(
            nodes=1 + len(rows.chunks) + len(rows.entities),
            relationships=len(rows.chunks) + len(rows.mentions) + len(rows.facts),
            entities=len(rows.entities),
            facts=len(rows.facts),
            mentions=len(rows.mentions),
            chunks=len(rows.chunks),
        )

    def _delete(self, conn: Any, paper_id: str) -> None:
        params = {"paper_id": paper_id}
        names = [r["name"] for r in self._rows(conn, cypher.LADYBUG_PAPER_ENTITY_NAMES, params)]
        self._run(conn, cypher.LADYBUG_DELETE_FACTS, params)
        self._run(conn, cypher.LADYBUG_DELETE_CHUNKS, params)
        self._run(conn, cypher.LADYBUG_DELETE_PAPER, params)
        if names:
            self._run(conn, cypher.LADYBUG_DELETE_ORPHANS, {"names": names})

    def delete_paper(self, paper_id: str) -> None:
        with self._session(write=True) as conn:
            self._run(conn, "BEGIN TRANSACTION")
            try:
                self._delete(conn, paper_id)
                self._run(conn, "COMMIT")
            except Exception:
                self._run(conn, "ROLLBACK")
                raise

    def subgraph(self, entity_names: Sequence[str], depth: int, limit: int) -> list[Fact]:
        names = sorted({n for n in entity_names if n})
        if not names or limit <= 0:
            return []
        depth = check_depth(depth)
        if not self.path.exists():
            return []
        with self._session(write=False) as conn:
            try:
                ids = self._facts_within(conn, names, depth)
            except RuntimeError as exc:
                if "does not exist" in str(exc):
                    return []  # empty database: no tables yet
                raise StoreError(f"graph query failed: {exc}") from exc
            if not ids:
                return []
            rows = self._rows(
                conn, cypher.LADYBUG_FACTS_BY_ID, {"ids": ids[:_MAX_IDS], "names": names, "limit": int(limit)}
            )
        return facts_from_rows(rows)

    def _facts_within(self, conn: Any, names: Sequence[str], depth: int) -> list[str]:
        """Ids of the facts on trails of 1..``depth`` facts from ``names`` that pass through no leaf
        type, found hop by hop: each hop is one query over the facts around the frontier.

        Why not one variable-length ``TRAIL 1..depth`` path query, which asks for the same facts
        (and was used before): it enumerates every trail, and around hub entities (U, Th, He in a
        geochronology paper) that took 23–29 s and 14 GB of memory for one question on the
        17-paper corpus. A fact lies on such a trail exactly when one of its ends is reached within
        ``depth - 1`` hops through non-leaf entities, so a breadth-first walk finds the same set in
        time linear in the facts it touches."""
        ids: dict[str, None] = {}
        seen = set(names)
        frontier = list(names)
        for hop in range(depth):
            reached = self._rows(conn, cypher.LADYBUG_FACTS_AROUND, {"names": frontier})
            for row in reached:
                ids.setdefault(str(row["triple_id"]), None)
            if hop + 1 == depth or len(ids) >= _MAX_IDS:
                break
            frontier = sorted(
                {str(r["name"]) for r in reached if r["type"] not in LEAF_TYPES and r["name"] not in seen}
            )
            seen.update(frontier)
            if not frontier:
                break
        return list(ids)

    @staticmethod
    def _scalar(conn: Any, query: str, params: Mapping[str, Any] | None = None) -> int:
        rows = LadybugGraphStore._rows(conn, query, params)
        return int(rows[0]["n"]) if rows else 0

    def _paper_counts(self, conn: Any, paper_id: str) -> dict[str, int]:
        return {
            k: self._scalar(conn, q, {"paper_id": paper_id}) for k, q in cypher.LADYBUG_PAPER_COUNTS.items()
        }

    def counts(self) -> dict[str, int]:
        if not self.path.exists():
            return dict.fromkeys(cypher.LADYBUG_COUNTS, 0)
        with self._session(write=False) as conn:
            try:
                return {k: self._scalar(conn, q) for k, q in cypher.LADYBUG_COUNTS.items()}
            except RuntimeError:
                return dict.fromkeys(cypher.LADYBUG_COUNTS, 0)

    def paper_counts(self, paper_id: str) -> dict[str, int]:
        with self._session(write=False) as conn:
            return self._paper_counts(conn, paper_id)

    def close(self) -> None:
        with self._idle_lock:
            idle, self._idle = self._idle, []
        for _, database, _connection in idle:
            database.close()
        self._release()
