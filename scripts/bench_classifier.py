"""Benchmark of the query classifier: data generation, model comparison, test split, latency.

    python scripts/bench_classifier.py [--n-per-type 600] [--seed 13] [--out DIR] [--vocabulary]

Prints the comparison table (stratified and template-grouped 5-fold CV, fit time, test macro-F1 of
each candidate), the shipped model's test macro-F1, per-class report, confusion matrix, confidence
table and misclassified test questions, then the load time and p50/p95 latency of classifying one
question with the saved artifact loaded through ``geo_rag_runtime.router.model``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import pandas as pd

from geo_assets.queries.synthetic_queries import (
    dataset_version,
    generate_synthetic_queries,
    load_seed_queries,
)
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.router.model import QueryClassifier
from geo_rag_runtime.router.training import MIN_TEST_MACRO_F1, save_classifier, train_classifier

_SHORT = {
    "explicit_fact": "fact",
    "implicit_reasoning": "implicit",
    "interpretable_rationale": "interp",
    "hidden_rationale": "hidden",
}


def vocabulary_entities() -> Mapping[str, Sequence[str]]:
    """Entities of the project vocabulary, when that module is importable (else the generator's defaults)."""
    try:
        from geo_rag_runtime.vocab import load_vocabulary
    except ImportError as exc:
        print(f"vocabulary not available ({exc}); using the generator's default entities")
        return {}
    vocabulary = load_vocabulary()
    return {etype: vocabulary.entities(etype) for etype in vocabulary.types}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-per-type", type=int, default=600)
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--out", type=Path, default=None, help="artifact folder (default: a temporary one)")
    parser.add_argument("--vocabulary", action="store_true", help="fill slots from geo_rag_runtime.vocab")
    parser.add_argument("--latency-runs", type=int, default=300)
    args = parser.parse_args(argv)
    pd.set_option("display.width", 200)
    pd.set_option("display.max_colwidth", 110)

    entities = vocabulary_entities() if args.vocabulary else {}
    started = time.perf_counter()
    train = generate_synthetic_queries(entities, n_per_type=args.n_per_type, seed=args.seed)
    generation_s = time.perf_counter() - started
    test = load_seed_queries()
    version = dataset_version(train)
    print(
        f"synthetic queries: {len(train)} rows ({args.n_per_type} per type), version {version}, "
        f"generated in {generation_s:.2f} s; {train.attrs['generation']}"
    )
    print(f"test split: {len(test)} hand-written questions {test['label'].value_counts().to_dict()}")

    result = train_classifier(train, test, seed=args.seed)
    print(
        f"\ntraining incl. all cross-validations: {result.train_seconds:.1f} s "
        f"({result.n_decontaminated} training rows removed as too close to test questions)\n"
    )
    table = result.comparison.copy()
    print(table.to_string(index=False, float_format=lambda v: f"{v:.4f}"))
    print(
        f"\nbest by stratified CV: {result.cv_winner}; best by template-grouped CV: {result.group_cv_winner}; "
        f"shipped: {result.chosen}"
    )
    print(
        f"\nshipped model on the test split: macro-F1 {result.test_macro_f1:.4f}, accuracy "
        f"{result.test_accuracy:.4f} (asset-check floor {MIN_TEST_MACRO_F1})"
    )
    print(pd.DataFrame(result.per_class).T.to_string(float_format=lambda v: f"{v:.3f}"))
    short = [_SHORT[t] for t in QUERY_TYPES]
    print("\nconfusion matrix (rows = true, columns = predicted)")
    print(pd.DataFrame(result.confusion, index=short, columns=short).to_string())
    print("\nconfidence on the test split")
    print(pd.DataFrame(result.confidence).to_string(index=False))
    print("\nmisclassified test questions")
    for error in result.test_errors:
        print(
            f"  [{_SHORT[error['label']]} -> {_SHORT[error['predicted']]} {error['confidence']:.2f}] {error['query']}"
        )

    with tempfile.TemporaryDirectory() as tmp:
        folder = save_classifier(result, args.out or Path(tmp) / "query_classifier", version)
        started = time.perf_counter()
        classifier = QueryClassifier.load(folder)
        load_ms = (time.perf_counter() - started) * 1000
        questions = test["query"].tolist()
        for question in questions[:20]:  # warm-up
            classifier.predict(question)
        latencies = []
        for i in range(args.latency_runs):
            question = questions[i % len(questions)]
            started = time.perf_counter()
            classifier.predict(question)
            latencies.append((time.perf_counter() - started) * 1000)
        size_kb = (folder / "model.joblib").stat().st_size / 1024
    print(f"\nartifact {size_kb:.0f} KiB; load + SHA-256 check {load_ms:.1f} ms")
    print(
        f"single-question latency over {len(latencies)} runs: p50 {percentile(latencies, 0.5):.2f} ms, "
        f"p95 {percentile(latencies, 0.95):.2f} ms, mean {statistics.fmean(latencies):.2f} ms"
    )
    return 0 if result.test_macro_f1 >= MIN_TEST_MACRO_F1 else 1


if __name__ == "__main__":
    sys.exit(main())
