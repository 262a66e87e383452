"""Sentence relevance to a question, shared by contextual compression and the extractive generator.

One embedding model and one bounded cache of sentence vectors serve both, and the retrievers embed
the question through the same cache (:class:`CachedQueryEmbedder`), so a question is embedded once.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from geo_rag_runtime.embeddings import Embedder

__all__ = ["EmbeddingCache", "CachedQueryEmbedder", "QuestionRelevance", "RelevanceScorer", "SentenceScore"]


class EmbeddingCache:
    """Bounded, thread-safe cache of sentence vectors: popular chunks recur across questions."""

    def __init__(self, embedder: Embedder, max_entries: int = 20_000) -> None:
        self.embedder = embedder
        self.max_entries = max_entries
        self._vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0  # texts the model embedded
        self.stored = 0  # vectors added from the ingest's stored sentence vectors

    def clear(self) -> None:
        """Forget every vector (benchmarks of the cold path)."""
        with self._lock:
            self._vectors.clear()

    def put(self, vectors: Mapping[str, np.ndarray]) -> int:
        """Add vectors computed elsewhere (the sentence vectors stored at ingest) for texts not
        cached yet; returns how many were added. They count as neither hit nor miss here."""
        added = 0
        with self._lock:
            for text, vector in vectors.items():
                if text not in self._vectors:
                    self._vectors[text] = vector
                    added += 1
                else:
                    self._vectors.move_to_end(text)
            while len(self._vectors) > self.max_entries:
                self._vectors.popitem(last=False)
            self.stored += added
        return added

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors for ``texts`` (rows in order); only unseen texts reach the model."""
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._vectors))
            self.hits += len(texts) - len(missing)
            self.misses += len(missing)
        fresh = self.embedder.embed_documents(missing) if missing else None
        with self._lock:
            if fresh is not None:
                for text, vector in zip(missing, fresh, strict=True):
                    self._vectors[text] = vector
            out = []
            for text in texts:
                vector = self._vectors.get(text)
                if vector is None:  # evicted by another thread meanwhile: rare, recompute below
                    break
                self._vectors.move_to_end(text)
                out.append(vector)
            while len(self._vectors) > self.max_entries:
                self._vectors.popitem(last=False)
        if len(out) != len(texts):
            return np.asarray(self.embedder.embed_documents(list(texts)), dtype=np.float32)
        return np.vstack(out).astype(np.float32, copy=False)


@dataclass(frozen=True)
class SentenceScore:
    """Relevance of one sentence to the question and its parts (all in [0, 1] except cosine)."""

    total: float
    cosine: float
    entities: float
    keywords: float


class QuestionRelevance:
    """Scores sentences against one question: MiniLM cosine + entity overlap + keyword overlap.

    Weights: 0.6 cosine, 0.25 entity overlap, 0.15 keyword overlap when the question names
    geochemical entities; 0.75 cosine and 0.25 keywords when it names none. The cosine carries the
    meaning; the overlaps reward sentences that speak of the very element, isotope or mineral asked
    about, which MiniLM (trained on general text) weighs too little.

    Embedding is the cost (about 25–60 sentences/s on two CPU threads), so at most
    ``max_embedded`` sentences are embedded per call: when there are more, the ones with the most
    entity/keyword overlap are embedded (ties: earlier sentences, i.e. higher-ranked passages) and
    the rest are scored by their overlaps alone (cosine 0).
    """

    def __init__(self, question: str, scorer: RelevanceScorer) -> None:
        self.question = question
        self.scorer = scorer
        self.vector = scorer.cache.embed([question])[0]
        self.entities = scorer.entity_names(question)
        self.keywords = set(scorer.keywords(question))

    def _overlaps(self, sentence: str) -> tuple[float, float]:
        keyword = (
            len(self.keywords & set(self.scorer.keywords(sentence))) / len(self.keywords)
            if self.keywords
            else 0.0
        )
        entity = (
            len(self.entities & self.scorer.entity_names(sentence)) / len(self.entities)
            if self.entities
            else 0.0
        )
        return entity, keyword

    def _total(self, cosine: float, entity: float, keyword: float) -> float:
        if self.entities:
            return 0.6 * cosine + 0.25 * entity + 0.15 * keyword
        return 0.75 * cosine + 0.25 * keyword

    def score(self, sentences: Sequence[str], max_embedded: int | None = None) -> list[SentenceScore]:
        if not sentences:
            return []
        limit = self.scorer.max_embedded if max_embedded is None else max_embedded
        overlaps = [self._overlaps(sentence) for sentence in sentences]
        order = sorted(range(len(sentences)), key=lambda i: (-self._total(0.0, *overlaps[i]), i))
        embedded = sorted(order[:limit]) if limit and len(sentences) > limit else list(range(len(sentences)))
        cosines = np.zeros(len(sentences), dtype=np.float32)
        vectors = self.scorer.cache.embed([sentences[i] for i in embedded])
        cosines[embedded] = vectors @ self.vector
        return [
            SentenceScore(
                total=self._total(float(cosine), entity, keyword),
                cosine=float(cosine),
                entities=entity,
                keywords=keyword,
            )
            for cosine, (entity, keyword) in zip(cosines, overlaps, strict=True)
        ]


class CachedQueryEmbedder(Embedder):
    """The embedder with ``embed_query`` served from the relevance cache.

    Retrievers embed the question, and the generator embeds it again to score sentences; with this
    adapter it is embedded once, and a strategy can embed all its rephrasings in one batch first.
    """

    def __init__(self, embedder: Embedder, cache: EmbeddingCache) -> None:
        self._embedder = embedder
        self._cache = cache

    @property
    def dim(self) -> int:
        return self._embedder.dim

    @property
    def model_name(self) -> str:
        return self._embedder.model_name

    @property
    def provider(self) -> str:
        return self._embedder.provider

    @property
    def identity(self) -> dict[str, Any]:
        return self._embedder.identity

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        return self._embedder.embed_documents(texts)

    def embed_query(self, text: str) -> np.ndarray:
        vector: np.ndarray = self._cache.embed([text])[0]
        return vector


class RelevanceScorer:
    """Shared by contextual compression and the extractive generator (one model, one cache)."""

    def __init__(
        self,
        embedder: Embedder,
        recognize: Callable[[str], Sequence[Any]] | None = None,
        keywords: Callable[[str], Sequence[str]] | None = None,
        *,
        cache_entries: int = 20_000,
        max_embedded: int = 64,
        sentence_vectors: Any | None = None,
    ) -> None:
        """``sentence_vectors``: a :class:`~geo_rag_runtime.query.sentence_vectors.SentenceVectors`
        (the vectors stored at ingest), or None to embed every sentence at query time."""
        self.cache = EmbeddingCache(embedder, cache_entries)
        self.sentence_vectors = sentence_vectors
        self.max_embedded = max_embedded
        self.query_embedder = CachedQueryEmbedder(embedder, self.cache)
        self._recognize = recognize
        if keywords is None:
            from geo_rag_runtime.text.keyword_terms import normalize_tokens

            keywords = normalize_tokens
        self._keywords = keywords
        # each sentence's entities and keywords once: the same passages' sentences recur within a
        # question (scoring, then the ranker's features) and across questions; bounded like the vectors
        self._entities = functools.lru_cache(maxsize=cache_entries)(self._recognize_names)
        self._keyword_tuple = functools.lru_cache(maxsize=cache_entries)(self._keyword_terms)

    def _recognize_names(self, text: str) -> frozenset[str]:
        assert self._recognize is not None
        return frozenset(str(entity.name).casefold() for entity in self._recognize(text))

    def _keyword_terms(self, text: str) -> tuple[str, ...]:
        return tuple(self._keywords(text))

    def entity_names(self, text: str) -> set[str]:
        """Canonical names of the vocabulary entities in ``text`` (empty without a recognizer)."""
        if self._recognize is None:
            return set()
        return set(self._entities(text))

    def keywords(self, text: str) -> list[str]:
        return list(self._keyword_tuple(text))

    def prefill(self, refs: Iterable[tuple[str | None, str | None]]) -> int:
        """Put the stored sentence vectors of these (paper id, chunk id) passages into the cache, so
        scoring their sentences embeds nothing; returns how many were added (0 without a store)."""
        if self.sentence_vectors is None:
            return 0
        return self.cache.put(self.sentence_vectors.lookup(refs))

    def for_question(self, question: str) -> QuestionRelevance:
        return QuestionRelevance(question, self)
