"""Train the answer-sentence ranker and save it (no evaluation question is used).

    GEO_RAG_HOME=<home> .venv/bin/python scripts/train_selector.py --written [--fold K] [--out FILE]
    GEO_RAG_HOME=<home> .venv/bin/python scripts/train_selector.py --templates [--per-kind N] [--out FILE]

``--written`` fits on the hand-written questions (data/selector/written_questions_v1.jsonl); the home
must have ingested the 17 corpus papers they were written for. The packaged default
(geo_rag_runtime/query/answer_selector.json) is this command's output. ``--fold K`` (0 or 1) leaves
out the questions about every other paper (file names sorted, from the K-th), so that
scripts/bench_selector.py --fold K scores the ranker on questions about papers it never trained on.

``--templates`` fits on template questions written from the home's own papers (what the
``answer_selector`` asset does with ``GEO_RAG_ANSWER_SELECTOR=home``). Without --out the model goes to
$GEO_RAG_HOME/models/answer_selector.json.
"""

import argparse
import json
import time
from pathlib import Path

from geo_assets.answers.selector_training import (
    WRITTEN_QUESTIONS,
    fold_papers,
    train_for_home,
    train_written,
)
from geo_rag_runtime.query.selector import SELECTOR_FILE
from geo_rag_runtime.settings import get_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--written", nargs="?", type=Path, const=WRITTEN_QUESTIONS, default=None)
    source.add_argument("--templates", action="store_true")
    parser.add_argument("--fold", type=int, choices=(0, 1), default=None)
    parser.add_argument("--per-kind", type=int, default=150)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    settings = get_settings(local_llm=False)
    started = time.perf_counter()
    if args.written is not None:
        leave_out = fold_papers(args.written, args.fold) if args.fold is not None else []
        model = train_written(settings, args.written, leave_out=leave_out, log=print)
    else:
        model = train_for_home(settings, per_kind=args.per_kind, log=print)
    out = args.out or settings.path("models") / SELECTOR_FILE
    model.save(out)
    print(json.dumps(model.meta, indent=1))
    print("weights:", {f: round(float(w), 3) for f, w in zip(model.features, model.coef, strict=True)})
    print(f"saved {out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
