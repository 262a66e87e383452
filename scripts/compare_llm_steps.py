"""Each LLM retrieval step against its deterministic version, on the questions of the type it serves.

    GEO_RAG_HOME=data/home python scripts/compare_llm_steps.py [--steps rephrase,expand,choose]
        [--per-step 0] [--dataset FILE] [--out results.jsonl]

Needs an ingested home and a running local LLM server (``geo-rag llm start``) or another configured LLM.
A step changes retrieval only in the strategy of one query type (docs/method.md#query-types-and-routes),
so each step is measured on the dataset's questions of that type, with the route forced to it and the
extractive generator (the answer is not what is measured here):

=========  ======================  ==========================================================
step       query type              what the LLM does instead of the deterministic version
=========  ======================  ==========================================================
rephrase   implicit_reasoning      writes the multi-query rephrasings
expand     interpretable_rationale writes the expansion keywords
compress   interpretable_rationale keeps the sentences of each passage that bear on the question
choose     hidden_rationale        picks the sources (passages, graph facts) for the answer
=========  ======================  ==========================================================

Per step and version: hit@1/hit@5 and MRR of the final context's chunks against the reference
passages (the evaluation's own partial-ratio match), reference-passage recall, and seconds per
question. ``--per-step N`` limits each step to its first N questions (compression asks the model
once per passage: ~2 minutes per question here). Numbers are measured, not asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

STEP_TYPES = {
    "rephrase": "implicit_reasoning",
    "expand": "interpretable_rationale",
    "compress": "interpretable_rationale",
    "choose": "hidden_rationale",
}
PROMPT_NAMES = {
    "rephrase": "rephrase",
    "expand": "expand",
    "compress": "compress",
    "choose": "choose_sources",
}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", default="rephrase,expand,choose")
    parser.add_argument("--per-step", type=int, default=0, help="0 = every question of the type")
    parser.add_argument("--dataset", default=str(REPO / "data" / "evaluation" / "geochem_qa_v1.jsonl"))
    parser.add_argument("--out", default="", help="also write one JSON line per question and version")
    args = parser.parse_args(argv)

    from geo_assets.evaluation.answering import contexts_of
    from geo_assets.evaluation.retrieval_metrics import hit_at_k, passage_recall, reciprocal_rank
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import get_settings

    rows = [json.loads(line) for line in Path(args.dataset).read_text().splitlines() if line.strip()]
    settings = get_settings().model_copy(update={"generator": "extractive"})
    out = Path(args.out).open("w") if args.out else None  # noqa: SIM115 - open for the whole run, closed at exit
    table: list[tuple[str, str, int, dict[str, float]]] = []
    for step in [s.strip() for s in args.steps.split(",") if s.strip()]:
        qtype = STEP_TYPES[step]
        questions = [r for r in rows if r["query_type"] == qtype and r.get("reference_passages")]
        if args.per_step:
            questions = questions[: args.per_step]
        versions = {
            "deterministic": RagService(settings.model_copy(update={"llm_steps": []})),
            "llm": RagService(settings.model_copy(update={"llm_steps": [step]})),
        }
        if versions["llm"].resources().tools.llm is None:
            print("no LLM available: start one with `geo-rag llm start`", file=sys.stderr)
            return 2
        for version, service in versions.items():
            scores: list[dict[str, float]] = []
            for row in questions:
                passages = [p["text"] for p in row["reference_passages"]]
                started = time.perf_counter()
                answer = service.ask(row["question"], category=qtype)
                seconds = time.perf_counter() - started
                chunks = [c["text"] for c in contexts_of(answer)[0]]
                used_llm = any(p.split("@")[0] == PROMPT_NAMES[step] for p in answer.prompts)
                score = {
                    "hit@1": hit_at_k(passages, chunks, 1),
                    "hit@5": hit_at_k(passages, chunks, 5),
                    "mrr": reciprocal_rank(passages, chunks),
                    "passage_recall": passage_recall(passages, chunks),
                    "asked_llm": float(used_llm),
                    "seconds": seconds,
                }
                scores.append(score)
                if out is not None:
                    record = {"step": step, "version": version, "id": row["id"], **score}
                    out.write(json.dumps({**record, "notes": answer.notes}) + "\n")
                    out.flush()
                print(f"{step} {version} {row['id']}: {score}", file=sys.stderr)
            table.append((step, version, len(scores), _means(scores)))

    print(
        f"{'step':<9} {'version':<14} {'n':>3} {'hit@1':>6} {'hit@5':>6} {'mrr':>6} "
        f"{'recall':>7} {'asked':>6} {'s/q':>6}"
    )
    for step, version, n, m in table:
        print(
            f"{step:<9} {version:<14} {n:>3} {m['hit@1']:>6.3f} {m['hit@5']:>6.3f} {m['mrr']:>6.3f} "
            f"{m['passage_recall']:>7.3f} {m['asked_llm']:>6.2f} {m['seconds']:>6.1f}"
        )
    return 0


def _means(scores: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.fmean(s[key] for s in scores) for key in scores[0]} if scores else {}


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
