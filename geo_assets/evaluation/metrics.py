"""Evaluation metrics for one (question, system) sample: RAGAS 0.4.3 and our own judge-free ones.

Every metric of the seed paper's evaluation (docs/method.md#evaluation) is computed by its RAGAS
implementation; a metric that needs an LLM judge runs only when ``GEO_RAG_JUDGE_MODEL`` is set
(OpenAI-compatible endpoint from ``OPENAI_BASE_URL``/``OPENAI_API_KEY``). Without a judge it is reported
with value NaN, status ``not_computed`` and the reason, never estimated. The catalogue is
:data:`METRICS`.

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
    the reference passages, Levenshtein similarity >= 0.5 as RAGAS defines it). RAGAS compares whole
    strings, so a 1–3 sentence passage never reaches 0.5 against a 512-token chunk (they read
    0.00–0.23 that way): the contexts are given to them as their sentences, in rank order, the
    granularity of the reference passages.
    ``answer_evidence_recall``, ``reference_numbers_stated``, ``both_papers@5`` (ours): whether the
    answer itself carries the reference evidence and numbers, and whether a multi-paper question's
    papers all reach the top five (``answer_metrics``).
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

Layout: the catalogue (:data:`METRICS`, the sample and value types, thresholds and statuses) is in
``metric_specs``; our judge-free retrieval metrics in ``retrieval_metrics``; the RAGAS adapters (local
embeddings, the caching judge transport, the judge LLM) in ``ragas_adapters``; the suite that computes
every metric of a sample in ``metric_suite``. This module is where callers import all of it from.
"""

from geo_assets.evaluation.metric_specs import (
    ERROR,
    HIT_KS,
    JUDGE_MAX_TOKENS,
    MATCH_THRESHOLD,
    METRIC_BY_NAME,
    METRICS,
    NO_JUDGE_REASON,
    NOT_COMPUTED,
    OK,
    UNDEFINED,
    UNREACHABLE_LIMIT,
    EvalSample,
    MetricSpec,
    MetricValue,
)
from geo_assets.evaluation.metric_suite import MetricSuite
from geo_assets.evaluation.ragas_adapters import (
    CachingTransport,
    LocalEmbeddings,
    build_judge_llm,
    judge_unavailable_reason,
)
from geo_assets.evaluation.retrieval_metrics import (
    Recognizer,
    default_recognizer,
    entity_recall,
    first_match_rank,
    hit_at_k,
    passage_matches,
    passage_recall,
    reciprocal_rank,
)

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
    # also public before the split, imported by the runner, the report and the tests
    "ERROR",
    "HIT_KS",
    "METRIC_BY_NAME",
    "NOT_COMPUTED",
    "NO_JUDGE_REASON",
    "OK",
    "Recognizer",
    "UNDEFINED",
    "UNREACHABLE_LIMIT",
]
