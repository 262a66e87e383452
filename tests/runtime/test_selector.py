"""The answer-sentence ranker: its features, its file (JSON, never a pickle) and its effect on answers."""

import json
from pathlib import Path

import numpy as np
import pytest

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
    """Trained on the sample papers' own sentences, it ranks the sentence with the asked sample's age
    first, above the one that shares the most words with the question."""
    model = load_selector(PACKAGED_SELECTOR)
    assert model is not None and model.meta["questions"] >= 40
    assert int(np.argmax(model.score(rows))) == 1


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


def test_relevance_setting_turns_the_ranker_off(knowledge_base: KnowledgeBase) -> None:
    from geo_rag_runtime.service import RagService

    assert RagService(knowledge_base.settings(answer_selector="relevance"), llm=None).selector() is None
    learned = RagService(knowledge_base.settings(), llm=None).selector()
    assert learned is not None and learned.version == load_selector(PACKAGED_SELECTOR).version  # type: ignore[union-attr]


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
