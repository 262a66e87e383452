"""Evaluation metrics on hand-made samples whose values are worked out by hand here.

Real RAGAS metric classes, real MiniLM weights, the real recognizer; the judge is an OpenAI-compatible
endpoint behind ``httpx.MockTransport`` that answers every RAGAS prompt with a real-shaped
chat-completion whose content satisfies the JSON schema instructor sends.
"""

import json
import math
import re
from collections import Counter

import httpx
import numpy as np
import pytest

from geo_assets.evaluation import metrics as em
from geo_assets.evaluation.dataset import DEFAULT_DATASET
from geo_assets.evaluation.metrics import EvalSample, MetricSuite

PASSAGE = "zircon crystallised over about 100 kyr before the eruption of the Bishop Tuff"
REFERENCE = "Zircon crystallised over about 100 kyr before the eruption of the Bishop Tuff."
CHUNKS = (
    "Tholeiitic basalts of the Iceland rift show iron enrichment during differentiation.",
    "Our CA-ID-TIMS data show that zircon crystal-\nlised over about 100 kyr before the erup-\n"
    "tion of the Bishop Tuff, so a weighted mean overestimates the eruption age.",
    "Mantle plume material beneath the Mongol-Okhotsk belt is traced with Sr isotopes.",
)


def sample(**overrides: object) -> EvalSample:
    values: dict = {
        "question_id": "q1",
        "query_type": "explicit_fact",
        "system": "HybridRAG",
        "question": "How long before the eruption of the Bishop Tuff did zircon crystallise?",
        "answer": "Zircon crystallised over about 100 kyr before the eruption.",
        "chunk_texts": CHUNKS,
        "fact_texts": ("zircon -[DATED_BY]-> U–Pb",),
        "reference_answer": REFERENCE,
        "reference_passages": (PASSAGE,),
        "reference_entities": ("zircon", "Bishop Tuff"),
        "source_files": ("Iceland.pdf", "Keller2018.pdf", "Zhu2024.pdf"),
        "reference_papers": ("Keller2018.pdf",),
    }
    values.update(overrides)
    return EvalSample(**values)


@pytest.fixture(scope="module")
def suite() -> MetricSuite:
    return MetricSuite()


def by_name(values: list[em.MetricValue]) -> dict[str, em.MetricValue]:
    return {v.metric: v for v in values}


# --------------------------------------------------------------------------- our retrieval metrics


def test_passage_match_rule_tolerates_extraction_noise_only() -> None:
    assert em.passage_matches(PASSAGE, CHUNKS[1])  # hyphenation at line breaks, case
    assert not em.passage_matches(PASSAGE, CHUNKS[0])
    assert not em.passage_matches("a weighted mean underestimates the age of the Fish Canyon Tuff", CHUNKS[1])
    assert not em.passage_matches("", CHUNKS[1])


def test_hit_at_k_and_mrr_by_hand() -> None:
    # the only matching chunk is at rank 2
    assert em.first_match_rank([PASSAGE], CHUNKS) == 2
    assert em.hit_at_k([PASSAGE], CHUNKS, 1) == 0.0
    assert em.hit_at_k([PASSAGE], CHUNKS, 3) == 1.0
    assert em.hit_at_k([PASSAGE], CHUNKS, 5) == 1.0
    assert em.reciprocal_rank([PASSAGE], CHUNKS) == 0.5
    assert em.reciprocal_rank([PASSAGE], CHUNKS[:1]) == 0.0
    # two reference passages, one retrieved -> 1/2
    other = "Mantle plume material beneath the Mongol-Okhotsk belt is traced with Sr isotopes"
    assert (
        em.passage_recall([PASSAGE, "a passage that no chunk holds at all, about lunar basalt"], CHUNKS)
        == 0.5
    )
    assert em.passage_recall([PASSAGE, other], CHUNKS) == 1.0
    # rank of the first match for two passages: chunk 2 holds PASSAGE, chunk 3 the other
    assert em.first_match_rank([other], CHUNKS) == 3


def test_entity_recall_by_hand() -> None:
    assert em.entity_recall({"zircon", "tuff"}, {"zircon", "tuff", "U–Pb", "eruption"}) == 0.5
    assert em.entity_recall(set(), {"zircon"}) == 0.0
    assert em.entity_recall({"zircon"}, set()) is None


def test_entity_recall_with_the_recognizer(suite: MetricSuite) -> None:
    # reference: zircon, Bishop Tuff (-> tuff), and from the answer: crystallization, 100 kyr, eruption
    # contexts of rank 1 only (basalt, tholeiitic, Iceland, ...): none of the five
    only_first = by_name(suite.score([sample(chunk_texts=CHUNKS[:1], fact_texts=())])[0])
    assert only_first["entity_recall"].value == 0.0
    reference = set()
    for text in ("zircon", "Bishop Tuff", REFERENCE):
        reference |= suite.recognizer(text)
    assert {"zircon", "tuff", "eruption"} <= reference
    found = set()
    for text in CHUNKS:
        found |= suite.recognizer(text)
    expected = len(reference & found) / len(reference)
    values = by_name(suite.score([sample()])[0])
    assert values["entity_recall"].value == pytest.approx(expected)
    assert values["entity_recall"].value == 1.0  # chunk 2 holds every reference entity


def test_entity_recall_keeps_entities_outside_the_vocabulary(suite: MetricSuite) -> None:
    assert not suite.recognizer("weighted mean")  # not a vocabulary term: counted as a literal
    reference = suite.recognizer("zircon") | suite.recognizer(REFERENCE)
    one = sample(reference_entities=("zircon", "weighted mean"))
    # chunk 2 says "a weighted mean overestimates ...": every entity found
    assert by_name(suite.score([one])[0])["entity_recall"].value == 1.0
    # without chunk 2 neither the literal nor the recognized ones are found
    found = suite.recognizer(CHUNKS[0]) | suite.recognizer(CHUNKS[2])
    expected = len(reference & found) / (len(reference) + 1)
    value = by_name(
        suite.score(
            [
                sample(
                    reference_entities=("zircon", "weighted mean"),
                    chunk_texts=(CHUNKS[0], CHUNKS[2]),
                    fact_texts=(),
                )
            ]
        )[0]
    )
    assert value["entity_recall"].value == pytest.approx(expected)


def test_retrieval_metrics_through_the_suite(suite: MetricSuite) -> None:
    values = by_name(suite.score([sample()])[0])
    assert (values["hit@1"].value, values["hit@3"].value, values["hit@5"].value) == (0.0, 1.0, 1.0)
    assert values["mrr"].value == 0.5
    assert values["passage_recall"].value == 1.0
    assert values["evidence_recall@5"].value == 1.0 and values["paper_hit@5"].value == 1.0
    assert values["false_abstention"].value == 0.0 and values["abstention"].status == "undefined"
    # the passage at rank 6: outside the evidence window, still found by passage recall over all chunks
    deep = by_name(suite.score([sample(chunk_texts=(CHUNKS[0],) * 5 + (CHUNKS[1],), source_files=())])[0])
    assert deep["evidence_recall@5"].value == 0.0 and deep["passage_recall"].value == 1.0
    assert deep["paper_hit@5"].status == "undefined"  # no paper names to compare
    # RAGAS non-LLM context metrics compare whole strings (Levenshtein >= 0.5), so they are given the
    # contexts' sentences: the one-sentence chunk with the passage plus a long clause is still not
    # "similar" to it, so precision and recall are 0 here ...
    assert values["non_llm_context_recall"].value == 0.0
    assert values["non_llm_context_precision_with_reference"].value == pytest.approx(0.0, abs=1e-6)
    # ... but a passage that is one sentence of a long chunk is found (whole chunks: 0 and 0)
    chunk = f"Tholeiitic basalts show iron enrichment. {REFERENCE} Mantle plumes are traced with Sr isotopes."
    inside = by_name(suite.score([sample(chunk_texts=(chunk,), fact_texts=())])[0])
    assert inside["non_llm_context_recall"].value == 1.0
    assert inside["non_llm_context_precision_with_reference"].value == pytest.approx(0.5, abs=1e-6)
    # a retrieved text as long as the passage does count: rank 2 of 2 -> precision 1/2, recall 1
    short = by_name(
        suite.score([sample(chunk_texts=("basalt from Iceland", PASSAGE + "."), fact_texts=())])[0]
    )
    assert short["non_llm_context_recall"].value == 1.0
    assert short["non_llm_context_precision_with_reference"].value == pytest.approx(0.5, abs=1e-6)


# --------------------------------------------------------------------------- response metrics


def test_string_similarities_by_hand(suite: MetricSuite) -> None:
    ref, resp = "zircon crystallised", "zircon crystallized"  # 19 characters each, one substitution
    values = by_name(suite.score([sample(reference_answer=ref, answer=resp)])[0])
    assert values["string_similarity_levenshtein"].value == pytest.approx(1 - 1 / 19)
    assert values["string_similarity_hamming"].value == pytest.approx(1 - 1 / 19)
    # Jaro with m = 18 matching characters and no transpositions: (18/19 + 18/19 + 18/18) / 3
    assert values["string_similarity_jaro"].value == pytest.approx((18 / 19 + 18 / 19 + 1) / 3)


def test_bleu_and_rouge_by_hand(suite: MetricSuite) -> None:
    same = by_name(suite.score([sample(answer=REFERENCE)])[0])
    assert same["bleu"].value == pytest.approx(1.0)
    assert same["bleu_sentence"].value == pytest.approx(1.0)
    assert same["rouge_l"].value == pytest.approx(1.0)
    # ROUGE-L: LCS("the zircon age is young", "the zircon is young") = 4 tokens; P = 4/4, R = 4/5
    values = by_name(
        suite.score([sample(reference_answer="the zircon age is young", answer="the zircon is young")])[0]
    )
    precision, recall = 1.0, 0.8
    assert values["rouge_l"].value == pytest.approx(2 * precision * recall / (precision + recall))
    unrelated = by_name(suite.score([sample(answer="Basalt lavas of Iceland are tholeiitic.")])[0])
    assert unrelated["bleu"].value < 0.05  # only the final "." is shared (sacrebleu smooths)
    assert unrelated["bleu_sentence"].value < 0.05


def test_ragas_bleu_scores_only_the_first_response_sentence(suite: MetricSuite) -> None:
    reference = "Zircon ages are young. The tuff erupted at 28 Ma"
    answer = "Zircon ages are young. Completely unrelated words follow here"
    values = by_name(suite.score([sample(reference_answer=reference, answer=answer)])[0])
    assert values["bleu"].value == pytest.approx(1.0)  # the documented RAGAS behaviour
    assert values["bleu_sentence"].value < 0.6  # whole-text BLEU sees the second sentence


def test_semantic_similarity_with_minilm(suite: MetricSuite) -> None:
    paraphrase = "About 100 kyr before the Bishop Tuff erupted, zircon crystallised."
    unrelated = "Sr isotopes trace mantle plume material beneath the Mongol-Okhotsk belt."
    values = [
        by_name(v)["semantic_similarity"].value
        for v in suite.score([sample(answer=REFERENCE), sample(answer=paraphrase), sample(answer=unrelated)])
    ]
    assert values[0] == pytest.approx(1.0, abs=1e-5)
    model = suite.embeddings.embedder.model
    vectors = model.encode([REFERENCE, paraphrase, unrelated], normalize_embeddings=True)
    assert values[1] == pytest.approx(float(np.dot(vectors[0], vectors[1])), abs=1e-5)
    assert values[2] == pytest.approx(float(np.dot(vectors[0], vectors[2])), abs=1e-5)
    assert values[1] > 0.8 > 0.3 > values[2]


def test_empty_answer_and_nothing_retrieved(suite: MetricSuite) -> None:
    values = by_name(suite.score([sample(answer="", chunk_texts=(), fact_texts=())])[0])
    assert values["semantic_similarity"].status == "undefined"
    assert values["non_llm_context_precision_with_reference"].status == "undefined"
    assert values["non_llm_context_recall"].value == 0.0
    assert values["hit@5"].value == 0.0 and values["mrr"].value == 0.0
    assert values["rouge_l"].value == 0.0


def test_failed_answer_reports_error_everywhere(suite: MetricSuite) -> None:
    values = suite.score([sample(answer="", error="StoreError: no vectors")])[0]
    assert [v.metric for v in values] == [m.name for m in em.METRICS]
    assert all(v.status == "error" and math.isnan(v.value) and "no vectors" in v.reason for v in values)


# --------------------------------------------------------------------------- judge metrics


def test_judge_metrics_not_computed_without_judge(suite: MetricSuite) -> None:
    values = by_name(suite.score([sample()])[0])
    for spec in em.METRICS:
        value = values[spec.name]
        if spec.needs_judge:
            assert value.status == "not_computed" and math.isnan(value.value)
            assert value.reason == "no judge configured: set GEO_RAG_JUDGE_MODEL"
        elif spec.name == "abstention":  # only for unanswerable questions
            assert value.status == "undefined" and value.reason == "answerable question"
        elif spec.name == "both_papers@5":  # only for questions resting on two or more papers
            assert value.status == "undefined" and "one paper" in value.reason
        elif spec.name == "reference_numbers_stated":  # the reference states "100 kyr": one number
            assert value.status == "ok" and value.value == 1.0
        else:
            assert value.status == "ok", spec.name


def test_judge_unavailable_reason(tmp_path) -> None:
    from geo_rag_runtime.settings import Settings

    assert em.judge_unavailable_reason(Settings(judge_model=None, local_llm=False)) == em.NO_JUDGE_REASON
    # no local server runs in this (empty) home: the reason says how to get one
    reason = em.judge_unavailable_reason(Settings(judge_model=None, local_llm=True, home=tmp_path))
    assert reason is not None and "geo-rag llm start" in reason
    reason = em.judge_unavailable_reason(Settings(judge_model="m", openai_base_url=None, openai_api_key=None))
    assert "OPENAI_BASE_URL" in reason
    assert (
        em.judge_unavailable_reason(Settings(judge_model="m", openai_base_url="http://judge.test/v1")) is None
    )
    # an empty metric list switches the judge off, even a configured one
    off = Settings(judge_model="m", openai_base_url="http://judge.test/v1", judge_metrics=[])
    assert em.judge_unavailable_reason(off) == "no judged metric asked for (GEO_RAG_JUDGE_METRICS=[])"


def _instance(schema: dict, defs: dict) -> object:
    """A minimal instance of a JSON schema (one item per array, verdict 1, strings from the domain)."""
    if "$ref" in schema:
        return _instance(defs[schema["$ref"].split("/")[-1]], defs)
    if "anyOf" in schema:
        return _instance(schema["anyOf"][0], defs)
    kind = schema.get("type")
    if kind == "object":
        return {k: _instance(v, defs) for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return [_instance(schema.get("items", {}), defs)]
    if kind == "integer":
        return 1
    if kind == "number":
        return 1.0
    if kind == "boolean":
        return True
    return "Zircon crystallised about 100 kyr before the eruption."


class FakeJudge:
    """An OpenAI-compatible chat endpoint: answers the schema that instructor puts in the system prompt."""

    def __init__(self) -> None:
        self.requests: list[dict] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        self.requests.append(body)
        system = body["messages"][0]["content"]
        schema = json.loads(re.search(r"json_schema:\s*(\{.*\})\s*Make sure", system, re.S).group(1))
        content = json.dumps(_instance(schema, schema.get("$defs", {})))
        return httpx.Response(
            200,
            json={
                "id": f"chatcmpl-{len(self.requests)}",
                "object": "chat.completion",
                "created": 1700000000,
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
                "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
            },
        )


def test_judge_metrics_through_our_http_client_and_disk_cache(tmp_path, suite: MetricSuite) -> None:
    from geo_rag_runtime.settings import Settings

    settings = Settings(judge_model="judge-model", openai_base_url="http://judge.test/v1", llm_seed=7)
    judge = FakeJudge()
    samples = [sample(), sample(question_id="q2", answer="Zircon grew for 100 kyr.")]

    llm, caching = em.build_judge_llm(settings, tmp_path / "cache", transport=httpx.MockTransport(judge))
    first = MetricSuite(embeddings=suite.embeddings, recognizer=suite.recognizer, judge_llm=llm).score(
        samples
    )
    sent = len(judge.requests)
    # identical prompts within the run (the same reference statements, say) are sent once
    assert sent > 0 and caching.misses == sent
    asked = caching.misses + caching.hits
    # every request: temperature 0, explicit max_tokens, the seed, JSON mode
    for body in judge.requests:
        assert body["temperature"] == 0.0 and body["max_tokens"] == em.JUDGE_MAX_TOKENS
        assert body["seed"] == 7 and body["model"] == "judge-model"
        assert "max_completion_tokens" not in body
    judged = [by_name(v) for v in first]
    for values in judged:
        for spec in em.METRICS:
            if spec.needs_judge:
                assert values[spec.name].status == "ok", (spec.name, values[spec.name].reason)
        # the fake judge supports every statement: faithful, correct, no noise
        assert values["faithfulness"].value == 1.0
        assert values["noise_sensitivity"].value == 0.0

    # a second run (new client, same cache folder) sends nothing and gives the same numbers
    llm2, caching2 = em.build_judge_llm(settings, tmp_path / "cache", transport=httpx.MockTransport(judge))
    second = MetricSuite(embeddings=suite.embeddings, recognizer=suite.recognizer, judge_llm=llm2).score(
        samples
    )
    assert len(judge.requests) == sent
    assert caching2.misses == 0 and caching2.hits == asked
    assert [[(v.metric, v.value, v.status) for v in row] for row in second] == [
        [(v.metric, v.value, v.status) for v in row] for row in first
    ]


def test_judge_failure_is_reported_not_estimated(tmp_path, suite: MetricSuite) -> None:
    from geo_rag_runtime.settings import Settings

    settings = Settings(judge_model="judge-model", openai_base_url="http://judge.test/v1", llm_retries=0)

    def broken(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            400, json={"error": {"message": "model not found", "type": "invalid_request_error"}}
        )

    llm, caching = em.build_judge_llm(settings, tmp_path / "cache", transport=httpx.MockTransport(broken))
    values = by_name(
        MetricSuite(embeddings=suite.embeddings, recognizer=suite.recognizer, judge_llm=llm).score(
            [sample()]
        )[0]
    )
    for spec in em.METRICS:
        if spec.needs_judge:
            assert values[spec.name].status == "error" and math.isnan(values[spec.name].value)
            assert "model not found" in values[spec.name].reason
    assert not list((tmp_path / "cache").rglob("*.json"))  # failures are never cached


def test_unreachable_judge_is_not_asked_again(tmp_path, suite: MetricSuite) -> None:
    from geo_rag_runtime.settings import Settings

    settings = Settings(judge_model="judge-model", openai_base_url="http://judge.test/v1", llm_retries=0)
    attempts: list[str] = []

    def down(request: httpx.Request) -> httpx.Response:
        attempts.append(str(request.url))
        raise httpx.ConnectError("connection refused", request=request)

    llm, _ = em.build_judge_llm(settings, tmp_path / "cache", transport=httpx.MockTransport(down))
    judged = MetricSuite(
        embeddings=suite.embeddings, recognizer=suite.recognizer, judge_llm=llm, judge_concurrency=1
    )
    rows = judged.score([sample(question_id=f"q{i}") for i in range(5)])
    judge_values = [v for row in rows for v in row if em.METRIC_BY_NAME[v.metric].needs_judge]
    assert all(v.status == "error" and math.isnan(v.value) for v in judge_values)
    assert len(attempts) <= em.UNREACHABLE_LIMIT * 3  # not one request per metric and sample (35)
    assert sum("not asked" in v.reason for v in judge_values) >= len(judge_values) - em.UNREACHABLE_LIMIT


def test_the_judge_scores_only_its_sample_and_metrics(tmp_path, suite: MetricSuite) -> None:
    """A question outside the judged sample and a metric outside the judged metrics are not asked."""
    from geo_rag_runtime.settings import Settings

    settings = Settings(judge_model="judge-model", openai_base_url="http://judge.test/v1")
    judge = FakeJudge()
    llm, _ = em.build_judge_llm(settings, tmp_path / "cache", transport=httpx.MockTransport(judge))
    scored = MetricSuite(
        embeddings=suite.embeddings,
        recognizer=suite.recognizer,
        judge_llm=llm,
        judged_questions=frozenset({"q1"}),
        judged_metrics=frozenset({"faithfulness"}),
        sample_reason="outside the judged sample (1 per query type)",
    ).score([sample(), sample(question_id="q2")])
    inside, outside = (by_name(v) for v in scored)
    assert inside["faithfulness"].status == "ok" and inside["faithfulness"].value == 1.0
    assert inside["context_recall"].status == "not_computed"
    assert "GEO_RAG_JUDGE_METRICS" in inside["context_recall"].reason
    for spec in em.METRICS:
        if spec.needs_judge:
            assert outside[spec.name].status == "not_computed"
            assert outside[spec.name].reason == "outside the judged sample (1 per query type)"
        elif spec.name not in ("abstention", "both_papers@5"):  # both: undefined for this sample
            assert outside[spec.name].status == "ok", spec.name
    # only faithfulness prompts were sent: its two steps (statements, then verdicts) for one answer
    assert 1 <= len(judge.requests) <= 2
    with pytest.raises(ValueError, match="unknown judge metric"):
        MetricSuite(embeddings=suite.embeddings, judge_llm=llm, judged_metrics=frozenset({"bogus"}))


def test_the_judged_sample_is_stratified_and_stable() -> None:
    from geo_assets.evaluation.dataset import load_eval_dataset
    from geo_assets.evaluation.judging import JudgePlan, judge_plan, stratified_sample
    from geo_assets.evaluation.ragas_adapters import JudgeTarget
    from geo_rag_runtime.settings import Settings

    questions = load_eval_dataset(DEFAULT_DATASET)
    picked = stratified_sample(questions, 3)
    assert picked is not None and len(picked) == 12
    by_type = {q.id: q.query_type for q in questions}
    assert sorted(Counter(by_type[i] for i in picked).values()) == [3, 3, 3, 3]
    assert stratified_sample(list(reversed(questions)), 3) == picked  # order of the file does not matter
    assert stratified_sample(questions, 0) is None
    local = JudgeTarget("qwen", "http://127.0.0.1:8765/v1", None, True)
    remote = JudgeTarget("gpt", "https://api.example/v1", "key", False)
    default_local = judge_plan(Settings(), questions, local)
    assert default_local.questions == stratified_sample(questions, 1) and len(default_local.questions) == 4
    assert default_local.metrics == frozenset({"faithfulness", "context_recall"})
    assert judge_plan(Settings(), questions, remote) == JudgePlan(0, None, None)
    chosen = judge_plan(Settings(judge_sample_per_type=1, judge_metrics=["faithfulness"]), questions, remote)
    assert chosen.questions is not None and len(chosen.questions) == 4
    assert chosen.describe() == "1 per query type; faithfulness"


def test_unanswerable_questions_are_scored_by_abstention(suite: MetricSuite) -> None:
    """No evidence exists: retrieval metrics are undefined, "Not found" is the right answer."""
    common = {"reference_passages": (), "reference_papers": (), "answerable": False}
    abstained, answered = (
        by_name(v)
        for v in suite.score(
            [sample(answer="Not found in the corpus.", **common), sample(question_id="q2", **common)]
        )
    )
    assert abstained["abstention"].value == 1.0 and answered["abstention"].value == 0.0
    for name in ("hit@5", "mrr", "evidence_recall@5", "paper_hit@5", "passage_recall"):
        assert abstained[name].status == "undefined", name
    assert abstained["false_abstention"].status == "undefined"
    wrongly = by_name(suite.score([sample(answer="Not found in the corpus.")])[0])
    assert wrongly["false_abstention"].value == 1.0


def test_paired_bootstrap_interval_and_abstention_summary() -> None:
    import pandas as pd

    from geo_assets.evaluation.comparison import abstention_summary, paired_differences

    rows = []
    for i in range(40):  # hybrid finds the evidence on 30 of 40 questions, baseline on 20 of them
        for system, value in (("HybridRAG", float(i < 30)), ("BaselineRAG", float(i < 20))):
            rows.append(("explicit_fact", f"q{i}", system, "hit@5", value, "ok"))
    rows.append(("explicit_fact", "q99", "HybridRAG", "hit@5", 1.0, "ok"))  # unpaired: left out
    for i, (h, b) in enumerate([(1.0, 0.0), (1.0, 1.0), (0.0, 0.0)]):
        rows.append(("implicit_reasoning", f"u{i}", "HybridRAG", "abstention", h, "ok"))
        rows.append(("implicit_reasoning", f"u{i}", "BaselineRAG", "abstention", b, "ok"))
    rows.append(("implicit_reasoning", "a1", "HybridRAG", "false_abstention", 1.0, "ok"))
    rows.append(("implicit_reasoning", "a1", "BaselineRAG", "false_abstention", 0.0, "ok"))
    frame = pd.DataFrame(rows, columns=["query_type", "question_id", "system", "metric", "value", "status"])
    diffs = paired_differences(frame)
    hit = diffs[(diffs["metric"] == "hit@5") & (diffs["query_type"] == "explicit_fact")].iloc[0]
    assert hit["n"] == 40 and hit["difference"] == pytest.approx(0.25)
    assert 0.0 < hit["ci_low"] < 0.25 < hit["ci_high"] < 0.5  # ten discordant pairs of 40: clearly > 0
    assert paired_differences(frame).equals(diffs)  # fixed seed: the same interval every run
    summary = abstention_summary(frame).set_index("system")
    assert summary.loc["HybridRAG", "abstention_recall"] == pytest.approx(2 / 3)
    assert summary.loc["HybridRAG", "abstention_precision"] == pytest.approx(2 / 3)
    assert summary.loc["BaselineRAG", "abstention_precision"] == 1.0
    assert summary.loc["HybridRAG", "false_abstention"] == 1.0
