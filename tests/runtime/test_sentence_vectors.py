"""Sentence vectors computed at ingest and looked up at query time, and the answer cache (issue 34).

On a copy of the session's real knowledge base (two sample papers, MiniLM through ONNX Runtime as
questions use it): the vectors are written by the asset's own function (``write_paper``) with the
embedder the service answers with; an embedder wrapper records every text it is asked to embed.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from geo_rag_runtime.answer_cache import CACHED_NOTE, kb_version
from geo_rag_runtime.embeddings import Embedder
from geo_rag_runtime.errors import InputError
from geo_rag_runtime.home_lock import home_lock
from geo_rag_runtime.models import answer_json
from geo_rag_runtime.query import sentence_vectors
from geo_rag_runtime.service import RagService
from geo_rag_runtime.settings import Settings
from tests.runtime.knowledge_base import MAGNETITE, ZIRCON, KnowledgeBase

QUESTIONS = (
    MAGNETITE,
    ZIRCON,
    "Why do some zircons crystallise long before eruption?",
    "What distinguishes the tholeiitic from the calc-alkaline magma series?",
    "What is the role of olivine and pyroxene in removing ferrous iron?",
)


class Recording(Embedder):
    """The real embedder, recording every text it embeds (same identity and runtime)."""

    def __init__(self, inner: Any, *, identity: dict[str, Any] | None = None) -> None:
        self.inner = inner
        self.texts: list[str] = []
        self._identity = identity

    @property
    def dim(self) -> int:
        return int(self.inner.dim)

    @property
    def model_name(self) -> str:
        return str(self.inner.model_name)

    @property
    def provider(self) -> str:
        return str(self.inner.provider)

    @property
    def runtime(self) -> str:
        return str(getattr(self.inner, "runtime", type(self.inner).__name__))

    @property
    def identity(self) -> dict[str, Any]:
        return dict(self._identity if self._identity is not None else self.inner.identity)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        vectors: np.ndarray = self.inner.embed_documents(texts)
        return vectors

    def embed_query(self, text: str) -> np.ndarray:
        self.texts.append(text)
        vector: np.ndarray = self.inner.embed_query(text)
        return vector


def _settings(settings: Settings, **update: Any) -> Settings:
    return settings.model_copy(update={"generator": "extractive", **update})


def _answer(answer: Any) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(answer_json(answer))
    data.pop("timings_ms")
    return data


def _write(kb: KnowledgeBase, settings: Settings, embedder: Any) -> int:
    """What the ``sentence_embeddings`` asset writes, for every paper of the copy."""
    total = 0
    for paper_id in kb.paper_ids.values():
        own = sorted((c for c in kb.chunks.values() if c.paper_id == paper_id), key=lambda c: c.ordinal)
        total += sentence_vectors.write_paper(settings.home_dir, paper_id, own, embedder)["sentences"]
    return total


@pytest.fixture(scope="module")
def home(knowledge_base: KnowledgeBase, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A copy of the knowledge base with sentence vectors written by the service's own embedder."""
    settings = knowledge_base.copy_without(tmp_path_factory.mktemp("sentences") / "home")
    embedder = RagService(_settings(settings), llm=None).embedder
    assert _write(knowledge_base, settings, embedder) > 100
    return settings


def test_stored_sentences_are_looked_up_not_embedded(home: Settings, knowledge_base: KnowledgeBase) -> None:
    real = RagService(_settings(home), llm=None).embedder
    recording = Recording(real)
    service = RagService(_settings(home, answer_cache_entries=0), llm=None, embedder=recording)
    stored = {
        text
        for chunk in knowledge_base.chunks.values()
        for text in sentence_vectors.chunk_sentence_texts(chunk.text)
    }
    for question in QUESTIONS:
        for mode in ("hybrid", "baseline"):
            service.ask(question, mode=mode)
    stats = service.stats()["sentence_vectors"]
    assert stats["from_ingest"] > 50 and stats["stale_papers"] == 0
    embedded = set(recording.texts)
    assert not embedded & stored, sorted(embedded & stored)[:3]
    service.close()


def test_answers_are_identical_with_and_without_stored_vectors(home: Settings) -> None:
    with_vectors = RagService(_settings(home, answer_cache_entries=0), llm=None)
    without = RagService(_settings(home, answer_cache_entries=0), llm=None)
    without.scorer().sentence_vectors = None
    for question in QUESTIONS:
        for mode in ("hybrid", "baseline"):
            assert _answer(with_vectors.ask(question, mode=mode)) == _answer(without.ask(question, mode=mode))
    assert with_vectors.stats()["sentence_vectors"]["from_ingest"] > 0
    assert without.stats()["sentence_vectors"]["from_ingest"] == 0
    with_vectors.close()
    without.close()


def test_vectors_of_another_embedder_are_not_used(
    knowledge_base: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = knowledge_base.copy_without(tmp_path / "home")
    real = RagService(_settings(settings), llm=None).embedder
    # vectors stamped by another model, all zeros: an answer using them would differ
    other = Recording(real, identity={**real.identity, "model": "another-model"})
    monkeypatch.setattr(other, "embed_documents", lambda texts: np.zeros((len(texts), real.dim), np.float32))
    _write(knowledge_base, settings, other)
    stale = RagService(_settings(settings, answer_cache_entries=0), llm=None)
    plain = RagService(_settings(settings, answer_cache_entries=0), llm=None)
    plain.scorer().sentence_vectors = None
    assert _answer(stale.ask(MAGNETITE)) == _answer(plain.ask(MAGNETITE))
    stats = stale.stats()["sentence_vectors"]
    assert stats["from_ingest"] == 0 and stats["stale_papers"] >= 1
    # a changed splitter (a new version) makes the right model's vectors stale too
    _write(knowledge_base, settings, real)
    monkeypatch.setattr(sentence_vectors, "SENTENCE_VECTORS_VERSION", "sentences-next")
    newer = RagService(_settings(settings, answer_cache_entries=0), llm=None)
    newer.ask(ZIRCON)
    assert newer.stats()["sentence_vectors"]["from_ingest"] == 0
    for service in (stale, plain, newer):
        service.close()


def test_a_home_without_sentence_vectors_answers_as_before(home: Settings, tmp_path: Path) -> None:
    """An older home (no folder): everything is embedded at query time, nothing fails."""
    service = RagService(_settings(home, answer_cache_entries=0), llm=None)
    service.scorer().sentence_vectors = sentence_vectors.SentenceVectors(
        tmp_path, sentence_vectors.embedder_stamp(service.embedder)
    )
    answer = service.ask(MAGNETITE)
    assert answer.answer and service.stats()["sentence_vectors"]["from_ingest"] == 0
    service.close()


# --------------------------------------------------------------------------- the answer cache


def test_the_answer_cache_serves_repeats_and_a_write_invalidates_it(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    settings = knowledge_base.copy_without(tmp_path / "home")
    service = RagService(_settings(settings), llm=None)
    # a home no writer of this version touched has no version: nothing is cached
    assert kb_version(settings.home_dir) is None
    service.ask(MAGNETITE)
    service.ask(MAGNETITE)
    assert service.answers.stats()["hits"] == 0 and service.answers.stats()["not_cacheable"] == 2

    with home_lock(settings.home_dir, print, what="test ingest"):
        assert kb_version(settings.home_dir) is None  # a writer holds the lock: not cached meanwhile
        service.ask(ZIRCON)
    first_version = kb_version(settings.home_dir)
    assert first_version is not None

    fresh = service.ask(MAGNETITE)
    again = service.ask(
        "  How does magnetite crystallisation affect iron enrichment in calc-alkaline magmas? "
    )
    assert CACHED_NOTE not in fresh.notes and CACHED_NOTE in again.notes
    assert again.question.startswith("  How does")  # the question as asked this time
    assert {k: v for k, v in _answer(again).items() if k not in ("notes", "question")} == {
        k: v for k, v in _answer(fresh).items() if k not in ("notes", "question")
    }
    assert service.ask(MAGNETITE, mode="baseline").notes.count(CACHED_NOTE) == 0  # the mode is in the key
    stats = service.answers.stats()
    assert stats["hits"] == 1 and stats["entries"] == 2 and 0 < stats["hit_rate"] < 1

    with home_lock(settings.home_dir, print, what="test ingest"):  # an ingest, a restore, a purge...
        pass
    assert kb_version(settings.home_dir) not in (None, first_version)
    after = service.ask(MAGNETITE)
    assert CACHED_NOTE not in after.notes
    assert service.answers.stats()["entries"] == 1  # the old version's answers are gone
    service.close()


def test_errors_are_never_cached_and_the_cache_is_bounded(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    settings = knowledge_base.copy_without(tmp_path / "home")
    with home_lock(settings.home_dir, print, what="test ingest"):
        pass
    service = RagService(_settings(settings, answer_cache_entries=2))  # no LLM configured: still cached
    for _ in range(2):
        with pytest.raises(InputError):
            service.ask("   ")
    assert service.answers.stats()["entries"] == 0
    for question in QUESTIONS[:3]:
        service.ask(question)
    stats = service.answers.stats()
    assert stats["entries"] == 2 and stats["max_entries"] == 2
    assert CACHED_NOTE not in service.ask(QUESTIONS[0]).notes  # the oldest went first
    assert CACHED_NOTE in service.ask(QUESTIONS[2]).notes
    health = service.health()
    assert health["answer_cache"]["hits"] == 1 and "sentence_vectors" in health
    service.close()
