"""Router accuracy and calibration on hand-written questions the query classifier never trained on.

    GEO_RAG_HOME=data/home python scripts/bench_router.py [--model DIR] [--sets dev,corpus,corpus_heldout,corpus_values,heldout]

The classifier is trained on synthetic template questions (``synthetic_queries``) and the written
training questions; the sets here were never used for training: ``dev``, ``corpus`` and
``corpus_heldout`` were written by people reading the papers (the last by a later writer;
``corpus_values``, 40 questions asking for a number, all ``explicit_fact``, by another),
``heldout`` (``data/evaluation/router_heldout_v1.csv``) is 600 general questions by two writers
from the four type definitions alone. So this is the accuracy a user's
question meets. Prints, per set: accuracy, macro-F1, the mean confidence and the expected calibration
error (10 equal-width bins: how far the reported confidence is from the accuracy at that
confidence), accuracy per true type, the confusion matrix, and accuracy on each side of the
confidence floor (below it the router falls back to the hybrid strategy,
``classifier_min_confidence``).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def calibration_error(confidences: list[float], correct: list[bool], bins: int = 10) -> float:
    """Expected calibration error: the share-weighted gap between confidence and accuracy per bin."""
    total = 0.0
    for b in range(bins):
        members = [
            i for i, c in enumerate(confidences) if b / bins < c <= (b + 1) / bins or (b == 0 and c == 0)
        ]
        if members:
            accuracy = statistics.fmean(correct[i] for i in members)
            confidence = statistics.fmean(confidences[i] for i in members)
            total += len(members) / len(confidences) * abs(accuracy - confidence)
    return total


def load_set(name: str) -> list[tuple[str, str]]:
    """(question, labelled type) of an evaluation set, or of the router's held-out set."""
    if name == "heldout":
        from geo_assets.queries.synthetic_queries import load_router_heldout

        frame = load_router_heldout()
        return list(zip(frame["query"], frame["label"], strict=True))
    from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset

    return [(q.question, q.query_type) for q in load_eval_dataset(resolve_dataset(name))]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="", help="classifier folder (default: the home's)")
    parser.add_argument("--sets", default="dev,corpus,corpus_heldout,corpus_values,heldout")
    args = parser.parse_args(argv)

    from sklearn.metrics import f1_score

    from geo_rag_runtime.models import QUERY_TYPES
    from geo_rag_runtime.router.model import QueryClassifier, default_artifact_dir
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    model = QueryClassifier.load(Path(args.model) if args.model else default_artifact_dir(settings))
    floor = settings.classifier_min_confidence
    short = {t: t.split("_")[0][:8] for t in QUERY_TYPES}
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        questions = load_set(name)
        truth = [label for _, label in questions]
        predicted = [model.predict(question) for question, _ in questions]
        labels = [p.label for p in predicted]
        right = [t == p for t, p in zip(truth, labels, strict=True)]
        confidences = [p.confidence for p in predicted]
        confident = [(r, c >= floor) for r, c in zip(right, confidences, strict=True)]
        print(f"\n{name}: {len(questions)} hand-written questions")
        print(
            f"  accuracy {sum(right) / len(right):.3f}   macro-F1 {f1_score(truth, labels, average='macro'):.3f}"
            f"   mean confidence {statistics.fmean(confidences):.3f}"
            f"   calibration error {calibration_error(confidences, right):.3f}"
        )
        kept = [r for r, c in confident if c]
        below = [r for r, c in confident if not c]
        print(
            f"  confident (≥ {floor}): {len(kept)}/{len(right)} questions, accuracy {sum(kept) / max(1, len(kept)):.3f};"
            f" below: {len(below)}, accuracy {sum(below) / max(1, len(below)):.3f}"
        )
        print("  per true type: " + ", ".join(
            f"{short[t]} {sum(r for r, x in zip(right, truth, strict=True) if x == t)}/{truth.count(t)}"
            for t in QUERY_TYPES
        ))  # fmt: skip
        pairs = Counter(zip(truth, labels, strict=True))
        print(
            "  confusion (rows true, columns predicted): " + " ".join(f"{short[t]:>8}" for t in QUERY_TYPES)
        )
        for t in QUERY_TYPES:
            print(f"  {short[t]:>41} " + " ".join(f"{pairs[(t, p)]:>8}" for p in QUERY_TYPES))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
