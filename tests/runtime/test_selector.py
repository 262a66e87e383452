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
