"""The metric suite: every metric of :data:`METRICS` for a list of samples, in catalogue order.

Judge-free metrics run one sample after the other (fixed order and batches, so reruns agree); judge
metrics run concurrently under a semaphore. A judge failure is reported per value with its reason, never
estimated, and after :data:`UNREACHABLE_LIMIT` consecutive connection failures the judge is not asked
again for the rest of the run. Seconds spent per metric are summed in ``seconds``.
"""

import asyncio
import inspect
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import httpx

from geo_assets.evaluation.answer_metrics import (
    answer_evidence_recall,
    both_papers_found,
    reference_numbers_stated,
)
from geo_assets.evaluation.dataset import match_key
from geo_assets.evaluation.metric_specs import (
    ERROR,
    EVIDENCE_K,
    HIT_KS,
    METRICS,
    NO_JUDGE_REASON,
    NOT_COMPUTED,
    OK,
    UNANSWERABLE,
    UNDEFINED,
    UNREACHABLE_LIMIT,
    EvalSample,
    MetricValue,
)
from geo_assets.evaluation.ragas_adapters import LocalEmbeddings, _ragas_env
from geo_assets.evaluation.retrieval_metrics import Recognizer, _match_matrix, default_recognizer
from geo_rag_runtime.query.generation import NOT_FOUND
from geo_rag_runtime.text.sentences import split_sentences

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
    ``judged_questions`` (question ids; None = all) and ``judged_metrics`` (names; None = all) limit
    what the judge is asked; the rest is ``not_computed`` with ``sample_reason``/the metric setting.
    ``recognizer`` None → the default recognizer; if it cannot be imported, entity_recall is
    ``not_computed`` with the import error as reason.
    """

    embeddings: Any = None
    judge_llm: Any = None
    judge_reason: str = NO_JUDGE_REASON
    recognizer: Recognizer | None = None
    judge_concurrency: int = 4
    judged_questions: frozenset[str] | None = None
    judged_metrics: frozenset[str] | None = None
    sample_reason: str = "outside the judged sample"
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
            makers = {
                "context_precision_with_reference": lambda: ContextPrecisionWithReference(llm=llm),
                "context_precision_without_reference": lambda: ContextPrecisionWithoutReference(llm=llm),
                "context_recall": lambda: ContextRecall(llm=llm),
                "context_entity_recall": lambda: ContextEntityRecall(llm=llm),
                "faithfulness": lambda: Faithfulness(llm=llm),
                "factual_correctness": lambda: FactualCorrectness(llm=llm, mode="f1"),
                "noise_sensitivity": lambda: NoiseSensitivity(llm=llm, mode="relevant"),
            }
            unknown = set(self.judged_metrics or ()) - set(makers)
            if unknown:
                raise ValueError(f"unknown judge metric(s) {sorted(unknown)}; known: {sorted(makers)}")
            self._judge_metrics = {
                name: make()
                for name, make in makers.items()
                if self.judged_metrics is None or name in self.judged_metrics
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
        if not s.answerable:  # nothing to find: retrieval is judged by the answer's abstention only
            names = [
                *(f"hit@{k}" for k in HIT_KS),
                "mrr",
                f"evidence_recall@{EVIDENCE_K}",
                f"paper_hit@{EVIDENCE_K}",
                f"both_papers@{EVIDENCE_K}",
            ]
            out += [MetricValue(n, math.nan, UNDEFINED, UNANSWERABLE) for n in names]
        else:
            for k in HIT_KS:
                out.append(MetricValue(f"hit@{k}", 1.0 if first is not None and first <= k else 0.0))
            out.append(MetricValue("mrr", 1.0 / first if first else 0.0))
            top = matrix[:EVIDENCE_K]
            found_top = sum(1 for j in range(len(passages)) if any(row[j] for row in top))
            out.append(
                MetricValue(
                    f"evidence_recall@{EVIDENCE_K}",
                    found_top / len(passages) if passages else math.nan,
                    OK if passages else UNDEFINED,
                    "" if passages else "no reference passages",
                )
            )
            papers = set(s.reference_papers)
            out.append(
                MetricValue(
                    f"paper_hit@{EVIDENCE_K}",
                    float(any(f in papers for f in s.source_files[:EVIDENCE_K])),
                    OK if papers and s.source_files else UNDEFINED,
                    "" if papers and s.source_files else "no paper names for the chunks or the reference",
                )
            )
            out.append(both_papers_found(s.source_files, s.reference_papers))
        abstained = float(s.answer.strip().startswith(NOT_FOUND))
        if s.answerable:
            out.append(MetricValue("abstention", math.nan, UNDEFINED, "answerable question"))
            out.append(MetricValue("false_abstention", abstained))
        else:
            out.append(MetricValue("abstention", abstained))
            out.append(MetricValue("false_abstention", math.nan, UNDEFINED, "unanswerable question"))
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
        out.append(answer_evidence_recall(s.answer, passages, s.answerable))
        out.append(reference_numbers_stated(s.answer, s.reference_answer, s.answerable))
        self._timed("answer_evidence_recall/reference_numbers_stated", started)

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
        # RAGAS compares whole strings (Levenshtein similarity >= 0.5), which assumes contexts of the
        # references' size: a 1–3 sentence passage never reaches 0.5 against a 512-token chunk. So the
        # contexts go in as their sentences, in rank order.
        sentences = [t[a:b].strip() for t in contexts for a, b in split_sentences(t) if t[a:b].strip()]
        sample = SingleTurnSample(retrieved_contexts=sentences or contexts, reference_contexts=passages)
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
        if self.judge_llm is None:
            return [MetricValue(n, math.nan, NOT_COMPUTED, self.judge_reason) for n in names]
        if self.judged_questions is not None and s.question_id not in self.judged_questions:
            return [MetricValue(n, math.nan, NOT_COMPUTED, self.sample_reason) for n in names]
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
            if name not in self._judge_metrics:
                return MetricValue(
                    name, math.nan, NOT_COMPUTED, "not among the judged metrics (GEO_RAG_JUDGE_METRICS)"
                )
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
