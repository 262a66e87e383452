"""The evaluation runner, its tables, plots and history, and ``geo-rag evaluate`` through Dagster.

The fast tests inject an answer function (real ``Answer`` objects over real paper text). The slow
end-to-end tests build a small knowledge base (the real chunks of one sample paper, embedded with
MiniLM into Chroma and the BM25 index) and run the real ``RagService`` in both modes.
"""

import json
import math
from pathlib import Path

import dagster as dg
import pandas as pd
import pytest

from geo_assets.evaluation import metrics as em
from geo_assets.evaluation import report as eval_report
from geo_assets.evaluation.answering import context_texts, split_contexts
from geo_assets.evaluation.dataset import dataset_version, load_eval_dataset
from geo_assets.evaluation.runner import contexts_of, run_evaluation
from geo_rag_runtime.models import (
    Answer,
    Context,
    FactContext,
    FactSource,
    PassageContext,
    ValueContext,
    ValueSource,
)
from geo_rag_runtime.settings import Settings

KELLER = "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf"
QUESTIONS = [
    {
        "id": "kel-ef-1",
        "question": "Over what timescales can magmatic zircons crystallise?",
        "query_type": "explicit_fact",
        "reference_answer": "Crystallisation timescales may span 200-700 kyr for magmatic zircons.",
        "reference_passages": [
            {
                "source_file": KELLER,
                "text": "crystallisation timescales may span 200-700 kyr for magmatic zircons",
            }
        ],
        "reference_entities": ["zircon", "crystallisation"],
        "papers": [KELLER],
    },
    {
        "id": "kel-ir-1",
        "question": "Why can the MSWD not show whether zircon ages record instantaneous crystallisation?",
        "query_type": "implicit_reasoning",
        "reference_answer": "The average MSWD at a dispersion of 2 sigma is only 1.26, statistically "
        "indistinguishable from the near-unity MSWD of an instantaneous population until about 700 "
        "zircon analyses have been characterised.",
        "reference_passages": [
            {
                "source_file": KELLER,
                "text": "the average MSWD at ∆t = 2 σ is only 1.26, statistically indistinguishable from "
                "the near-unity MSWD of a dataset with ∆t = 0.01 σ",
            }
        ],
        "reference_entities": ["zircon", "MSWD"],
        "papers": [KELLER],
    },
    {
        "id": "kel-rr-1",
        "question": "Which zircon eruption age interpretation do the authors recommend, and why?",
        "query_type": "interpretable_rationale",
        "reference_answer": "A likelihood-based Bayesian estimate: it performs competitively under all "
        "scenarios and is the least likely to underestimate the reported uncertainty.",
        "reference_passages": [
            {
                "source_file": KELLER,
                "text": "A likelihood-based Bayesian estimate appears to perform competitively under all "
                "scenarios, and is the least likely to underestimate the reported uncertainty.",
            }
        ],
        "reference_entities": ["zircon", "eruption"],
        "papers": [KELLER],
    },
    {
        "id": "kel-hr-1",
        "question": "Which age interpretations suit the Fish Canyon Tuff and the Bishop Tuff?",
        "query_type": "hidden_rationale",
        "reference_answer": "A youngest-zircon interpretation for the Fish Canyon Tuff and a weighted-mean "
        "interpretation for the Bishop Tuff.",
        "reference_passages": [
            {
                "source_file": KELLER,
                "text": "results are suggestive of a youngest-zircon interpretation for the Fish Canyon "
                "Tuff and a weighted-mean interpretation for the Bishop Tuff",
            }
        ],
        "reference_entities": ["zircon", "tuff"],
        "papers": [KELLER],
    },
]


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("evalset") / "keller_qa.jsonl"
    path.write_text("\n".join(json.dumps(q) for q in QUESTIONS) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def suite() -> em.MetricSuite:
    return em.MetricSuite()


# --------------------------------------------------------------------------- fast: injected answers

CHUNK_WITH = (
    "Considering the results of Figure 2, a likelihood-based Bayesian estimate appears to perform "
    "competitively under all scenarios, and is the least likely to under-\nestimate the reported uncertainty."
)
CHUNK_WITHOUT = (
    "Zircon saturation in magmas is empirically well understood and distinct from whole rock "
    "crystallisation to the solidus."
)


def fake_answer(question: str, mode: str) -> Answer:
    """Hybrid finds the passage at rank 1 for every question; baseline at rank 2 (and for one, never)."""
    if "Fish Canyon" in question and mode == "baseline":
        raise RuntimeError("baseline crashed on this question")
    chunks = [CHUNK_WITH, CHUNK_WITHOUT] if mode == "hybrid" else [CHUNK_WITHOUT, CHUNK_WITH]
    vector = [
        PassageContext(marker=f"V{i}", text=t, chunk_id=f"c{i}", source_file=KELLER)
        for i, t in enumerate(chunks)
    ]
    graph = [FactContext(marker="G0", text="zircon -[DATED_BY]-> U–Pb")] if mode == "hybrid" else []
    return Answer(
        question=question,
        category="interpretable_rationale",
        strategy="test",
        answer="A likelihood-based Bayesian estimate performs competitively under all scenarios.",
        generator="extractive",
        contexts=[*vector, *graph],
        timings_ms={"total": 1.0},
        mode=mode,  # type: ignore[arg-type]
    )


def test_contexts_of_keeps_rank_order() -> None:
    passages = [PassageContext(marker=f"V{i}", text=f"chunk {i}", chunk_id=f"c{i}") for i in range(3)]
    source = FactSource(chunk_id="c0", sentence="Zircon holds U.")
    graph: list[Context] = [
        ValueContext(marker="G0", text="U = 100 ppm", provenance=[ValueSource(chunk_id="c1", page_start=2)]),
        FactContext(marker="G1", text="Zircon CONTAINS U", provenance=[source]),
    ]
    answer = Answer(
        question="q",
        category="explicit_fact",
        strategy="s",
        answer="a",
        generator="g",
        contexts=[*passages, *graph],
    )
    chunks, facts = contexts_of(answer)
    assert [c["text"] for c in chunks] == ["chunk 0", "chunk 1", "chunk 2"]
    assert [c["chunk_id"] for c in chunks] == ["c0", "c1", "c2"]
    # facts and reported values, in marker order, as the metrics read them (a fact with its sentence)
    assert context_texts(chunks, facts)[1] == ["U = 100 ppm", "Zircon CONTAINS U (source: Zircon holds U.)"]
    # the same from the stored JSON of the answer
    assert split_contexts(json.loads(answer.model_dump_json())["contexts"]) == (chunks, facts)


def test_split_contexts_reads_the_first_shape_in_rank_order() -> None:
    """Answers stored before ``schema_version`` answer-2 kept contexts as numbered dictionaries."""
    items = {str(i): {"text": f"chunk {i}", "chunk_id": f"c{i}"} for i in (10, 2, 0, 1)}
    stored = {"VectorRAG_Context": items, "GraphRAG_Context": {"0": {"text": "fact", "provenance": []}}}
    chunks, facts = split_contexts(stored)
    assert [c["text"] for c in chunks] == ["chunk 0", "chunk 1", "chunk 2", "chunk 10"]
    assert [f["text"] for f in facts] == ["fact"]


def test_aggregate_by_hand() -> None:
    rows = [
        ("q1", "explicit_fact", "HybridRAG", "mrr", 1.0, "ok", ""),
        ("q2", "explicit_fact", "HybridRAG", "mrr", 0.5, "ok", ""),
        ("q3", "hidden_rationale", "HybridRAG", "mrr", 0.0, "ok", ""),
        ("q4", "hidden_rationale", "HybridRAG", "mrr", math.nan, "error", "answer failed: x"),
        ("q1", "explicit_fact", "HybridRAG", "faithfulness", math.nan, "not_computed", "no judge"),
    ]
    df = pd.DataFrame(
        rows, columns=["question_id", "query_type", "system", "metric", "value", "status", "reason"]
    )
    table = eval_report.aggregate(df).set_index(["query_type", "system", "metric"])
    assert table.loc[("explicit_fact", "HybridRAG", "mrr"), "mean"] == 0.75
    assert table.loc[("explicit_fact", "HybridRAG", "mrr"), "n"] == 2
    hidden = table.loc[("hidden_rationale", "HybridRAG", "mrr")]
    assert (hidden["mean"], hidden["n"], hidden["n_total"]) == (0.0, 1, 2)
    assert "1 error: answer failed: x" in hidden["reason"]
    overall = table.loc[("all", "HybridRAG", "mrr")]
    assert overall["mean"] == pytest.approx(1.5 / 3) and overall["n"] == 3
    judge = table.loc[("explicit_fact", "HybridRAG", "faithfulness")]
    assert math.isnan(judge["mean"]) and judge["status"] == "not_computed" and judge["n"] == 0


@pytest.mark.slow
def test_run_with_injected_answers(
    tmp_path: Path, dataset: Path, suite: em.MetricSuite, geo_home: Path
) -> None:
    questions = load_eval_dataset(dataset)
    version = dataset_version(dataset)
    out = tmp_path / "out"
    run = run_evaluation(questions, dataset_version=version, out_dir=out, answer_fn=fake_answer, suite=suite)

    pq = run.per_question
    assert len(pq) == len(questions) * 2 * len(em.METRICS)
    assert set(pq.columns) >= {
        "question_id",
        "query_type",
        "system",
        "metric",
        "value",
        "status",
        "reason",
        "run_id",
        "identity_hash",
        "code_version",
        "dataset_version",
        "config_hash",
        "judge",
    }
    assert set(pq["dataset_version"]) == {version} and set(pq["judge"]) == {"none"}

    def value(qid: str, system: str, metric: str) -> tuple[float, str]:
        row = pq[(pq.question_id == qid) & (pq.system == system) & (pq.metric == metric)].iloc[0]
        return row["value"], row["status"]

    # only kel-rr-1's passage is in the fake chunks: hybrid has it at rank 1, baseline at rank 2
    assert value("kel-rr-1", "HybridRAG", "mrr") == (1.0, "ok")
    assert value("kel-rr-1", "BaselineRAG", "mrr") == (0.5, "ok")
    assert value("kel-rr-1", "BaselineRAG", "hit@1") == (0.0, "ok")
    assert value("kel-ef-1", "HybridRAG", "hit@5") == (0.0, "ok")
    # the crashed baseline answer: every metric says so
    crashed = pq[(pq.question_id == "kel-hr-1") & (pq.system == "BaselineRAG")]
    assert set(crashed["status"]) == {"error"} and crashed["reason"].str.contains("baseline crashed").all()
    assert pq[pq.metric == "faithfulness"]["status"].eq("not_computed").sum() == 7

    per_type = run.per_type.set_index(["query_type", "system", "metric"])
    assert per_type.loc[("all", "HybridRAG", "mrr"), "mean"] == 0.25  # 1 of 4 questions at rank 1
    assert per_type.loc[("all", "BaselineRAG", "mrr"), "n"] == 3
    assert "| mrr |" in run.summary_markdown and "no judge configured" in run.summary_markdown

    folder = run.folder
    for name in (
        "per_question.parquet",
        "per_question.csv",
        "per_type.parquet",
        "per_type.csv",
        "answers.jsonl",
        "run.json",
        "summary.md",
    ):
        assert (folder / name).is_file(), name
    assert set(run.plots) == {"retrieval", "response"} and all(
        p.stat().st_size > 10_000 for p in run.plots.values()
    )
    import pyarrow.parquet as papq

    stored = json.loads(papq.read_schema(folder / "per_question.parquet").metadata[b"georag.identity"])
    assert stored["identity_hash"] == run.identity["identity_hash"]
    info = json.loads((folder / "run.json").read_text())
    assert info["answers_failed"] == 1 and info["metric_ms_per_sample"]

    # same inputs again: same numbers, a new folder, two rows of history with one identity
    again = run_evaluation(
        questions, dataset_version=version, out_dir=out, answer_fn=fake_answer, suite=suite
    )
    assert again.folder != run.folder and run.folder.is_dir()
    pd.testing.assert_frame_equal(
        again.per_question[["question_id", "system", "metric", "value", "status", "reason"]],
        run.per_question[["question_id", "system", "metric", "value", "status", "reason"]],
    )
    history = pd.read_csv(out / "runs.csv")
    assert list(history["run_id"]) == [run.run_id, again.run_id]
    assert history["identity_hash"].nunique() == 1

    # a changed input (here: the dataset) is a different identity
    changed = run_evaluation(
        questions[:2], dataset_version="other", out_dir=out, answer_fn=fake_answer, suite=suite
    )
    assert changed.identity["identity_hash"] != run.identity["identity_hash"]
    assert len(pd.read_csv(out / "runs.csv")) == 3


@pytest.mark.slow  # a whole evaluation run, twice
def test_run_with_a_judge_caches_its_calls(
    tmp_path: Path, dataset: Path, suite: em.MetricSuite, geo_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import httpx

    from tests.assets.test_eval_metrics import FakeJudge

    monkeypatch.setenv("GEO_RAG_JUDGE_MODEL", "judge-model")
    monkeypatch.setenv("OPENAI_BASE_URL", "http://judge.test/v1")
    questions = load_eval_dataset(dataset)[2:3]
    judge = FakeJudge()

    def once() -> tuple:  # the runner builds its own suite, with the judge of the settings
        run = run_evaluation(
            questions,
            dataset_version="v1",
            out_dir=tmp_path,
            answer_fn=fake_answer,
            judge_transport=httpx.MockTransport(judge),
        )
        return run, len(judge.requests)

    run, sent = once()
    assert sent > 0 and run.judge_calls["requests_sent"] == sent
    pq = run.per_question
    judged = pq[pq.metric.isin([m.name for m in em.METRICS if m.needs_judge])]
    assert set(judged["status"]) == {"ok"} and set(pq["judge"]) == {"judge-model"}
    assert (geo_home / "evaluation" / "judge_cache").is_dir()
    again, sent_again = once()
    assert sent_again == sent and again.judge_calls["requests_sent"] == 0
    assert again.identity["identity_hash"] == run.identity["identity_hash"]
    assert list(again.per_question["value"].fillna(-1)) == list(pq["value"].fillna(-1))


def test_all_answers_failing_raises(
    tmp_path: Path, dataset: Path, suite: em.MetricSuite, geo_home: Path
) -> None:
    from geo_rag_runtime.errors import StoreError

    def broken(question: str, mode: str) -> Answer:
        raise StoreError("no vectors: run geo-rag ingest")

    with pytest.raises(StoreError, match="geo-rag ingest"):
        run_evaluation(
            load_eval_dataset(dataset), dataset_version="v", out_dir=tmp_path, answer_fn=broken, suite=suite
        )


# --------------------------------------------------------------------------- slow: the real service


@pytest.fixture(scope="module")
def knowledge_base(tmp_path_factory: pytest.TempPathFactory, sample_papers: Path) -> Path:
    """A home with one paper's real chunks in Chroma and the BM25 index (no graph, no classifier)."""
    from geo_rag_runtime.embeddings import SentenceTransformerEmbedder
    from geo_rag_runtime.stores.sparse import SparseIndex
    from geo_rag_runtime.stores.vectors import ChromaVectorStore
    from tests.runtime.retrieval_corpus import paper_chunks, paper_embeddings

    home = tmp_path_factory.mktemp("kb") / "home"
    settings = Settings(home=home)
    chunks = list(paper_chunks(sample_papers / KELLER))
    vectors = paper_embeddings(sample_papers / KELLER)
    identity = SentenceTransformerEmbedder().identity
    with ChromaVectorStore(settings) as store:
        store.ensure_model(identity)
        store.upsert_chunks(chunks, vectors, identity)
    SparseIndex(settings).upsert_paper(chunks[0].paper_id, chunks)
    return home


@pytest.mark.slow
def test_end_to_end_with_rag_service(
    knowledge_base: Path,
    sample_papers: Path,
    dataset: Path,
    suite: em.MetricSuite,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEO_RAG_LLM_MODEL", "GEO_RAG_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    settings = Settings(home=knowledge_base)
    questions = load_eval_dataset(dataset)
    version = dataset_version(dataset)
    run = run_evaluation(questions, dataset_version=version, settings=settings, out_dir=tmp_path, suite=suite)

    assert not [a.error for a in run.answers if a.error]
    assert {(a.question_id, a.system) for a in run.answers} == {
        (q.id, s) for q in questions for s in ("HybridRAG", "BaselineRAG")
    }
    pq = run.per_question
    judge_free = [m.name for m in em.METRICS if not m.needs_judge]
    # undefined by design on some questions: one-paper questions have no "both papers", a reference
    # answer without a number no numbers to state
    sometimes = ["both_papers@5", "reference_numbers_stated"]
    scored = pq.metric.isin(judge_free) & ~pq.metric.isin(["semantic_similarity", "abstention", *sometimes])
    assert set(pq[scored]["status"]) == {"ok"}
    assert set(pq[pq.metric.isin(sometimes) & (pq.status != "ok")]["reason"]) <= {
        "the reference rests on one paper",
        "no number in the reference answer",
    }
    # the dev set has only answerable questions: abstention is undefined, false abstention is scored
    assert set(pq[pq.metric == "abstention"]["reason"]) == {"answerable question"}
    assert (run.folder / "differences.csv").is_file() and "HybridRAG − BaselineRAG" in run.summary_markdown
    assert set(pq[~pq.metric.isin(judge_free)]["status"]) == {"not_computed"}
    from tests.runtime.retrieval_corpus import paper_chunks

    chunks = paper_chunks(sample_papers / KELLER)
    assert run.identity["data_versions"]["stores"]["vectors"]["count"] == len(chunks)
    assert run.identity["data_versions"]["stores"]["keyword_index"]["count"] == len(chunks)

    # the table agrees with the recorded contexts, recomputed by the rule
    by_id = {q.id: q for q in questions}
    for answer in run.answers:
        passages = [p.text for p in by_id[answer.question_id].reference_passages]
        row = pq[(pq.question_id == answer.question_id) & (pq.system == answer.system)].set_index("metric")
        assert row.loc["mrr", "value"] == em.reciprocal_rank(passages, answer.chunk_texts)
        assert row.loc["hit@5", "value"] == em.hit_at_k(passages, answer.chunk_texts, 5)
    # dense retrieval over one paper finds most reference passages in its top 5
    per_type = run.per_type.set_index(["query_type", "system", "metric"])
    assert per_type.loc[("all", "BaselineRAG", "hit@5"), "mean"] >= 0.5

    again = run_evaluation(
        questions, dataset_version=version, settings=settings, out_dir=tmp_path, suite=suite
    )
    assert again.identity["identity_hash"] == run.identity["identity_hash"] and again.run_id != run.run_id
    pd.testing.assert_frame_equal(
        again.per_question[["question_id", "system", "metric", "value", "status"]],
        run.per_question[["question_id", "system", "metric", "value", "status"]],
    )


@pytest.mark.slow
def test_evaluate_command_through_dagster(
    knowledge_base: Path,
    dataset: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    from geo_assets.cli.evaluate import evaluate

    monkeypatch.setenv("GEO_RAG_HOME", str(knowledge_base))
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEO_RAG_LLM_MODEL", "GEO_RAG_JUDGE_MODEL"):
        monkeypatch.delenv(var, raising=False)
    instance = dg.DagsterInstance.ephemeral()
    assert evaluate(str(tmp_path / "missing.jsonl"), str(tmp_path), instance=instance) == 2

    assert evaluate(str(dataset), str(tmp_path / "out"), instance=instance, max_questions=2) == 0
    printed = capsys.readouterr().out
    assert "| hit@5 |" in printed and "output folder:" in printed
    dataset_mat = instance.get_latest_materialization_event(
        dg.AssetKey("evaluation_dataset")
    ).asset_materialization
    assert dataset_mat.tags["dagster/data_version"] == dataset_version(dataset)
    assert dataset_mat.metadata["questions"].value == 4
    results = instance.get_latest_materialization_event(
        dg.AssetKey("evaluation_results")
    ).asset_materialization
    meta = results.metadata
    assert meta["questions"].value == 2 and meta["judge"].value == "none"
    assert results.tags["dagster/data_version"] == meta["identity_hash"].value
    assert meta["plot_retrieval"].value.startswith("![retrieval](data:image/png;base64,")
    folder = Path(meta["output_folder"].value)
    assert folder.parent == tmp_path / "out" and (folder / "per_type.parquet").is_file()
    assert "HybridRAG/mrr" in meta and 0.0 <= meta["HybridRAG/mrr"].value <= 1.0


def test_the_run_identity_names_who_writes_the_answers(geo_home: Path) -> None:
    from geo_assets.evaluation.identity import config_snapshot
    from geo_rag_runtime.settings import get_settings

    plain = config_snapshot(get_settings(local_llm=True))
    assert plain["generator"] == "auto" and plain["answer_model"] is None  # no LLM configured or running
    assert config_snapshot(get_settings(generator="extractive"))["generator"] == "extractive"
    configured = config_snapshot(get_settings(llm_model="m", openai_base_url="http://llm.invalid/v1"))
    assert configured["answer_model"] == "m"
    assert config_snapshot(get_settings(llm_steps=["rephrase"]))["llm_steps"] == ["rephrase"]
