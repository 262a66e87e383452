"""Extractive vs LLM answers on the same retrieved context, per query type.

    GEO_RAG_HOME=data/home python scripts/compare_generators.py [--per-type 6] [--dataset FILE]

Needs an ingested home and a running local LLM server (``geo-rag llm start``) or another configured
LLM. For the first N questions of each type of the dataset, HybridRAG answers twice with the same
retrieval — ``generator=extractive`` and ``generator=grounded`` — and each answer is scored against
the dataset's reference:

* semantic similarity: MiniLM cosine of answer and reference answer (RAGAS' SemanticSimilarity with
  the same local embeddings);
* evidence coverage: mean over the reference passages of the share of each passage's content words
  found in the answer (how much of the evidence the answer carries);
* abstained: the answer is "Not found in the corpus.";
* for LLM answers, the share of answer sentences the code found supported (from the answer notes).

Prints one row per type and overall, with the time per answer. Numbers are measured, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from geo_rag_runtime.query.grounded import content_words as words  # noqa: E402 - after the offline flag
from geo_rag_runtime.query.grounded import strip_markers  # noqa: E402

_SUPPORTED = re.compile(r"(\d+)/(\d+) answer sentences supported")


def coverage(answer: str, passages: list[str]) -> float:
    got = words(answer)
    shares = [len(words(p) & got) / len(words(p)) for p in passages if words(p)]
    return statistics.fmean(shares) if shares else 0.0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-type", type=int, default=6)
    parser.add_argument("--dataset", default=str(REPO / "data" / "evaluation" / "geochem_qa_v1.jsonl"))
    parser.add_argument("--out", default="", help="also write each answer, its notes and contexts (JSONL)")
    args = parser.parse_args(argv)
    out = Path(args.out).open("w", encoding="utf-8") if args.out else None  # noqa: SIM115 - open for the whole run, closed at exit

    import numpy as np

    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    rows = [json.loads(line) for line in Path(args.dataset).read_text().splitlines() if line.strip()]
    picked: dict[str, list[dict]] = {}
    for row in rows:
        if row.get("answerable", True) and len(picked.setdefault(row["query_type"], [])) < args.per_type:
            picked[row["query_type"]].append(row)
    settings = get_settings()
    services = {
        "extractive": RagService(settings.model_copy(update={"generator": "extractive"})),
        "llm": RagService(settings.model_copy(update={"generator": "grounded"})),
    }
    embedder = services["extractive"].embedder
    results: dict[tuple[str, str], list[dict[str, float]]] = {}
    for qtype, items in picked.items():
        for row in items:
            reference = embedder.embed_query(row["reference_answer"])
            for name, service in services.items():
                started = time.perf_counter()
                answer = service.ask(row["question"], category=qtype)
                elapsed = time.perf_counter() - started
                text = strip_markers(answer.answer)
                supported = [m for n in answer.notes if (m := _SUPPORTED.search(n))]
                score = {
                    "similarity": float(np.dot(embedder.embed_query(text), reference)),
                    "coverage": coverage(text, [p["text"] for p in row["reference_passages"]]),
                    "abstained": float(answer.answer.startswith("Not found")),
                    "by_model": float(answer.generator not in ("extractive",)),
                    "supported": int(supported[0].group(1)) if supported else 0,
                    "sentences": int(supported[0].group(2)) if supported else 0,
                    "seconds": elapsed,
                }
                results.setdefault((qtype, name), []).append(score)
                if out is not None:
                    record = {"id": row["id"], "query_type": qtype, "generator_setting": name, **score}
                    record |= {"question": row["question"], "reference_answer": row["reference_answer"]}
                    record |= answer.model_dump(
                        include={"answer", "generator", "notes", "citations", "contexts"}
                    )
                    out.write(json.dumps(record, ensure_ascii=False) + "\n")
                    out.flush()
            print(f"{row['id']} {qtype}: done", file=sys.stderr)

    print(
        f"{'query type':<24} {'generator':<11} {'n':>3} {'similarity':>10} {'coverage':>9} "
        f"{'abstained':>9} {'by model':>8} {'supported':>10} {'s/answer':>8}"
    )
    for qtype in [*picked, "all"]:
        for name in services:
            cells = [
                r
                for (t, n), rs in results.items()
                if n == name and (t == qtype or qtype == "all")
                for r in rs
            ]
            sentences = sum(r["sentences"] for r in cells)
            supported = f"{sum(r['supported'] for r in cells)}/{sentences}" if sentences else "-"
            print(
                f"{qtype:<24} {name:<11} {len(cells):>3} {statistics.fmean(r['similarity'] for r in cells):>10.3f} "
                f"{statistics.fmean(r['coverage'] for r in cells):>9.3f} {statistics.fmean(r['abstained'] for r in cells):>9.2f} "
                f"{statistics.fmean(r['by_model'] for r in cells):>8.2f} {supported:>10} "
                f"{statistics.fmean(r['seconds'] for r in cells):>8.1f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
