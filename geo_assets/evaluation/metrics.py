"""Evaluation metrics for one (question, system) sample: RAGAS 0.4.3 and our own judge-free ones.

Every metric of PAPER.md's evaluation section is computed by its RAGAS implementation; a metric that
needs an LLM judge runs only when ``GEO_RAG_JUDGE_MODEL`` is set (OpenAI-compatible endpoint from
``OPENAI_BASE_URL``/``OPENAI_API_KEY``). Without a judge it is reported with value NaN, status
``not_computed`` and the reason, never estimated. The catalogue is :data:`METRICS`.

Judge-free, always computed
    ``hit@1``, ``hit@3``, ``hit@5``, ``mrr``, ``passage_recall`` (ours): the retrieved chunks, in
    rank order, against the question's verbatim reference passages. A chunk *matches* a passage when
    ``rapidfuzz.fuzz.partial_ratio(match_key(passage), match_key(chunk)) >= 85`` (``match_key`` from
    ``eval_dataset``: NFKC, PDF glyph fixes, lower case, whitespace and dashes removed; partial_ratio
    scores the best-aligned window of the longer text, so a passage found inside a 512-token chunk
    scores ~100, and hyphenation or OCR slips still pass). hit@k = 1 when one of the first k chunks
    matches any reference passage; mrr = 1/rank of the first matching chunk (0 when none matches);
    passage_recall = reference passages matched by some retrieved chunk / reference passages.
    Graph facts have no rank among the chunks and are not used here.
    ``entity_recall`` (ours, the judge-free Context Entities Recall): |E(contexts) ∩ E(reference)| /
    |E(reference)|, E = canonical names the geochemical recognizer finds; E(reference) is taken from
    the question's reference entities and its reference answer, E(contexts) from every retrieved
    text (chunks and graph facts). A reference entity the recognizer does not know at all (about a
    third of the shipped set: "Fenner trend", "A–F–M diagram", "λT") is not dropped: it counts as a
    literal, found when its ``match_key`` occurs in the ``match_key`` of a retrieved text.
    RAGAS ``NonLLMContextPrecisionWithReference`` and ``NonLLMContextRecall`` (retrieved contexts vs
    the reference passages, Levenshtein similarity >= 0.5 as RAGAS defines it). Note: RAGAS compares
    whole strings, so a 1–3 sentence passage never reaches 0.5 against a 512-token chunk; these stay
    near 0 for chunk retrieval, which is why our partial-match metrics exist beside them.
    RAGAS ``SemanticSimilarity`` with the packaged MiniLM (the project's windowed embedder, so long
    answers are not truncated); ``NonLLMStringSimilarity`` (Levenshtein, Hamming, Jaro);
    ``BleuScore``; ``RougeScore`` (ROUGE-L F1).
    ``bleu`` is RAGAS' BleuScore as the paper used it. RAGAS splits both texts at ". " and calls
    ``sacrebleu.corpus_bleu(response_sentences, [[s] for s in reference_sentences])``, which zips the
    hypotheses with one-item reference streams: only the response's first sentence is scored (against
    every reference sentence as an alternative reference). ``bleu_sentence`` is therefore reported
    as well: ``sacrebleu.sentence_bleu(response, [reference]) / 100`` on the whole texts.

LLM-judged (RAGAS ``ragas.metrics.collections``, instructor JSON mode through ``openai``)
    ``context_precision_with_reference``, ``context_precision_without_reference`` (judged against the
    response), ``context_recall``, ``context_entity_recall``, ``noise_sensitivity`` (relevant mode;
    lower is better), ``faithfulness``, ``factual_correctness`` (F1).
    Requests go at temperature 0 with a seed and an explicit ``max_tokens`` (``JUDGE_MAX_TOKENS``),
    with the client timeout and retries of the settings. :class:`CachingTransport` stores every
    successful judge response on disk keyed by the sha256 of the request (URL + canonical JSON body:
    model, messages, temperature, max_tokens, ...), so a rerun with the same inputs sends no request
    and gives the same numbers.
"""

import asyncio
import functools
import hashlib
import inspect
import json
import math
import os
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from geo_assets.evaluation.dataset import match_key

__all__ = [
    "CachingTransport",
    "EvalSample",
    "JUDGE_MAX_TOKENS",
    "LocalEmbeddings",
    "METRICS",
    "MATCH_THRESHOLD",
    "MetricSpec",
    "MetricSuite",
    "MetricValue",
    "build_judge_llm",
    "default_recognizer",
    "entity_recall",
    "first_match_rank",
    "hit_at_k",
    "judge_unavailable_reason",
    "passage_matches",
    "passage_recall",
    "reciprocal_rank",
]

MATCH_THRESHOLD = 85.0  # rapidfuzz partial_ratio (0–100) for "chunk contains the reference passage"
HIT_KS = (1, 3, 5)
JUDGE_MAX_TOKENS = 2048
NO_JUDGE_REASON = "no judge configured: set GEO_RAG_JUDGE_MODEL"
UNREACHABLE_LIMIT = 3  # consecutive connection failures/timeouts after which the judge is not asked again

# statuses of a metric value
OK = "ok"
NOT_COMPUTED = "not_computed"  # the metric cannot run in this configuration (e.g. no judge)
UNDEFINED = "undefined"  # the metric is undefined for this sample (e.g. nothing retrieved)
ERROR = "error"  # the metric (or the answer it needs) failed; the reason says how


@dataclass(frozen=True)
class MetricSpec:
    """One reported metric: where it comes from and how to read it."""

    name: str
    group: str  # "retrieval" | "response"
    implementation: str
    needs_judge: bool = False
    higher_is_better: bool = True


METRICS: tuple[MetricSpec, ...] = (
    # retrieval
    *(MetricSpec(f"hit@{k}", "retrieval", "georag: partial_ratio >= 85 on rank <= k") for k in HIT_KS),
    MetricSpec("mrr", "retrieval", "georag: 1 / rank of the first matching chunk"),
    MetricSpec("passage_recall", "retrieval", "georag: reference passages matched / reference passages"),
    MetricSpec("entity_recall", "retrieval", "georag: recognizer entities, |ctx ∩ ref| / |ref|"),
    MetricSpec(
        "non_llm_context_precision_with_reference", "retrieval", "ragas NonLLMContextPrecisionWithReference"
    ),
    MetricSpec("non_llm_context_recall", "retrieval", "ragas NonLLMContextRecall"),
    MetricSpec("context_precision_with_reference", "retrieval", "ragas ContextPrecisionWithReference", True),
    MetricSpec(
        "context_precision_without_reference", "retrieval", "ragas ContextPrecisionWithoutReference", True
    ),
    MetricSpec("context_recall", "retrieval", "ragas ContextRecall", True),
    MetricSpec("context_entity_recall", "retrieval", "ragas ContextEntityRecall", True),
    # response
    MetricSpec("semantic_similarity", "response", "ragas SemanticSimilarity (local MiniLM)"),
    MetricSpec("string_similarity_levenshtein", "response", "ragas NonLLMStringSimilarity (Levenshtein)"),
    MetricSpec("string_similarity_hamming", "response", "ragas NonLLMStringSimilarity (Hamming)"),
    MetricSpec("string_similarity_jaro", "response", "ragas NonLLMStringSimilarity (Jaro)"),
    MetricSpec("bleu", "response", "ragas BleuScore"),
    MetricSpec("bleu_sentence", "response", "sacrebleu sentence_bleu / 100"),
    MetricSpec("rouge_l", "response", "ragas RougeScore (rougeL, fmeasure)"),
    MetricSpec("faithfulness", "response", "ragas Faithfulness", True),
    MetricSpec("factual_correctness", "response", "ragas FactualCorrectness (f1)", True),
    MetricSpec("noise_sensitivity", "response", "ragas NoiseSensitivity (relevant)", True, False),
)
METRIC_BY_NAME = {m.name: m for m in METRICS}


@dataclass(frozen=True)
class EvalSample:
    """What one system returned for one question, with the question's references."""

    question_id: str
    query_type: str
    system: str
    question: str
    answer: str
    chunk_texts: tuple[str, ...]  # retrieved chunks in rank order
    fact_texts: tuple[str, ...]  # retrieved graph facts (hybrid only)
    reference_answer: str
    reference_passages: tuple[str, ...]
    reference_entities: tuple[str, ...]
    error: str | None = None  # the answer failed: every metric of the sample reports it

    @property
    def contexts(self) -> list[str]:
        """Everything retrieved, as RAGAS sees it: the chunks, then the graph facts."""
        return [t for t in (*self.chunk_texts, *self.fact_texts) if t and t.strip()]


@dataclass(frozen=True)
class MetricValue:
    metric: str
    value: float
    status: str = OK
    reason: str = ""


# --------------------------------------------------------------------------- our retrieval metrics


def passage_matches(passage: str, chunk: str, threshold: float = MATCH_THRESHOLD) -> bool:
    """True when the chunk contains the passage up to extraction noise (see the module docstring)."""
    from rapidfuzz import fuzz

    a, b = match_key(passage), match_key(chunk)
    if not a or not b:
        return False
    return fuzz.partial_ratio(a, b) >= threshold


def _match_matrix(passages: Sequence[str], chunks: Sequence[str]) -> list[list[bool]]:
    """matrix[rank][passage] for the chunks in rank order."""
    return [[passage_matches(p, c) for p in passages] for c in chunks]


def first_match_rank(passages: Sequence[str], chunks: Sequence[str]) -> int | None:
    """1-based rank of the first chunk that matches any reference passage, or None."""
    for rank, row in enumerate(_match_matrix(passages, chunks), start=1):
        if any(row):
            return rank
    return None


def hit_at_k(passages: Sequence[str], chunks: Sequence[str], k: int) -> float:
    rank = first_match_rank(passages, chunks[:k])
    return 1.0 if rank is not None else 0.0


def reciprocal_rank(passages: Sequence[str], chunks: Sequence[str]) -> float:
    rank = first_match_rank(passages, chunks)
    return 1.0 / rank if rank else 0.0


def passage_recall(passages: Sequence[str], chunks: Sequence[str]) -> float:
    if not passages:
        raise ValueError("passage_recall needs at least one reference passage")
    matrix = _match_matrix(passages, chunks)
    found = sum(1 for j in range(len(passages)) if any(row[j] for row in matrix))
    return found / len(passages)


def entity_recall(context_entities: Iterable[str], reference_entities: Iterable[str]) -> float | None:
    """|ctx ∩ ref| / |ref| over canonical names; None when the reference has no entity."""
    ref = set(reference_entities)
    if not ref:
        return None
    return len(ref & set(context_entities)) / len(ref)


Recognizer = Callable[[str], set[str]]


def default_recognizer() -> Recognizer:
    """Canonical entity names found by the project's geochemical recognizer."""
    from geo_rag_runtime.vocab import recognize

    def names(text: str) -> set[str]:
        return {e.name for e in recognize(text)} if text and text.strip() else set()

    return names


# --------------------------------------------------------------------------- embeddings


def _ragas_env() -> None:
    """RAGAS telemetry off and no hub downloads; must run before ragas is imported."""
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class _LocalEmbeddingsMixin:
    """Vectors of the packaged MiniLM (windowed, never truncated), memoized per text."""

    def __init__(self, embedder: Any | None = None) -> None:
        super().__init__()
        if embedder is None:
            from geo_rag_runtime.embeddings import SentenceTransformerEmbedder

            embedder = SentenceTransformerEmbedder()
        self.embedder = embedder
        self._vectors: dict[str, list[float]] = {}

    def prefill(self, texts: Iterable[str]) -> None:
        """Embed many texts in batches (sorted, so a rerun sees the same batches)."""
        todo = sorted({t for t in texts if t and t.strip() and t not in self._vectors})
        if todo:
            matrix = np.asarray(self.embedder.embed_documents(todo), dtype=np.float64)
            for text, row in zip(todo, matrix, strict=True):
                self._vectors[text] = row.tolist()

    def embed_text(self, text: str, **kwargs: Any) -> list[float]:
        if text not in self._vectors:
            self.prefill([text])
        return self._vectors[text]

    async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
        return self.embed_text(text)


@functools.lru_cache(maxsize=1)
def _local_embeddings_class() -> type:
    """Built on first use: ragas is imported lazily (slow import, and env flags must come first)."""
    _ragas_env()
    from ragas.embeddings.base import BaseRagasEmbedding

    return type("LocalEmbeddings", (_LocalEmbeddingsMixin, BaseRagasEmbedding), {})


def LocalEmbeddings(embedder: Any | None = None) -> Any:  # noqa: N802 - a factory named like the class
    """A RAGAS ``BaseRagasEmbedding`` over our MiniLM embedder (default: the packaged weights)."""
    return _local_embeddings_class()(embedder)


# --------------------------------------------------------------------------- judge


class CachingTransport(httpx.AsyncBaseTransport):
    """Answers a request from disk when the same request was answered before (HTTP 200 only).

    The key is the sha256 of the method, the URL and the canonical JSON body (keys sorted), so the
    same prompt to the same model with the same parameters hits; anything else goes to ``inner``.
    """

    def __init__(self, cache_dir: str | Path, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(request: httpx.Request, body: bytes) -> str:
        try:
            canonical = json.dumps(
                json.loads(body), sort_keys=True, ensure_ascii=False, separators=(",", ":")
            )
        except (json.JSONDecodeError, UnicodeDecodeError):
            canonical = body.decode("latin-1")
        material = f"{request.method} {request.url}\n{canonical}"
        return hashlib.sha256(material.encode("utf-8")).hexdigest()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        key = self.key(request, body)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.is_file():
            self.hits += 1
            return httpx.Response(
                200, headers={"content-type": "application/json"}, content=path.read_bytes(), request=request
            )
        self.misses += 1
        response = await self.inner.handle_async_request(request)
        if response.status_code != 200:
            return response
        content = await response.aread()
        await response.aclose()
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(tmp, path)
        return httpx.Response(
            200, headers={"content-type": "application/json"}, content=content, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


def judge_unavailable_reason(settings: Any) -> str | None:
    """None when a judge is configured, else why not (the ``reason`` of every judge metric)."""
    if not settings.judge_model:
        return NO_JUDGE_REASON
    if not (settings.openai_base_url or settings.openai_api_key):
        return "judge model set but no endpoint: set OPENAI_BASE_URL or OPENAI_API_KEY"
    return None


def build_judge_llm(
    settings: Any, cache_dir: str | Path, *, transport: httpx.AsyncBaseTransport | None = None
) -> tuple[Any, CachingTransport]:
    """The RAGAS judge (instructor over ``openai.AsyncOpenAI``) and its caching transport."""
    _ragas_env()
    import openai
    from ragas.llms import llm_factory

    caching = CachingTransport(cache_dir, inner=transport)
    client = openai.AsyncOpenAI(
        api_key=settings.openai_api_key or "not-needed",
        base_url=settings.openai_base_url,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_retries,
        http_client=httpx.AsyncClient(transport=caching, timeout=settings.llm_timeout_s),
    )
    llm = llm_factory(
        settings.judge_model,
        client=client,
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
        seed=settings.llm_seed,
    )
    return llm, caching


# --------------------------------------------------------------------------- the suite


def _finite(value: Any) -> float | None:
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _unreachable(exc: BaseException) -> bool:
    """True for a connection failure or timeout anywhere in the exception's chain."""
    import openai

    return any(isinstance(e, openai.APIConnectionError | httpx.TransportError) for e in _chain(exc))


def _chain(exc: BaseException) -> list[BaseException]:
    out: list[BaseException] = []
    seen: BaseException | None = exc
    while seen is not None and len(out) < 10:
        out.append(seen)
        seen = seen.__cause__ or seen.__context__
    return out


def _short(exc: BaseException) -> str:
    """One line: the exception and, for a wrapped API failure (instructor retries), the API error."""
    import openai

    api = next((e for e in _chain(exc) if isinstance(e, openai.APIError)), None)
    text = f"{type(exc).__name__}: " + (
        f"{type(api).__name__}: {api}" if api is not None and api is not exc else str(exc)
    )
    return text.strip().replace("\n", " ")[:300]


@dataclass
class MetricSuite:
    """Computes every metric of :data:`METRICS` for a list of samples.

    ``judge_llm`` None → the judge metrics are ``not_computed`` with ``judge_reason``.
    ``recognizer`` None → the default recognizer; if it cannot be imported, entity_recall is
    ``not_computed`` with the import error as reason.
    """

    embeddings: Any = None
    judge_llm: Any = None
    judge_reason: str = NO_JUDGE_REASON
    recognizer: Recognizer | None = None
    judge_concurrency: int = 4
    seconds: dict[str, float] = field(default_factory=dict)  # summed time per metric

    def __post_init__(self) -> None:
        _ragas_env()
        from ragas.metrics._context_precision import NonLLMContextPrecisionWithReference
        from ragas.metrics._context_recall import NonLLMContextRecall
        from ragas.metrics.collections import (
            BleuScore,
            DistanceMeasure,
            NonLLMStringSimilarity,
            RougeScore,
            SemanticSimilarity,
        )

        if self.embeddings is None:
            self.embeddings = LocalEmbeddings()
        self._recognizer_error = ""
        self._entity_memo: dict[str, frozenset[str]] = {}
        self._key_memo: dict[str, str] = {}
        if self.recognizer is None:
            try:
                self.recognizer = default_recognizer()
            except ImportError as exc:
                self._recognizer_error = f"entity recognizer unavailable: {exc}"
        self._nonllm_precision = NonLLMContextPrecisionWithReference()
        self._nonllm_recall = NonLLMContextRecall()
        self._semantic = SemanticSimilarity(embeddings=self.embeddings)
        self._strings = {
            "string_similarity_levenshtein": NonLLMStringSimilarity(
                distance_measure=DistanceMeasure.LEVENSHTEIN
            ),
            "string_similarity_hamming": NonLLMStringSimilarity(distance_measure=DistanceMeasure.HAMMING),
            "string_similarity_jaro": NonLLMStringSimilarity(distance_measure=DistanceMeasure.JARO),
        }
        self._bleu = BleuScore()
        self._rouge = RougeScore(rouge_type="rougeL", mode="fmeasure")
        self._judge_metrics: dict[str, Any] = {}
        self._unreachable = 0  # consecutive connection failures / timeouts of the judge
        self._judge_down = ""  # set after UNREACHABLE_LIMIT of them: stop asking
        if self.judge_llm is not None:
            from ragas.metrics.collections import (
                ContextEntityRecall,
                ContextPrecisionWithoutReference,
                ContextPrecisionWithReference,
                ContextRecall,
                FactualCorrectness,
                Faithfulness,
                NoiseSensitivity,
            )

            llm = self.judge_llm
            self._judge_metrics = {
                "context_precision_with_reference": ContextPrecisionWithReference(llm=llm),
                "context_precision_without_reference": ContextPrecisionWithoutReference(llm=llm),
                "context_recall": ContextRecall(llm=llm),
                "context_entity_recall": ContextEntityRecall(llm=llm),
                "faithfulness": Faithfulness(llm=llm),
                "factual_correctness": FactualCorrectness(llm=llm, mode="f1"),
                "noise_sensitivity": NoiseSensitivity(llm=llm, mode="relevant"),
            }

    # ----------------------------------------------------------------- public

    def score(self, samples: Sequence[EvalSample]) -> list[list[MetricValue]]:
        """One list of :class:`MetricValue` (in :data:`METRICS` order) per sample."""
        live = [s for s in samples if s.error is None]
        if hasattr(self.embeddings, "prefill"):  # one batched pass instead of one call per text
            started = time.perf_counter()
            self.embeddings.prefill([s.answer for s in live] + [s.reference_answer for s in live])
            self._timed("semantic_similarity", started)
        return asyncio.run(self._score_all(samples))

    # ----------------------------------------------------------------- internals

    def _timed(self, name: str, started: float) -> None:
        self.seconds[name] = self.seconds.get(name, 0.0) + (time.perf_counter() - started)

    async def _score_all(self, samples: Sequence[EvalSample]) -> list[list[MetricValue]]:
        semaphore = asyncio.Semaphore(max(1, self.judge_concurrency))
        local = [await self._local_metrics(s) for s in samples]
        judged = await asyncio.gather(*(self._judge(s, semaphore) for s in samples))
        out = []
        for own, theirs in zip(local, judged, strict=True):
            values = {v.metric: v for v in (*own, *theirs)}
            out.append([values[m.name] for m in METRICS])
        return out

    async def _local_metrics(self, s: EvalSample) -> list[MetricValue]:
        if s.error is not None:
            return [
                MetricValue(m.name, math.nan, ERROR, f"answer failed: {s.error}")
                for m in METRICS
                if not m.needs_judge
            ]
        out: list[MetricValue] = []
        chunks = [c for c in s.chunk_texts if c and c.strip()]
        passages = list(s.reference_passages)

        started = time.perf_counter()
        matrix = _match_matrix(passages, chunks)
        first = next((rank for rank, row in enumerate(matrix, start=1) if any(row)), None)
        for k in HIT_KS:
            out.append(MetricValue(f"hit@{k}", 1.0 if first is not None and first <= k else 0.0))
        out.append(MetricValue("mrr", 1.0 / first if first else 0.0))
        found = sum(1 for j in range(len(passages)) if any(row[j] for row in matrix))
        out.append(
            MetricValue(
                "passage_recall",
                found / len(passages) if passages else math.nan,
                OK if passages else UNDEFINED,
                "" if passages else "no reference passages",
            )
        )
        self._timed("hit@k/mrr/passage_recall", started)

        started = time.perf_counter()
        out.append(self._entity_recall(s))
        self._timed("entity_recall", started)

        contexts = s.contexts
        started = time.perf_counter()
        out.extend(await self._nonllm_context(contexts, passages))
        self._timed("non_llm_context_precision/recall", started)

        started = time.perf_counter()
        if s.answer.strip():
            value = (await self._semantic.ascore(reference=s.reference_answer, response=s.answer)).value
            out.append(MetricValue("semantic_similarity", float(value)))
        else:
            out.append(MetricValue("semantic_similarity", math.nan, UNDEFINED, "empty answer"))
        self._timed("semantic_similarity", started)

        for name, metric in self._strings.items():
            started = time.perf_counter()
            value = (await metric.ascore(reference=s.reference_answer, response=s.answer)).value
            out.append(MetricValue(name, float(value)))
            self._timed(name, started)

        started = time.perf_counter()
        out.append(
            MetricValue(
                "bleu",
                float((await self._bleu.ascore(reference=s.reference_answer, response=s.answer)).value),
            )
        )
        self._timed("bleu", started)
        started = time.perf_counter()
        from sacrebleu import sentence_bleu

        out.append(
            MetricValue("bleu_sentence", float(sentence_bleu(s.answer, [s.reference_answer]).score) / 100.0)
        )
        self._timed("bleu_sentence", started)
        started = time.perf_counter()
        out.append(
            MetricValue(
                "rouge_l",
                float((await self._rouge.ascore(reference=s.reference_answer, response=s.answer)).value),
            )
        )
        self._timed("rouge_l", started)
        return out

    def _entities(self, text: str) -> set[str]:
        """Recognized names, memoized: the same chunk comes back for many questions and both systems."""
        if text not in self._entity_memo:
            assert self.recognizer is not None
            self._entity_memo[text] = frozenset(self.recognizer(text))
        return set(self._entity_memo[text])

    def _entity_recall(self, s: EvalSample) -> MetricValue:
        if self.recognizer is None:
            return MetricValue("entity_recall", math.nan, NOT_COMPUTED, self._recognizer_error)
        reference, literals = set(), set()
        for name in s.reference_entities:
            recognized = self._entities(name)
            if recognized:
                reference |= recognized
            elif match_key(name):  # outside the vocabulary: kept as a literal, never dropped
                literals.add(match_key(name))
        reference |= self._entities(s.reference_answer)
        if not reference and not literals:
            return MetricValue("entity_recall", math.nan, UNDEFINED, "no entity in the reference")
        found: set[str] = set()
        for text in s.contexts:
            found |= self._entities(text)
        keys = [self._key(text) for text in s.contexts]
        found_literals = {lit for lit in literals if any(lit in key for key in keys)}
        value = (len(reference & found) + len(found_literals)) / (len(reference) + len(literals))
        return MetricValue("entity_recall", value)

    def _key(self, text: str) -> str:
        if text not in self._key_memo:
            self._key_memo[text] = match_key(text)
        return self._key_memo[text]

    async def _nonllm_context(self, contexts: list[str], passages: list[str]) -> list[MetricValue]:
        from ragas.dataset_schema import SingleTurnSample

        if not passages:
            return [
                MetricValue(
                    "non_llm_context_precision_with_reference", math.nan, UNDEFINED, "no reference passages"
                ),
                MetricValue("non_llm_context_recall", math.nan, UNDEFINED, "no reference passages"),
            ]
        if not contexts:
            return [
                MetricValue(
                    "non_llm_context_precision_with_reference", math.nan, UNDEFINED, "nothing retrieved"
                ),
                MetricValue("non_llm_context_recall", 0.0, OK, "nothing retrieved"),
            ]
        sample = SingleTurnSample(retrieved_contexts=contexts, reference_contexts=passages)
        precision = await self._nonllm_precision.single_turn_ascore(sample)
        recall = await self._nonllm_recall.single_turn_ascore(sample)
        return [
            MetricValue("non_llm_context_precision_with_reference", float(precision)),
            MetricValue("non_llm_context_recall", float(recall)),
        ]

    async def _judge(self, s: EvalSample, semaphore: asyncio.Semaphore) -> list[MetricValue]:
        names = [m.name for m in METRICS if m.needs_judge]
        if s.error is not None:
            return [MetricValue(n, math.nan, ERROR, f"answer failed: {s.error}") for n in names]
        if not self._judge_metrics:
            return [MetricValue(n, math.nan, NOT_COMPUTED, self.judge_reason) for n in names]
        contexts = s.contexts
        kwargs = {
            "user_input": s.question,
            "response": s.answer,
            "reference": s.reference_answer,
            "retrieved_contexts": contexts,
        }
        needs_contexts = {
            "context_precision_with_reference",
            "context_precision_without_reference",
            "context_recall",
            "context_entity_recall",
            "faithfulness",
            "noise_sensitivity",
        }
        needs_answer = {
            "context_precision_without_reference",
            "faithfulness",
            "factual_correctness",
            "noise_sensitivity",
        }

        async def one(name: str) -> MetricValue:
            if name in needs_contexts and not contexts:
                return MetricValue(name, math.nan, UNDEFINED, "nothing retrieved")
            if name in needs_answer and not s.answer.strip():
                return MetricValue(name, math.nan, UNDEFINED, "empty answer")
            metric = self._judge_metrics[name]
            accepted = inspect.signature(metric.ascore).parameters
            async with semaphore:
                if self._judge_down:
                    return MetricValue(
                        name, math.nan, ERROR, f"judge unreachable, not asked: {self._judge_down}"
                    )
                started = time.perf_counter()
                try:
                    result = await metric.ascore(**{k: v for k, v in kwargs.items() if k in accepted})
                except Exception as exc:  # a judge failure is reported per value, never estimated
                    self._timed(name, started)
                    if _unreachable(exc):
                        self._unreachable += 1
                        if self._unreachable >= UNREACHABLE_LIMIT:
                            self._judge_down = _short(exc)
                    return MetricValue(name, math.nan, ERROR, _short(exc))
                self._unreachable = 0
                self._timed(name, started)
            value = _finite(result.value)
            if value is None:
                return MetricValue(name, math.nan, UNDEFINED, f"ragas returned {result.value!r}")
            return MetricValue(name, value)

        return list(await asyncio.gather(*(one(n) for n in names)))
