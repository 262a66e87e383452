"""A query classifier pickled before the router became a package still loads.

Such a ``model.joblib`` names ``geo_rag_runtime.question_features.QuestionEmbedding``; the file is
made here the way an old home has it: pickled with today's classes (protocol 2, where a class is
the text line ``c<module>\\n<name>\\n``), then the module path rewritten to the old one.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import pickle
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import FeatureUnion, Pipeline

import geo_rag_runtime
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.router import features
from geo_rag_runtime.router import model as qc
from geo_rag_runtime.router.features import QuestionEmbedding
from geo_rag_runtime.router.pickle_compat import LEGACY_MODULES, legacy_module_paths

OLD, NEW = b"cgeo_rag_runtime.question_features\n", b"cgeo_rag_runtime.router.features\n"
QUESTIONS = {
    "explicit_fact": ["What is the 87Sr/86Sr of the basalt?", "Give the U-Pb age of the granite."],
    "implicit_reasoning": ["How does garnet affect Lu/Hf?", "How does contamination change εNd?"],
    "interpretable_rationale": ["What evidence supports a plume?", "Which criteria identify a melt?"],
    "hidden_rationale": ["Why is δ18O anomalously high?", "What could explain Hf–Nd decoupling?"],
}


def _fake_vectors(texts: list[str]) -> np.ndarray:
    """Stands in for MiniLM (no model load): a fixed unit vector per text."""
    rows = [np.random.default_rng(sum(t.encode())).standard_normal(384) for t in texts]
    return np.asarray([r / np.linalg.norm(r) for r in rows], dtype=np.float32)


def _old_pickle(obj: object, path: Path) -> None:
    joblib.dump(obj, path, protocol=2)
    data = path.read_bytes()
    assert data.count(NEW) >= 1
    path.write_bytes(data.replace(NEW, OLD))


def test_an_old_module_path_resolves_only_while_loading(tmp_path: Path) -> None:
    path = tmp_path / "embedding.joblib"
    _old_pickle(QuestionEmbedding(weight=0.5), path)
    assert OLD in path.read_bytes()
    if importlib.util.find_spec("geo_rag_runtime.question_features") is None:  # unless a stale
        # install elsewhere still has the old file (an editable install of an older checkout)
        with pytest.raises(ModuleNotFoundError, match="question_features"):
            joblib.load(path)  # the fixture really names a module that no longer exists
    with legacy_module_paths():
        loaded = joblib.load(path)
        with open(path, "rb") as handle:  # joblib's unpickler and pickle's C one alike
            assert pickle.load(handle).weight == 0.5
    assert type(loaded) is QuestionEmbedding and loaded.weight == 0.5
    assert not any(old in sys.modules for old in LEGACY_MODULES)  # nothing left behind


def test_every_mapped_module_exists() -> None:
    root = Path(geo_rag_runtime.__file__).parents[1]
    for old, new in LEGACY_MODULES.items():
        assert not (root / f"{old.replace('.', '/')}.py").exists(), f"{old} exists again: drop its alias"
        importlib.import_module(new)


def test_a_classifier_trained_under_the_old_names_loads(
    geo_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(features, "question_vectors", _fake_vectors)
    texts = [q for label in QUERY_TYPES for q in QUESTIONS[label]]
    labels = [label for label in QUERY_TYPES for _ in QUESTIONS[label]]
    union = FeatureUnion([("tfidf", TfidfVectorizer()), ("embedding", QuestionEmbedding(1.0))])
    pipeline = Pipeline([("features", union), ("clf", LogisticRegression(C=10))]).fit(texts, labels)
    # an artifact as an old home has it: the pickle under the old names, no numpy copy
    folder = geo_home / "old_classifier"
    folder.mkdir(parents=True)
    _old_pickle(pipeline, folder / qc.MODEL_FILE)
    manifest = {
        "format": qc.ARTIFACT_FORMAT,
        "artifact": qc.MODEL_FILE,
        "sha256": qc._sha256(folder / qc.MODEL_FILE),
        "model_version": "qc-old",
        "labels": list(QUERY_TYPES),
        "linear": {"copied": False},
    }
    (folder / qc.MANIFEST_FILE).write_text(json.dumps(manifest), encoding="utf-8")
    loaded = qc.QueryClassifier.load(folder)
    for question in [*texts, "Why do the zircons record older ages?"]:
        expected = dict(zip(pipeline.classes_, pipeline.predict_proba([question])[0], strict=True))
        got = loaded.probabilities(question)
        assert all(abs(got[label] - expected[label]) <= 1e-12 for label in QUERY_TYPES)
    assert not any(old in sys.modules for old in LEGACY_MODULES)
