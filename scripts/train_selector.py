"""Train the answer-sentence ranker on a home's own papers and save it (no evaluation question used).

    GEO_RAG_HOME=/path/to/home .venv/bin/python scripts/train_selector.py [--out FILE] [--per-kind N]

Without --out it goes to $GEO_RAG_HOME/models/answer_selector.json, where `geo-rag ask` and `serve`
find it; the packaged default (geo_rag_runtime/query/answer_selector.json) is this script's output
on a home that ingested data/papers. The Dagster asset ``answer_selector`` does the same.
"""

import argparse
import json
import time
from pathlib import Path

from geo_assets.answers.selector_training import train_for_home
from geo_rag_runtime.query.selector import SELECTOR_FILE
from geo_rag_runtime.settings import get_settings


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--per-kind", type=int, default=150)
    args = parser.parse_args()
    settings = get_settings(local_llm=False)
    started = time.perf_counter()
    model = train_for_home(settings, per_kind=args.per_kind, log=print)
    out = args.out or settings.path("models") / SELECTOR_FILE
    model.save(out)
    print(json.dumps(model.meta, indent=1))
    print("weights:", {f: round(float(w), 3) for f, w in zip(model.features, model.coef, strict=True)})
    print(f"saved {out} in {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
