"""Router accuracy on hand-written questions: the query classifier against the evaluation sets' labels.

    GEO_RAG_HOME=data/home python scripts/bench_router.py [--model DIR] [--sets dev,corpus]

The classifier is trained on synthetic template questions (``synthetic_queries``); the evaluation
sets were written by people reading the papers and never used for training, so this is the accuracy
a user's question meets. Prints, per set: accuracy, macro-F1, accuracy per true type, the confusion
matrix, and accuracy when only confident predictions count (below the confidence floor the router
falls back to the hybrid strategy, ``classifier_min_confidence``).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--model", default="", help="classifier folder (default: the home's)")
    parser.add_argument("--sets", default="dev,corpus")
    args = parser.parse_args(argv)

    from sklearn.metrics import f1_score

    from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset
    from geo_rag_runtime.classifier import QueryClassifier, default_artifact_dir
    from geo_rag_runtime.models import QUERY_TYPES
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    model = QueryClassifier.load(Path(args.model) if args.model else default_artifact_dir(settings))
    floor = settings.classifier_min_confidence
    short = {t: t.split("_")[0][:8] for t in QUERY_TYPES}
    for name in [s.strip() for s in args.sets.split(",") if s.strip()]:
        questions = load_eval_dataset(resolve_dataset(name))
        truth = [q.query_type for q in questions]
        predicted = [model.predict(q.question) for q in questions]
        labels = [p.label for p in predicted]
        right = [t == p for t, p in zip(truth, labels, strict=True)]
        confident = [(r, p.confidence >= floor) for r, p in zip(right, predicted, strict=True)]
        print(f"\n{name}: {len(questions)} hand-written questions")
        print(
            f"  accuracy {sum(right) / len(right):.3f}   macro-F1 {f1_score(truth, labels, average='macro'):.3f}"
        )
        kept = [r for r, c in confident if c]
        print(
            f"  confident (≥ {floor}): {len(kept)}/{len(right)} questions, accuracy {sum(kept) / max(1, len(kept)):.3f}"
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
