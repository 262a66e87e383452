"""Classifier training: the paper's pipeline, the model comparison, determinism, the test split, the artifact."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from geo_assets.queries.synthetic_queries import (
    dataset_version,
    generate_synthetic_queries,
    load_router_heldout,
    load_seed_queries,
    load_written_queries,
)
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.router import training as ct
from geo_rag_runtime.router.model import MANIFEST_FILE, MODEL_FILE, QueryClassifier


@pytest.fixture(scope="module")
def seed_queries() -> pd.DataFrame:
    return load_seed_queries()


@pytest.fixture(scope="module")
def small_train() -> pd.DataFrame:
    return generate_synthetic_queries({}, n_per_type=80, seed=13)


@pytest.fixture(scope="module")
def small_result(small_train: pd.DataFrame, seed_queries: pd.DataFrame) -> ct.TrainingResult:
    return ct.train_classifier(small_train, seed_queries, seed=13)


def test_shipped_pipeline_has_the_papers_parameters(small_result: ct.TrainingResult) -> None:
    params = small_result.pipeline.get_params()
    assert params["features__tfidf__max_features"] == 7000
    assert params["features__tfidf__ngram_range"] == (1, 3)
    assert params["features__embedding__weight"] == ct.EMBEDDING_WEIGHT
    assert params["clf__C"] == 50 and params["clf__max_iter"] == 3000
    assert params["clf__class_weight"] == "balanced"
    assert type(params["clf"]).__name__ == "LogisticRegression"
    assert small_result.chosen == ct.SHIPPED_MODEL
    assert list(small_result.pipeline.classes_) == sorted(QUERY_TYPES)


def test_comparison_table_covers_all_candidates(small_result: ct.TrainingResult) -> None:
    table = small_result.comparison
    assert list(table["model"]) == list(ct.candidate_models())
    for column in (
        "cv_macro_f1_mean",
        "cv_macro_f1_std",
        "cv_accuracy_mean",
        "group_cv_macro_f1_mean",
        "test_macro_f1",
        "fit_time_s",
    ):
        assert table[column].between(0, 1e3).all(), column
    assert table[["cv_macro_f1_mean", "group_cv_macro_f1_mean", "test_macro_f1"]].le(1).all().all()
    # held-out templates are harder than held-out rows: the two CVs measure different things
    shipped = table.set_index("model").loc[ct.SHIPPED_MODEL]
    assert shipped["group_cv_macro_f1_mean"] < shipped["cv_macro_f1_mean"]
    assert small_result.cv_winner in set(table["model"])


def test_report_shapes(small_result: ct.TrainingResult, seed_queries: pd.DataFrame) -> None:
    confusion = np.array(small_result.confusion)
    assert confusion.shape == (4, 4) and confusion.sum() == len(seed_queries)
    # rows follow QUERY_TYPES: row sums are the true counts per type in that order
    assert confusion.sum(axis=1).tolist() == [int((seed_queries["label"] == t).sum()) for t in QUERY_TYPES]
    assert list(small_result.per_class) == list(QUERY_TYPES)
    assert np.trace(confusion) / confusion.sum() == pytest.approx(small_result.test_accuracy)
    assert len(small_result.test_errors) == confusion.sum() - np.trace(confusion)
    assert [row["threshold"] for row in small_result.confidence] == list(ct.CONFIDENCE_THRESHOLDS)


@pytest.mark.slow  # trains twice
def test_training_is_deterministic(
    small_train: pd.DataFrame, seed_queries: pd.DataFrame, small_result: ct.TrainingResult
) -> None:
    regenerated = generate_synthetic_queries({}, n_per_type=80, seed=13)  # from scratch
    pd.testing.assert_frame_equal(regenerated, small_train)
    again = ct.train_classifier(regenerated, load_seed_queries(), seed=13)
    assert again.metrics() == small_result.metrics()
    assert again.confusion == small_result.confusion
    assert again.comparison_records(with_times=False) == small_result.comparison_records(with_times=False)
    texts = seed_queries["query"].tolist()
    np.testing.assert_array_equal(
        again.pipeline.predict_proba(texts), small_result.pipeline.predict_proba(texts)
    )


def test_test_split_rows_are_removed_from_training(seed_queries: pd.DataFrame) -> None:
    train = generate_synthetic_queries({}, n_per_type=30, seed=1)
    leaked = pd.concat(
        [train, seed_queries.head(3).assign(generator="leak", template="leak")], ignore_index=True
    )
    cleaned, removed = ct.decontaminate(leaked, seed_queries)
    assert removed >= 3
    assert not set(seed_queries["query"].head(3)) & set(cleaned["query"])


def test_router_heldout_set_is_balanced_and_in_no_training_data(seed_queries: pd.DataFrame) -> None:
    """scripts/bench_router.py reports accuracy on it as never-trained-on: keep it that way."""
    heldout = load_router_heldout()
    assert len(heldout) == 600 and not heldout["query"].duplicated().any()
    assert heldout["label"].value_counts().to_dict() == dict.fromkeys(QUERY_TYPES, 150)
    training = pd.concat(
        [generate_synthetic_queries({}, seed=13), load_written_queries(), seed_queries], ignore_index=True
    )
    _, too_close = ct.decontaminate(training, heldout)
    assert too_close == 0


@pytest.mark.slow  # trains the classifier
def test_paper_pipeline_beats_the_floor_on_the_hand_written_test_split(seed_queries: pd.DataFrame) -> None:
    """The asset check's floor, measured with the full default data set (LR only, to stay fast)."""
    train = generate_synthetic_queries({}, n_per_type=600, seed=13)
    result = ct.train_classifier(train, seed_queries, seed=13, models=[ct.SHIPPED_MODEL])
    assert result.test_macro_f1 >= ct.MIN_TEST_MACRO_F1
    assert min(row["f1-score"] for row in result.per_class.values()) >= 0.75  # no type collapses
    assert list(result.comparison["model"]) == [ct.SHIPPED_MODEL]


def test_rejects_unknown_or_missing_labels(small_train: pd.DataFrame, seed_queries: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="unknown labels"):
        ct.train_classifier(small_train.assign(label="chit_chat"), seed_queries)
    with pytest.raises(ValueError, match="no examples"):
        ct.train_classifier(small_train[small_train["label"] != "hidden_rationale"], seed_queries)
    with pytest.raises(ValueError, match="unknown models"):
        ct.compare_models(small_train, models=["gpt"])


def test_saved_artifact_loads_and_predicts_like_the_pipeline(
    small_result: ct.TrainingResult, small_train: pd.DataFrame, seed_queries: pd.DataFrame, tmp_path: Path
) -> None:
    version = dataset_version(small_train)
    folder = ct.save_classifier(small_result, tmp_path / "query_classifier", version)
    manifest = json.loads((folder / MANIFEST_FILE).read_text(encoding="utf-8"))
    assert manifest["training_data_version"] == version
    assert manifest["test_data_version"] == ct.text_table_version(seed_queries)
    json.loads(json.dumps(manifest), parse_constant=lambda name: pytest.fail(f"{name} in manifest"))
    assert manifest["labels"] == list(QUERY_TYPES)
    assert manifest["metrics"]["test_macro_f1"] == round(small_result.test_macro_f1, 6)
    assert manifest["confusion_matrix"]["rows_true_cols_predicted"] == small_result.confusion
    assert [row["model"] for row in manifest["comparison"]] == list(ct.candidate_models())
    assert manifest["params"]["logistic_regression"] == {
        "C": 50,
        "max_iter": 3000,
        "class_weight": "balanced",
    }
    assert len(manifest["sha256"]) == 64 and (folder / MODEL_FILE).is_file()
    assert manifest["model_version"] == f"qc-{manifest['sha256'][:12]}"

    loaded = QueryClassifier.load(folder)
    for text in seed_queries["query"].head(20):
        label, probabilities = loaded.classify(text)
        assert label == small_result.pipeline.predict([text])[0]
        expected = dict(
            zip(small_result.pipeline.classes_, small_result.pipeline.predict_proba([text])[0], strict=True)
        )
        assert probabilities == pytest.approx(expected)


_SAVE_IN_A_FRESH_PROCESS = """
import sys
from geo_rag_runtime.router import training as ct
from geo_assets.queries.synthetic_queries import dataset_version, generate_synthetic_queries, load_seed_queries
from geo_rag_runtime.router.model import QueryClassifier
train = generate_synthetic_queries({}, n_per_type=40, seed=13)
result = ct.train_classifier(train, load_seed_queries(), seed=13, models=[ct.SHIPPED_MODEL])
folder = ct.save_classifier(result, sys.argv[1], dataset_version(train))
print(QueryClassifier.load(folder).model_version, result.metrics()["test_macro_f1"])
"""


@pytest.mark.slow
def test_two_processes_write_the_same_model_version(tmp_path: Path) -> None:
    """Same data and seed in fresh processes (different hash seeds) give byte-identical artifacts."""
    import os
    import subprocess
    import sys

    running = []
    for hash_seed in ("1", "2"):  # side by side: one thread each, so the two cores halve the wait
        env = {**os.environ, "PYTHONHASHSEED": hash_seed, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
        running.append(
            subprocess.Popen(
                [sys.executable, "-c", _SAVE_IN_A_FRESH_PROCESS, str(tmp_path / hash_seed)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                env=env,
            )
        )
    outputs = []
    for process in running:
        stdout, stderr = process.communicate(timeout=180)
        assert process.returncode == 0, stderr
        outputs.append(stdout.strip())
    assert outputs[0] == outputs[1] and outputs[0].startswith("qc-")
