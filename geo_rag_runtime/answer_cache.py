"""Answers already given, kept until the knowledge base changes (issue 34).

A server answers the same question again from memory when nothing it answers from changed: the
key is (normalized question, mode, top_k, forced category, knowledge-base version), the value the
finished :class:`~geo_rag_runtime.models.Answer`. Bounded (least recently used goes first;
``GEO_RAG_ANSWER_CACHE_ENTRIES``, 0 turns it off), thread-safe, one per :class:`RagService`.

The knowledge-base version is :func:`kb_version`: every writer of a home (``geo-rag ingest``, a
Dagster run, restore, retire, unretire, purge) holds the home's writer lock (``home_lock``), which
writes ``ingest.pid`` when taken and a new ``ingest.version`` when given back. So:

* a finished write gives a new version, and every answer cached before it is never looked up again;
* while a writer holds the lock (``ingest.pid`` newer than ``ingest.version``), or after one was
  killed before it gave the lock back, there is no version and nothing is cached or looked up: a
  paper published mid-ingest changes answers at once;
* a home no writer of this version has touched yet has no ``ingest.version``: nothing is cached
  until its next ingest (or restore).

Never cached: errors (they raise), streamed answers (``on_text``: the caller wants the drafts), and
answers given while a store or model failed to open or that say something failed in their notes
(a degraded answer must not outlive the failure). A cached answer comes back as a copy with the
question as asked this time, ``timings_ms`` of the look-up alone, and a note saying so.
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections import OrderedDict
from collections.abc import Hashable
from pathlib import Path
from typing import Any

from geo_rag_runtime import contract
from geo_rag_runtime.models import Answer

__all__ = ["AnswerCache", "CACHED_NOTE", "VERSION_FILE", "kb_version", "normalize_question"]

VERSION_FILE = contract.KB_VERSION  # beside the writer lock; written by home_lock on release
CACHED_NOTE = "answered from the answer cache: the knowledge base has not changed since"


def kb_version(home: Path) -> str | None:
    """The knowledge base's version (see the module docstring), or None while it may be changing."""
    lock = home / contract.INGEST_LOCK
    try:
        version = (home / VERSION_FILE).stat()
    except OSError:
        return None
    try:
        taken = lock.with_suffix(".pid").stat().st_mtime_ns
    except OSError:
        taken = 0
    if taken > version.st_mtime_ns:
        return None  # a writer took the lock after the last one gave it back
    try:
        return (home / VERSION_FILE).read_text(encoding="utf-8").strip() or None
    except OSError:
        return None


def normalize_question(question: str) -> str:
    """Unicode NFC, runs of whitespace as one space, trimmed; case is kept (Hf is not HF)."""
    return " ".join(unicodedata.normalize("NFC", question).split())


class AnswerCache:
    """Bounded LRU of answers with hit/miss counts (see the module docstring)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max(0, int(max_entries))
        self._answers: OrderedDict[Hashable, Answer] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        self.uncacheable = 0  # asked while no version was known, or not cacheable
        self._version: str | None = None

    @property
    def enabled(self) -> bool:
        return self.max_entries > 0

    def key(
        self, question: str, mode: str, top_k: int | None, category: str | None, version: str
    ) -> tuple[str, str, int | None, str | None, str]:
        return (normalize_question(question), mode, top_k, category, version)

    def get(self, key: tuple[Any, ...], question: str) -> Answer | None:
        started = time.perf_counter()
        with self._lock:
            version = key[-1]
            if version != self._version:  # a new knowledge base: the old answers can go
                self._answers.clear()
                self._version = version
            answer = self._answers.get(key)
            if answer is None:
                self.misses += 1
                return None
            self._answers.move_to_end(key)
            self.hits += 1
        took = round((time.perf_counter() - started) * 1000, 3)
        notes = [*answer.notes, CACHED_NOTE]
        return answer.model_copy(
            update={"question": question, "timings_ms": {"total": took}, "notes": notes}, deep=True
        )

    def put(self, key: tuple[Any, ...], answer: Answer) -> None:
        with self._lock:
            if key[-1] != self._version:
                return  # the knowledge base changed while this answer was made
            self._answers[key] = answer.model_copy(deep=True)
            self._answers.move_to_end(key)
            while len(self._answers) > self.max_entries:
                self._answers.popitem(last=False)

    def skip(self) -> None:
        with self._lock:
            self.uncacheable += 1

    def stats(self) -> dict[str, Any]:
        with self._lock:
            asked = self.hits + self.misses
            return {
                "enabled": self.enabled,
                "entries": len(self._answers),
                "max_entries": self.max_entries,
                "hits": self.hits,
                "misses": self.misses,
                "not_cacheable": self.uncacheable,
                "hit_rate": round(self.hits / asked, 4) if asked else 0.0,
                "kb_version": self._version,
            }
