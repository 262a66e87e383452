"""Sentence vectors computed once at ingest, looked up at query time (issue 34).

Answering embeds sentences of the retrieved passages: the extractive generator scores every
answer-worthy sentence (:meth:`ExtractiveGenerator.candidates <geo_rag_runtime.query.generation.
ExtractiveGenerator.candidates>`), and contextual compression every sentence of a passage. That was
60 % of a warm hybrid answer. The ``sentence_embeddings`` asset now embeds the very same texts of every
chunk once, and the query path pre-fills its sentence cache with them for the passages it retrieved
(:meth:`RelevanceScorer.prefill <geo_rag_runtime.query.relevance.RelevanceScorer.prefill>`); a text
not found there (a home ingested before, a sentence that spans two stitched windows) is embedded as
before.

Where: one ``.npz`` per paper in ``$GEO_RAG_HOME/sentence_vectors/`` (name: a hash of the paper id),
holding the unique sentence texts, their float32 unit vectors, which chunk holds which text, and a
stamp: the embedder's identity, its runtime (torch or onnxruntime) and :data:`SENTENCE_VECTORS_VERSION`.
A file whose stamp differs from the embedder answering questions is not used (a changed model, or a
changed splitter or normalisation, which bumps the version): its texts are embedded at query time
until the next ingest rewrites it. Files load with ``allow_pickle=False`` (strings and floats only).

The texts are exactly the query path's: :func:`chunk_sentence_texts` takes the generator's own
:func:`~geo_rag_runtime.query.generation.candidate_sentences` and compression's own
:func:`passage_sentences`; the vectors come from the same embedder's ``embed_documents``, so a
looked-up vector is the one the query path would compute.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import uuid
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from geo_rag_runtime.query.generation import candidate_sentences

__all__ = [
    "FOLDER",
    "SENTENCE_VECTORS_VERSION",
    "SentenceVectors",
    "chunk_sentence_texts",
    "delete_paper",
    "embedder_stamp",
    "paper_file",
    "write_paper",
]

# bump when the sentence split, the normalisation or the prose filter changes: stored vectors of
# the old texts are then stale (not used) until the next ingest
SENTENCE_VECTORS_VERSION = "sentences-1"
FOLDER = "sentence_vectors"


def passage_sentences(text: str) -> list[str]:
    """A passage's sentences as contextual compression scores them (raw slices; the whole text
    when it has no sentence boundary)."""
    from geo_rag_runtime.text.sentences import split_sentences

    return [text[s:e] for s, e in split_sentences(text)] or [text]


def chunk_sentence_texts(text: str) -> list[str]:
    """Every text the query path may embed for a sentence of this chunk, unique, in order."""
    texts = [s for _, s in candidate_sentences(text)] + passage_sentences(text)
    return [t for t in dict.fromkeys(texts) if t.strip()]


def embedder_stamp(embedder: Any) -> dict[str, Any]:
    """What makes stored vectors the ones this embedder computes now."""
    return {
        "identity": dict(embedder.identity),
        "runtime": str(getattr(embedder, "runtime", type(embedder).__name__)),
        "version": SENTENCE_VECTORS_VERSION,
    }


def _stamp_text(stamp: dict[str, Any]) -> str:
    return json.dumps(stamp, sort_keys=True, default=str)


def paper_file(home: Path, paper_id: str) -> Path:
    digest = hashlib.sha256(paper_id.encode("utf-8")).hexdigest()[:40]
    return Path(home) / FOLDER / f"{digest}.npz"


def write_paper(home: Path, paper_id: str, chunks: Sequence[Any], embedder: Any) -> dict[str, Any]:
    """Embed the sentences of ``chunks`` (objects with ``chunk_id`` and ``text``) and replace the
    paper's file atomically; returns counts for the asset's metadata."""
    pair_chunks: list[str] = []
    pair_texts: list[int] = []
    index: dict[str, int] = {}
    for chunk in chunks:
        for text in chunk_sentence_texts(chunk.text):
            position = index.setdefault(text, len(index))
            pair_chunks.append(str(chunk.chunk_id))
            pair_texts.append(position)
    texts = list(index)
    dim = int(embedder.dim)
    vectors = (
        np.asarray(embedder.embed_documents(texts), dtype=np.float32)
        if texts
        else np.zeros((0, dim), dtype=np.float32)
    )
    target = paper_file(home, paper_id)
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(f".{target.stem}.{uuid.uuid4().hex}.npz")
    with open(partial, "wb") as handle:
        np.savez(
            handle,
            paper_id=np.asarray(paper_id),
            stamp=np.asarray(_stamp_text(embedder_stamp(embedder))),
            texts=np.asarray(texts, dtype=str),
            vectors=vectors,
            pair_chunks=np.asarray(pair_chunks, dtype=str),
            pair_texts=np.asarray(pair_texts, dtype=np.int32),
        )
    os.replace(partial, target)
    return {"sentences": len(texts), "pairs": len(pair_chunks), "chunks": len(chunks), "file": target.name}


def delete_paper(home: Path, paper_id: str) -> bool:
    """Remove a paper's sentence vectors (purge); True when there were any."""
    try:
        paper_file(home, paper_id).unlink()
    except FileNotFoundError:
        return False
    return True


class _Loaded:
    """One paper's file in memory: chunk id -> (texts, vector rows)."""

    def __init__(self, key: tuple[int, int], usable: bool, by_chunk: dict[str, list[int]], data: Any) -> None:
        self.key = key
        self.usable = usable
        self.by_chunk = by_chunk
        self.texts: list[str] = [str(t) for t in data["texts"]] if usable else []
        self.vectors: np.ndarray = data["vectors"] if usable else np.zeros((0, 0), np.float32)


class SentenceVectors:
    """Read side: the stored vectors of given chunks, when their stamp matches ``stamp``.

    Thread-safe; keeps up to ``max_papers`` papers' files in memory and re-reads a file that an
    ingest replaced (compared by modification time and size on each lookup)."""

    def __init__(self, home: Path, stamp: dict[str, Any], *, max_papers: int = 256) -> None:
        self.home = Path(home)
        self.stamp = _stamp_text(stamp)
        self.max_papers = max_papers
        self._papers: OrderedDict[str, _Loaded | None] = OrderedDict()
        self._lock = threading.Lock()
        self.found = 0  # texts handed out
        self.stale_papers: set[str] = set()  # papers whose file has another stamp

    def _paper(self, paper_id: str) -> _Loaded | None:
        path = paper_file(self.home, paper_id)
        try:
            stat = path.stat()
        except OSError:
            with self._lock:
                self._papers.pop(paper_id, None)
            return None
        key = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            loaded = self._papers.get(paper_id)
            if loaded is not None and loaded.key == key:
                self._papers.move_to_end(paper_id)
                return loaded
        try:
            with np.load(path, allow_pickle=False) as data:
                usable = str(data["stamp"]) == self.stamp
                by_chunk: dict[str, list[int]] = {}
                if usable:
                    for chunk_id, row in zip(data["pair_chunks"], data["pair_texts"], strict=True):
                        by_chunk.setdefault(str(chunk_id), []).append(int(row))
                loaded = _Loaded(key, usable, by_chunk, data)
        except (OSError, ValueError, KeyError):  # a damaged or half-copied file: compute instead
            return None
        with self._lock:
            if not loaded.usable:
                self.stale_papers.add(paper_id)
            else:
                self.stale_papers.discard(paper_id)
            self._papers[paper_id] = loaded
            self._papers.move_to_end(paper_id)
            while len(self._papers) > self.max_papers:
                self._papers.popitem(last=False)
        return loaded

    def lookup(self, refs: Iterable[tuple[str | None, str | None]]) -> dict[str, np.ndarray]:
        """text -> stored vector for every sentence of the chunks ``refs`` names ((paper id, chunk
        id) pairs; unknown or stale ones give nothing)."""
        out: dict[str, np.ndarray] = {}
        for paper_id, chunk_id in dict.fromkeys(refs):
            if not paper_id or not chunk_id:
                continue
            loaded = self._paper(str(paper_id))
            if loaded is None or not loaded.usable:
                continue
            for row in loaded.by_chunk.get(str(chunk_id), ()):
                out[loaded.texts[row]] = loaded.vectors[row]
        with self._lock:
            self.found += len(out)
        return out

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "papers_loaded": sum(1 for p in self._papers.values() if p is not None and p.usable),
                "stale_papers": len(self.stale_papers),
                "texts_found": self.found,
            }
