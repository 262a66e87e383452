"""Query-time classification: loading with hash verification, probabilities, confidence, caching."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline

from geo_rag_runtime.errors import QueryError, StoreError
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.router import model as qc
from geo_rag_runtime.settings import get_settings

# A small hand-made training set: the runtime is tested without the pipeline's generator.
_EXAMPLES = {
    "explicit_fact": [
        "What is the 87Sr/86Sr of the basalt?",
        "Which mineral hosts Zr?",
        "List the measured elements.",
        "Give the U-Pb age of the granite.",
        "What is the half-life of 176Lu?",
        "How much MgO is in the picrite?",
    ],
    "implicit_reasoning": [
        "How does garnet affect the Lu/Hf of melts?",
        "How does crustal contamination change εNd?",
        "What is the relationship between MgO and Ni?",
        "Compare the Pb isotopes of the two suites.",
        "How does water content influence amphibole stability?",
        "Does Sr/Y correlate with crustal thickness?",
    ],
    "interpretable_rationale": [
        "What factors control zircon solubility?",
        "Which criteria identify a primary melt?",
        "What evidence supports a plume origin?",
        "Why is zircon used for U-Pb dating?",
        "What assumptions does an isochron rely on?",
        "What are the main controls on REE patterns?",
    ],
    "hidden_rationale": [
        "Why do the lavas show anomalously high δ18O?",
        "What could explain the decoupling of Hf and Nd?",
        "How come the zircons are older than the pluton?",
        "What underlying mechanism causes the Sr anomaly?",
        "Why might the Rb-Sr and U-Pb ages disagree?",
        "What would cause a flat HREE pattern in a garnet melt?",
    ],
}


def _fit(c: float = 10.0) -> Pipeline:
    texts = [text for label in QUERY_TYPES for text in _EXAMPLES[label]]
    labels = [label for label in QUERY_TYPES for _ in _EXAMPLES[label]]
    return Pipeline([("tfidf", TfidfVectorizer(ngram_range=(1, 2))), ("clf", LogisticRegression(C=c))]).fit(
        texts, labels
    )


@pytest.fixture()
def artifact(geo_home: Path) -> Iterator[Path]:
    qc.clear_classifier_cache()
    folder = qc.write_artifact(
        _fit(), qc.default_artifact_dir(get_settings()), {"training_data_version": "t1"}
    )
    yield folder
    qc.clear_classifier_cache()


def test_default_location_is_under_the_home(geo_home: Path, artifact: Path) -> None:
    assert artifact == geo_home.resolve() / "models" / "query_classifier"
    manifest = json.loads((artifact / qc.MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["format"] == qc.ARTIFACT_FORMAT and manifest["labels"] == list(QUERY_TYPES)
    assert manifest["training_data_version"] == "t1"


def test_classify_returns_a_type_and_probabilities_summing_to_one(artifact: Path) -> None:
    classifier = qc.QueryClassifier.load(artifact)
    for question in (
        "What is the εHf of the zircons?",
        "Why do some basalts show anomalously low Ni?",
        "What factors control Nb/Ta?",
        "xyz",
    ):
        label, probabilities = classifier.classify(question)
        assert label in QUERY_TYPES
        assert list(probabilities) == list(QUERY_TYPES)
        assert sum(probabilities.values()) == pytest.approx(1.0)
        assert all(0.0 <= p <= 1.0 for p in probabilities.values())
        assert probabilities[label] == max(probabilities.values())
    assert classifier.classify("What is the half-life of 147Sm?")[0] == "explicit_fact"


def test_confidence_flag_follows_the_threshold(artifact: Path) -> None:
    never = qc.QueryClassifier.load(artifact, min_confidence=1.01)
    always = qc.QueryClassifier.load(artifact, min_confidence=0.0)
    question = "What is the relationship between Ba/Th and slab fluids?"
    assert never.predict(question).confident is False
    decision = always.predict(question)
    assert decision.confident is True and decision.label == always.classify(question)[0]
    middle = qc.QueryClassifier.load(artifact, min_confidence=decision.confidence)
    assert middle.predict(question).confident is True  # the threshold itself counts as confident
    as_json = json.loads(json.dumps(decision.to_dict()))
    assert as_json["label"] == decision.label and set(as_json["probabilities"]) == set(QUERY_TYPES)
    assert decision.ranked[0] == decision.label and len(decision.ranked) == 4


def test_an_ambiguous_question_is_not_confident_at_the_default_threshold(geo_home: Path) -> None:
    qc.clear_classifier_cache()
    folder = qc.write_artifact(_fit(c=0.05), qc.default_artifact_dir(get_settings()))  # heavily regularized
    decision = qc.get_classifier(get_settings()).predict("tell me something")
    assert decision.min_confidence == get_settings().classifier_min_confidence
    assert decision.confidence < decision.min_confidence and not decision.confident
    assert folder.is_dir()


def test_tampered_model_is_refused_before_unpickling(artifact: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import joblib

    def must_not_unpickle(*args: object, **kwargs: object) -> None:
        raise AssertionError("joblib.load called on an unverified file")

    model = artifact / qc.MODEL_FILE
    model.write_bytes(model.read_bytes() + b"\x00")
    monkeypatch.setattr(joblib, "load", must_not_unpickle)
    with pytest.raises(StoreError, match="SHA-256"):
        qc.QueryClassifier.load(artifact)


def test_manifest_for_other_labels_is_refused(artifact: Path) -> None:
    path = artifact / qc.MANIFEST_FILE
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["labels"] = ["fact", "reasoning"]
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(StoreError, match="labels"):
        qc.QueryClassifier.load(artifact)


def test_missing_or_unreadable_artifact_says_how_to_build_it(geo_home: Path) -> None:
    qc.clear_classifier_cache()
    with pytest.raises(StoreError, match="geo-rag ingest"):
        qc.get_classifier(get_settings())
    with pytest.raises(StoreError, match="query_classifier"):
        qc.QueryClassifier.load(geo_home / "nowhere")
    folder = qc.write_artifact(_fit(), geo_home / "broken")
    (folder / qc.MANIFEST_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(StoreError, match="unreadable"):
        qc.QueryClassifier.load(folder)


def test_get_classifier_is_cached_and_reloads_a_retrained_model(artifact: Path) -> None:
    settings = get_settings()
    first = qc.get_classifier(settings)
    assert qc.get_classifier(settings) is first
    assert qc.get_classifier(settings, path=artifact / qc.MANIFEST_FILE) is first
    qc.write_artifact(_fit(c=3.0), artifact)
    manifest, model = artifact / qc.MANIFEST_FILE, artifact / qc.MODEL_FILE
    later = os.stat(manifest).st_mtime_ns + 10_000_000  # coarse file-system clocks: make the change visible
    os.utime(manifest, ns=(later, later))
    os.utime(model, ns=(later, later))
    second = qc.get_classifier(settings)
    assert second is not first and second.model_version != first.model_version


def test_empty_question_is_a_query_error(artifact: Path) -> None:
    classifier = qc.QueryClassifier.load(artifact)
    with pytest.raises(QueryError):
        classifier.classify("   ")


def test_write_artifact_requires_the_four_types(geo_home: Path) -> None:
    two_class = Pipeline([("tfidf", TfidfVectorizer()), ("clf", LogisticRegression())]).fit(
        ["what is x", "why is y"], ["explicit_fact", "hidden_rationale"]
    )
    with pytest.raises(ValueError, match="probabilities over"):
        qc.write_artifact(two_class, geo_home / "two")


def test_classifier_manifest_summarizes_without_loading(artifact: Path) -> None:
    summary = qc.classifier_manifest(get_settings())
    manifest = json.loads((artifact / qc.MANIFEST_FILE).read_text(encoding="utf-8"))
    assert summary["model_version"] == manifest["model_version"] and summary["sha256"] == manifest["sha256"]
    assert summary["training_data_version"] == "t1" and summary["path"] == str(artifact)
    (artifact / qc.MANIFEST_FILE).unlink()
    with pytest.raises(StoreError, match="geo-rag ingest"):
        qc.classifier_manifest(get_settings())


def test_the_numpy_copy_loads_without_scikit_learn_and_agrees(geo_home: Path) -> None:
    """The artifact carries a numpy copy of TF-IDF + logistic regression, checked at write time;
    loading it imports no scikit-learn (a cold `geo-rag ask` pays 1–2 s for that import)."""
    import subprocess
    import sys

    model = _fit()
    folder = qc.write_artifact(model, geo_home / "linear", check_questions=["Why is the mantle hot?"])
    manifest = json.loads((folder / qc.MANIFEST_FILE).read_text())
    assert manifest["linear"]["copied"] and manifest["linear"]["max_probability_diff"] <= 1e-6
    questions = [q for texts in _EXAMPLES.values() for q in texts] + ["What is δ18O of MORB glass?"]
    loaded = qc.QueryClassifier.load(folder)
    for question in questions:
        expected = dict(zip(model.classes_, model.predict_proba([question])[0], strict=True))
        got = loaded.probabilities(question)
        assert all(abs(got[label] - expected[label]) <= 1e-6 for label in qc.QUERY_TYPES)
    probe = (
        "import sys; from geo_rag_runtime.router.model import QueryClassifier; "
        f"c = QueryClassifier.load({str(folder)!r}); c.predict('Why is zircon old?'); "
        "print('sklearn' in sys.modules)"
    )
    result = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
    # a copy that does not match its hash is ignored: the scikit-learn model answers
    (folder / qc.LINEAR_FILE).write_bytes(b"tampered")
    fallback = qc.QueryClassifier.load(folder)
    assert fallback.predict("Why is zircon old?").label in qc.QUERY_TYPES
    assert type(fallback._model).__name__ == "Pipeline"
