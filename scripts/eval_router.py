"""Router accuracy and calibration on hand-written questions it never trained on.

    GEO_RAG_HOME=/path/to/home python scripts/eval_router.py

Measures the served query classifier (the home's materialized ``query_classifier``) on three
hand-written sets: the 186 corpus questions, the 78 dev questions and the 600 general questions of
``data/evaluation/router_heldout_v1.csv`` (two writers, 300 each, written from the four type
definitions only; none in any training set). Per set it prints accuracy (overall and per type), the
mean confidence, the expected calibration error (10 equal-width bins; how far the reported
confidence is from the accuracy at that confidence) and how many questions fall below the
confidence floor (``classifier_min_confidence``: those take the fallback route), with the accuracy
on each side of it. Numbers are printed, not asserted.
"""

from __future__ import annotations

import csv
import os
import statistics
import sys
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ROOT = Path(__file__).resolve().parents[1]
HELDOUT = ROOT / "data" / "evaluation" / "router_heldout_v1.csv"


def calibration_error(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """Expected calibration error: the share-weighted gap between confidence and accuracy per bin."""
    total = 0.0
    for b in range(bins):
        lo, hi = b / bins, (b + 1) / bins
        members = [i for i, c in enumerate(confidences) if lo < c <= hi or (b == 0 and c == 0)]
        if members:
            accuracy = statistics.fmean(correct[i] for i in members)
            confidence = statistics.fmean(confidences[i] for i in members)
            total += len(members) / len(confidences) * abs(accuracy - confidence)
    return total


def main() -> int:
    from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset
    from geo_rag_runtime.classifier import get_classifier
    from geo_rag_runtime.models import QUERY_TYPES
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    classifier = get_classifier(settings)
    with HELDOUT.open(encoding="utf-8", newline="") as handle:
        heldout = [(row["query"], row["label"]) for row in csv.DictReader(handle)]
    sets: dict[str, list[tuple[str, str]]] = {
        "corpus": [(q.question, q.query_type) for q in load_eval_dataset(resolve_dataset("corpus"))],
        "dev": [(q.question, q.query_type) for q in load_eval_dataset(resolve_dataset("dev"))],
        "router_heldout_v1": heldout,
    }
    floor = settings.classifier_min_confidence
    print(f"classifier {classifier.model_version}; confidence floor {floor}")
    print(
        f"{'set':<18} {'n':>4} {'accuracy':>8} "
        + " ".join(f"{t[:12]:>12}" for t in QUERY_TYPES)
        + f" {'mean conf':>9} {'ECE':>6} {'below floor (acc)':>18} {'above (acc)':>12}"
    )
    for name, rows in sets.items():
        decisions = [classifier.predict(question) for question, _ in rows]
        correct = [d.label == label for d, (_, label) in zip(decisions, rows, strict=True)]
        confidences = [d.confidence for d in decisions]
        per_type = []
        for query_type in QUERY_TYPES:
            hits = [c for c, (_, label) in zip(correct, rows, strict=True) if label == query_type]
            per_type.append(f"{statistics.fmean(hits):12.3f}" if hits else f"{'-':>12}")
        below = [c for c, d in zip(correct, decisions, strict=True) if not d.confident]
        above = [c for c, d in zip(correct, decisions, strict=True) if d.confident]
        below_text = f"{len(below)} ({statistics.fmean(below):.2f})" if below else "0"
        above_text = f"{len(above)} ({statistics.fmean(above):.2f})" if above else "0"
        print(
            f"{name:<18} {len(rows):>4} {statistics.fmean(correct):>8.3f} "
            + " ".join(per_type)
            + f" {statistics.fmean(confidences):>9.3f} {calibration_error(confidences, correct):>6.3f}"
            + f" {below_text:>18} {above_text:>12}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
