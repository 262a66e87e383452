"""The metric catalogue: what is reported (:data:`METRICS`), for what (:class:`EvalSample`), as what.

Also the parameters the numbers depend on (match threshold, hit@k cut-offs, the judge's token limit),
which the runner records in every run's identity, and the statuses a value can have. Definitions of
the metrics themselves: the docstring of ``geo_assets.evaluation.metrics``.
"""

from dataclasses import dataclass

MATCH_THRESHOLD = 85.0  # rapidfuzz partial_ratio (0–100) for "chunk contains the reference passage"
HIT_KS = (1, 3, 5)
EVIDENCE_K = 5  # evidence recall and paper hit look at the chunks a 5-passage answer is written from
UNANSWERABLE = "unanswerable question: no reference evidence"
JUDGE_MAX_TOKENS = 2048
NO_JUDGE_REASON = "no judge configured: set GEO_RAG_JUDGE_MODEL"
# the local 1.5B judge on 2 CPU cores: a judged value over five passages took ~190 s (an 8-question × 2
# metric sample, both systems: 52 min on the busy machine), so by default it scores one question per type
# with the two metrics that check grounding and retrieval — about an hour
LOCAL_JUDGE_SAMPLE_PER_TYPE = 1
LOCAL_JUDGE_METRICS = ("faithfulness", "context_recall")
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
    MetricSpec(
        f"evidence_recall@{EVIDENCE_K}",
        "retrieval",
        f"georag: reference passages matched by the top {EVIDENCE_K} chunks / reference passages",
    ),
    MetricSpec(
        f"paper_hit@{EVIDENCE_K}", "retrieval", f"georag: a top-{EVIDENCE_K} chunk is from a reference paper"
    ),
    MetricSpec("passage_recall", "retrieval", "georag: reference passages matched / reference passages"),
    MetricSpec(
        f"both_papers@{EVIDENCE_K}",
        "retrieval",
        f"georag: every reference paper of a multi-paper question is among the top {EVIDENCE_K} chunks' papers",
    ),
    MetricSpec("entity_recall", "retrieval", "georag: recognizer entities, |ctx ∩ ref| / |ref|"),
    MetricSpec(
        "non_llm_context_precision_with_reference",
        "retrieval",
        "ragas NonLLMContextPrecisionWithReference over the sentences of the contexts",
    ),
    MetricSpec(
        "non_llm_context_recall", "retrieval", "ragas NonLLMContextRecall over the sentences of the contexts"
    ),
    MetricSpec("context_precision_with_reference", "retrieval", "ragas ContextPrecisionWithReference", True),
    MetricSpec(
        "context_precision_without_reference", "retrieval", "ragas ContextPrecisionWithoutReference", True
    ),
    MetricSpec("context_recall", "retrieval", "ragas ContextRecall", True),
    MetricSpec("context_entity_recall", "retrieval", "ragas ContextEntityRecall", True),
    # response
    MetricSpec(
        "answer_evidence_recall",
        "response",
        "georag: reference passages the answer quotes or is attributed to / reference passages",
    ),
    MetricSpec(
        "reference_numbers_stated", "response", "georag: numbers of the reference answer stated in the answer"
    ),
    MetricSpec("semantic_similarity", "response", "ragas SemanticSimilarity (local MiniLM)"),
    MetricSpec("string_similarity_levenshtein", "response", "ragas NonLLMStringSimilarity (Levenshtein)"),
    MetricSpec("string_similarity_hamming", "response", "ragas NonLLMStringSimilarity (Hamming)"),
    MetricSpec("string_similarity_jaro", "response", "ragas NonLLMStringSimilarity (Jaro)"),
    MetricSpec("bleu", "response", "ragas BleuScore"),
    MetricSpec("bleu_sentence", "response", "sacrebleu sentence_bleu / 100"),
    MetricSpec("rouge_l", "response", "ragas RougeScore (rougeL, fmeasure)"),
    MetricSpec("abstention", "response", "georag: unanswerable question answered 'Not found' (1) or not (0)"),
    MetricSpec(
        "false_abstention",
        "response",
        "georag: answerable question answered 'Not found' (1) or not (0)",
        higher_is_better=False,
    ),
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
    source_files: tuple[str | None, ...] = ()  # paper file of each retrieved chunk, in rank order
    reference_papers: tuple[str, ...] = ()
    answerable: bool = True

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
