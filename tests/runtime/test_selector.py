"""The answer-sentence ranker: its features, its file (JSON, never a pickle) and its effect on answers."""

import json
from pathlib import Path

import numpy as np
import pytest

from geo_assets.answers.selector_training import WRITTEN_QUESTIONS, fold_papers, read_written_questions
from geo_rag_runtime.query.selector import (
    FEATURES,
    PACKAGED_SELECTOR,
    SelectorInput,
    SelectorModel,
    candidate_features,
    load_selector,
)
from tests.runtime.knowledge_base import KnowledgeBase

QUESTION = "What U-Pb age was obtained for sample 19MAT-169?"
SENTENCES = (
    "Zircon U-Pb dating is widely used to date magmatic rocks of the belt.",
    "Fifteen analyses of sample 19MAT-169 yield a weighted mean 206Pb/238U age of 410 ± 4 Ma.",
    "Results are given in Table S1.",
)


@pytest.fixture(scope="module")
def rows() -> np.ndarray:
    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.query.relevance import RelevanceScorer
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.vocab import recognize

    scorer = RelevanceScorer(get_embedder(Settings()), recognize)
    relevance = scorer.for_question(QUESTION)
    inputs = [SelectorInput(text, 0, i) for i, text in enumerate(SENTENCES)]
    return candidate_features(relevance, inputs, relevance.score(list(SENTENCES)))


def test_features_see_the_value_and_the_sample_the_question_asks_for(rows: np.ndarray) -> None:
    column = {name: rows[:, i] for i, name in enumerate(FEATURES)}
    assert rows.shape == (3, len(FEATURES))
    assert list(column["value_for_value_question"]) == [0.0, 1.0, 0.0]
    assert list(column["identifier"]) == [0.0, 1.0, 0.0]  # "19MAT-169", not "206Pb" or "238U"
    assert column["cosine_gap"].max() == 0.0  # relative to the best candidate of this question


def test_the_packaged_ranker_prefers_the_answering_sentence(rows: np.ndarray) -> None:
    """Trained on the hand-written questions, it ranks the sentence with the asked sample's age
    first, above the one that shares the most words with the question."""
    model = load_selector(PACKAGED_SELECTOR)
    assert model is not None and model.meta["questions"] >= 600
    assert model.meta["source"].startswith(WRITTEN_QUESTIONS.name) and not model.meta["left_out"]
    assert int(np.argmax(model.score(rows))) == 1


def test_the_written_questions_name_sentences_of_their_passages() -> None:
    """The hand-written training set reads whole; every answer is a sentence of its own passage, a
    kind is known, and the two folds used for cross-fitting split the papers."""
    questions = read_written_questions()
    assert len(questions) >= 700
    assert {q.kind for q in questions} == {"value", "reason", "method", "evidence", "other"}
    passages = [json.loads(line) for line in WRITTEN_QUESTIONS.read_text(encoding="utf-8").splitlines()]
    sentences = {s for p in passages for s in p["sentences"]}
    assert all(q.sentence in sentences and set(q.also) <= sentences for q in questions)
    assert all(q.sentence not in q.partial for q in questions)
    folds = [set(fold_papers(WRITTEN_QUESTIONS, k)) for k in (0, 1)]
    assert folds[0] and folds[1] and not folds[0] & folds[1]
    assert folds[0] | folds[1] == {q.paper_id for q in questions}


def test_a_malformed_written_question_names_its_line(tmp_path: Path) -> None:
    path = tmp_path / "written.jsonl"
    good = {
        "source_file": "a.pdf",
        "sentences": ["One sentence here.", "Another one."],
        "questions": [{"question": "Which?", "kind": "value", "answers": [1]}],
    }
    bad = {**good, "questions": [{"question": "Which?", "kind": "value", "answers": [5]}]}
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")
    with pytest.raises(ValueError, match="line 2"):
        read_written_questions(path)
    path.write_text(json.dumps(good) + "\n")
    assert read_written_questions(path)[0].sentence == "Another one."


def test_training_on_the_written_questions_of_the_home_s_papers(knowledge_base: KnowledgeBase) -> None:
    """The real training path: the questions written for the test home's two papers retrieve their
    contexts there, the answering sentences are labelled among the candidates, and the fitted ranker
    puts them first more often than the cosine alone; a home without those papers is told so."""
    from geo_assets.answers.selector_training import collect_examples, train_written
    from geo_rag_runtime.service import RagService
    from tests.runtime.knowledge_base import PAPERS

    others = sorted({q.paper_id for q in read_written_questions()} - set(PAPERS))
    model = train_written(knowledge_base.settings(), leave_out=others, min_questions=20)
    assert model.meta["questions"] >= 20 and model.meta["left_out"] == others
    questions = [q for q in read_written_questions() if q.paper_id in PAPERS]
    service = RagService(knowledge_base.settings(answer_selector="relevance"), llm=None)
    try:
        examples = collect_examples(questions, service)
    finally:
        service.close()
    cosine = FEATURES.index("cosine")
    first_by_model = sum(int(e.labels[int(np.argmax(model.score(e.rows)))]) for e in examples)
    first_by_cosine = sum(int(e.labels[int(np.argmax(e.rows[:, cosine]))]) for e in examples)
    assert first_by_model > first_by_cosine
    with pytest.raises(ValueError, match="ingested the papers"):
        train_written(knowledge_base.settings(), leave_out=[*others, *PAPERS])


def test_the_file_is_json_and_a_malformed_one_is_refused(tmp_path: Path) -> None:
    n = len(FEATURES)
    model = SelectorModel(np.ones(n, np.float32), -1.0, np.zeros(n, np.float32), np.ones(n, np.float32))
    path = model.save(tmp_path / "answer_selector.json")
    again = load_selector(path)
    assert again is not None and np.allclose(again.coef, model.coef) and again.intercept == -1.0
    data = json.loads(path.read_text())
    data["features"] = data["features"][:-1]
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="retrain"):
        load_selector(path)
    data = model.to_json()
    data["coef"] = [float("nan")] * n
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match="malformed"):
        load_selector(path)
    assert load_selector(tmp_path / "missing.json") is None


def test_the_setting_picks_the_ranker(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    """learned: the packaged ranker; home: the home's own where it has one this code reads, else the
    packaged one; relevance: none."""
    from geo_rag_runtime.service import RagService

    packaged = load_selector(PACKAGED_SELECTOR)
    assert packaged is not None
    assert RagService(knowledge_base.settings(answer_selector="relevance"), llm=None).selector() is None
    learned = RagService(knowledge_base.settings(), llm=None).selector()
    assert learned is not None and learned.version == packaged.version

    home = tmp_path / "home"  # the ranker is read from models/ alone; no store is opened
    own = home / "models" / "answer_selector.json"
    own.parent.mkdir(parents=True, exist_ok=True)
    stale = packaged.to_json()
    stale["features"] = stale["features"][:-2]  # written by a version with two features fewer
    own.write_text(json.dumps(stale))
    fallback = RagService(knowledge_base.settings(home, answer_selector="home"), llm=None).selector()
    assert fallback is not None and fallback.version == packaged.version
    n = len(FEATURES)
    SelectorModel(
        np.ones(n, np.float32), 0.0, np.zeros(n, np.float32), np.ones(n, np.float32), meta={"version": "own"}
    ).save(own)
    mine = RagService(knowledge_base.settings(home, answer_selector="home"), llm=None).selector()
    assert mine is not None and mine.version == "own"
    assert RagService(knowledge_base.settings(home), llm=None).selector().version == packaged.version  # type: ignore[union-attr]


def test_graph_facts_are_chosen_for_the_question() -> None:
    """Facts that share an entity with the question but say something beside its point are not shown;
    reported values are kept whatever their score."""
    from types import SimpleNamespace

    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.models import RetrievedItem
    from geo_rag_runtime.query.graph_facts import MAX_FACTS, facts_for_the_question
    from geo_rag_runtime.query.question import prepare_question
    from geo_rag_runtime.query.relevance import RelevanceScorer
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.vocab import recognize

    def fact(text: str, sentence: str, retriever: str = "graph") -> RetrievedItem:
        return RetrievedItem(kind="fact", text=text, retriever=retriever, provenance=[{"sentence": sentence}])

    on_point = fact(
        "Tholeiitic DISTINGUISHED_BY Iron enrichment",
        "Tholeiitic magmas show iron enrichment during differentiation, whereas calc-alkaline magmas do not.",
    )
    beside = [
        fact(
            "Tholeiitic OCCURS_IN Iceland", "Samples were collected in Iceland during the 2019 field season."
        ),
        fact(
            "Basalt MEASURED_BY XRF",
            "Major elements of the basalts were measured by XRF at the university lab.",
        ),
        fact("Zircon HAS_AGE 391 Ma", "The youngest zircon grains are 391 Ma old."),
        fact("Magma OCCURS_IN Hawaii", "Hawaii is an island in the Pacific Ocean."),
    ]
    value = fact("age = 410 ± 4 Ma", "Sample 19MAT-169 yields 410 ± 4 Ma.", retriever="measurements")
    scorer = RelevanceScorer(get_embedder(Settings()), recognize)
    question = prepare_question(
        "What distinguishes tholeiitic from calc-alkaline magma series?", 2000, recognize
    )
    chosen = facts_for_the_question(question, [*beside, value, on_point], SimpleNamespace(scorer=scorer))  # type: ignore[arg-type]
    assert chosen[0] is value and chosen[1] is on_point
    assert len(chosen) <= 1 + MAX_FACTS
    assert not {"Zircon HAS_AGE 391 Ma", "Magma OCCURS_IN Hawaii"} & {f.text for f in chosen}
