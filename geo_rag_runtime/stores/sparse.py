"""BM25 keyword index over the chunks' normalized token streams (``Chunk.tokens``), built with bm25s.

Layout under ``settings.path("sparse")``::

    papers/<paper>.json      per paper: its chunks' tokens and the metadata a retriever returns
    index/<generation>/      bm25s matrices, vocabulary and params + records.json (row -> chunk)
    CURRENT                  name of the live generation (replaced atomically)
    .lock                    file lock: one writer at a time, no reader sees a half-written index

The per-paper files are the source of truth; the BM25 matrices depend on corpus-wide statistics
(document frequencies, average length), so every change of a paper rebuilds them from all files
(bm25s builds ~1,000 chunks in well under a second). Each rebuild writes a new generation and then
switches ``CURRENT``, so a reader in another process (the query service) picks the new index up at
its next search without a restart.

Measured scale limit: the rebuild reads every paper file, which suits a lab's few hundred papers;
a GEOROC-sized corpus (~0.6 M chunks) belongs in a search engine.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import threading
import time
import uuid
from collections.abc import Callable, Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from filelock import FileLock

from geo_rag_runtime.contract import text_hash
from geo_rag_runtime.errors import REBUILD_HINT, InputError, StoreError
from geo_rag_runtime.models import Chunk
from geo_rag_runtime.settings import Settings, get_settings

__all__ = ["SparseIndex", "RECORD_KEYS"]

# what the index keeps per chunk besides its tokens (the KeywordRetriever needs no other store)
RECORD_KEYS = (
    "chunk_id",
    "paper_id",
    "source_file",
    "title",
    "section",
    "ordinal",
    "char_start",
    "char_end",
    "page_start",
    "page_end",
    "text",
)
_SAFE = re.compile(r"[^A-Za-z0-9._\-]+")
_RECORDS = "records.json"
_FORMAT = 1


def _paper_file_name(paper_id: str) -> str:
    safe = _SAFE.sub("_", paper_id)
    return f"{safe}.json" if safe == paper_id else f"{safe}-{text_hash(paper_id, 10)}.json"


def _write_json_atomic(path: Path, payload: Any) -> None:
    tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex}.tmp")
    with open(tmp, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, ensure_ascii=False)
    os.replace(tmp, path)


def _default_tokenize() -> Callable[[str], list[str]]:
    from geo_rag_runtime.text.keyword_terms import normalize_tokens

    return normalize_tokens


@dataclass(frozen=True)
class _Snapshot:
    """One loaded index generation; replaced whole, never changed (threads share it)."""

    generation: str | None
    bm25: Any
    records: list[dict[str, Any]]
    row_paper: np.ndarray
    row_of: dict[str, int]


class SparseIndex:
    """Per-paper updatable BM25 index persisted on disk, safe for several processes."""

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        path: str | Path | None = None,
        k1: float = 1.5,
        b: float = 0.75,
        tokenize: Callable[[str], list[str]] | None = None,
        lock_timeout_s: float = 300.0,
    ) -> None:
        self.root = Path(path) if path is not None else (settings or get_settings()).path("sparse")
        self.root.mkdir(parents=True, exist_ok=True)
        (self.root / "papers").mkdir(exist_ok=True)
        (self.root / "index").mkdir(exist_ok=True)
        self.k1 = k1
        self.b = b
        self._tokenize = tokenize
        self._lock = FileLock(str(self.root / ".lock"), timeout=lock_timeout_s)
        self._loaded = _Snapshot(None, None, [], np.zeros(0, dtype=object), {})
        self._loading = threading.Lock()  # one thread loads a new generation; readers keep theirs
        self.last_build_s: float | None = None

    # ----------------------------------------------------------------- writes

    def upsert_paper(self, paper_id: str, chunks: Sequence[Chunk]) -> int:
        """Replace the paper's chunks (none = remove the paper) and rebuild; returns chunks stored."""
        entries = []
        for chunk in chunks:
            if chunk.paper_id != paper_id:
                raise InputError(f"chunk {chunk.chunk_id} belongs to {chunk.paper_id}, not to {paper_id}")
            tokens = list(chunk.tokens)
            if not tokens and chunk.text.strip():
                if self._tokenize is None:
                    self._tokenize = _default_tokenize()
                tokens = self._tokenize(chunk.text)
            entry = {key: getattr(chunk, key) for key in RECORD_KEYS}
            entry["tokens"] = tokens
            entries.append(entry)
        if len({entry["chunk_id"] for entry in entries}) != len(entries):
            raise InputError(f"duplicate chunk ids for paper {paper_id}")
        if not entries:
            self.delete_paper(paper_id)
            return 0
        with self._lock:
            _write_json_atomic(
                self.root / "papers" / _paper_file_name(paper_id),
                {"format": _FORMAT, "paper_id": paper_id, "chunks": entries},
            )
            self._rebuild_locked()
        return len(entries)

    def delete_paper(self, paper_id: str) -> int:
        """Remove a paper's chunks and rebuild; returns how many chunks were removed."""
        with self._lock:
            path = self.root / "papers" / _paper_file_name(paper_id)
            if not path.exists():
                return 0
            removed = len(self._read_paper_file(path)["chunks"])
            path.unlink()
            self._rebuild_locked()
        return removed

    def rebuild(self) -> None:
        """Rebuild the BM25 matrices from the per-paper files (e.g. after changing k1/b)."""
        with self._lock:
            self._rebuild_locked()

    def _read_paper_file(self, path: Path) -> dict[str, Any]:
        try:
            with open(path, encoding="utf-8") as handle:
                payload: dict[str, Any] = json.load(handle)
        except (OSError, json.JSONDecodeError) as exc:
            raise StoreError(f"unreadable sparse index file {path}: {exc}; {REBUILD_HINT}") from exc
        return payload

    def _rebuild_locked(self) -> None:
        import bm25s

        started = time.perf_counter()
        records: list[dict[str, Any]] = []
        corpus: list[list[str]] = []
        for path in sorted((self.root / "papers").glob("*.json")):
            for entry in self._read_paper_file(path)["chunks"]:
                corpus.append([str(token) for token in entry["tokens"]])
                records.append({key: entry.get(key) for key in RECORD_KEYS})  # files before pages: None
        generation = f"g{time.time_ns():020d}-{uuid.uuid4().hex[:6]}"
        if records:
            folder = self.root / "index" / generation
            retriever = bm25s.BM25(k1=self.k1, b=self.b, method="lucene")
            retriever.index(corpus, show_progress=False)
            retriever.save(str(folder), show_progress=False)
            _write_json_atomic(folder / _RECORDS, {"format": _FORMAT, "records": records})
        else:
            generation = ""
        current = self.root / "CURRENT"
        tmp = self.root / f".CURRENT.{uuid.uuid4().hex}.tmp"
        tmp.write_text(generation, encoding="utf-8")
        os.replace(tmp, current)
        for old in (self.root / "index").iterdir():
            if old.name != generation:
                shutil.rmtree(old, ignore_errors=True)
        self.last_build_s = time.perf_counter() - started

    # ----------------------------------------------------------------- reads

    def _current_generation(self) -> str:
        try:
            return (self.root / "CURRENT").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return ""

    def _ensure_loaded(self) -> _Snapshot:
        """The live generation's snapshot, loaded if it changed since the last read (another process
        wrote). A snapshot is never changed after it is built, so a search holds its own reference
        and threads may search while another loads the next generation."""
        current = self._current_generation()
        if current == self._loaded.generation:
            return self._loaded
        import bm25s

        with self._loading, self._lock:  # a writer cannot delete the generation while it is read
            generation = self._current_generation()
            if generation == self._loaded.generation:
                return self._loaded
            bm25, records = None, []
            if generation:
                folder = self.root / "index" / generation
                try:
                    bm25 = bm25s.BM25.load(str(folder), show_progress=False)
                    with open(folder / _RECORDS, encoding="utf-8") as handle:
                        records = json.load(handle)["records"]
                except (OSError, ValueError, KeyError) as exc:
                    raise StoreError(
                        f"unreadable sparse index generation {folder}: {exc}; {REBUILD_HINT}"
                    ) from exc
            self._loaded = _Snapshot(
                generation,
                bm25,
                records,
                np.array([record["paper_id"] for record in records], dtype=object),
                {record["chunk_id"]: row for row, record in enumerate(records)},
            )
            return self._loaded

    def search(
        self,
        query_tokens: Sequence[str],
        top_k: int = 5,
        paper_ids: Collection[str] | None = None,
        *,
        record_filter: Callable[[Mapping[str, Any]], bool] | None = None,
    ) -> list[tuple[str, float]]:
        """Best chunks for the (already normalized) query tokens: (chunk_id, BM25 score), best first.

        ``paper_ids`` restricts the search to those papers, ``record_filter`` to the chunks whose
        record it accepts; chunks without any query term are never returned.
        """
        snapshot = self._ensure_loaded()
        if snapshot.bm25 is None or top_k <= 0:
            return []
        terms = [
            token for token in dict.fromkeys(query_tokens) if token in snapshot.bm25.vocab_dict and token
        ]
        if not terms:
            return []
        scores = np.asarray(snapshot.bm25.get_scores(terms), dtype=np.float32)
        if paper_ids is not None:
            scores = np.where(np.isin(snapshot.row_paper, list(paper_ids)), scores, 0.0)
        candidates = np.flatnonzero(scores > 0)
        if record_filter is not None and candidates.size:
            # only the rows that hold a query term: one Python call per record of the whole index would
            # cost every question ~0.17 s at 600k chunks (measured), e.g. while an ingest hides a paper
            records = snapshot.records
            keep = np.fromiter((record_filter(records[row]) for row in candidates), bool, candidates.size)
            candidates = candidates[keep]
        if candidates.size == 0:
            return []
        order = candidates[np.argsort(-scores[candidates], kind="stable")][:top_k]
        return [(snapshot.records[row]["chunk_id"], float(scores[row])) for row in order]

    def records(self, chunk_ids: Iterable[str]) -> list[dict[str, Any]]:
        """The stored metadata and text of chunks (unknown ids are skipped)."""
        snapshot = self._ensure_loaded()
        return [dict(snapshot.records[snapshot.row_of[cid]]) for cid in chunk_ids if cid in snapshot.row_of]

    def count(self) -> int:
        return len(self._ensure_loaded().records)

    def count_paper(self, paper_id: str) -> int:
        path = self.root / "papers" / _paper_file_name(paper_id)
        return len(self._read_paper_file(path)["chunks"]) if path.exists() else 0

    def paper_ids(self) -> list[str]:
        return sorted(
            str(self._read_paper_file(path)["paper_id"]) for path in (self.root / "papers").glob("*.json")
        )

    def size_bytes(self) -> int:
        """Bytes on disk (per-paper files and the live index), for status and benchmarks."""
        return sum(path.stat().st_size for path in self.root.rglob("*") if path.is_file())
