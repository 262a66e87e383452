"""How well does the answer carry the evidence? Sentence rankers and answer lengths compared.

    GEO_RAG_HOME=<home> .venv/bin/python scripts/bench_selector.py --dataset corpus [--dataset dev ...]
        [--selector FILE ...] [--fold K] [--json OUT]

Each question's context is retrieved once (hybrid, as served); then every variant writes the
extractive answer from that same context: ``relevance`` (MiniLM cosine + entity/keyword overlap, the
ranking before the learned selector), each ``--selector`` file (default: the ranker the service
serves). Printed per set and query type: answer
evidence recall, reference numbers stated, false abstention, semantic similarity to the reference
answer (the packaged MiniLM) and ms per generation (the selector's cost, the floor being
``relevance`` in the same run). Nothing here is tuned on: it reads the hand-written sets only to score.

``--fold K`` scores only the questions whose first paper is in fold K of the written training questions
(scripts/train_selector.py --written --fold K trains a ranker without them): a ranker scored on
questions about papers it never trained on.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from geo_assets.evaluation.answer_metrics import answer_evidence_recall, reference_numbers_stated
from geo_assets.evaluation.dataset import load_eval_dataset, resolve_dataset
from geo_rag_runtime.query.generation import NOT_FOUND, ExtractiveGenerator
from geo_rag_runtime.query.pipeline import generate_answer, retrieve_context
from geo_rag_runtime.query.selector import load_selector
from geo_rag_runtime.service import RagService
from geo_rag_runtime.settings import get_settings


def _variants(service: RagService, files: list[Path]) -> dict[str, Any]:
    """``relevance``, then each file; without files the ranker the service serves (the setting
    ``answer_selector`` picks it)."""
    out: dict[str, Any] = {"relevance": None}
    if not files:
        out[f"learned:served ({service.settings.answer_selector})"] = service.selector()
    for path in files:
        out[f"learned:{path.name}"] = load_selector(path)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", action="append", default=[])
    parser.add_argument("--selector", action="append", type=Path, default=[])
    parser.add_argument("--fold", type=int, choices=(0, 1), default=None)
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    fold = None
    if args.fold is not None:
        from geo_assets.answers.selector_training import WRITTEN_QUESTIONS, fold_papers

        fold = set(fold_papers(WRITTEN_QUESTIONS, args.fold))
    settings = get_settings(local_llm=False, generator="extractive")
    service = RagService(settings, llm=None)
    variants = _variants(service, args.selector)
    embed = service.embedder
    report: dict[str, Any] = {}
    for name in args.dataset or ["dev"]:
        questions = load_eval_dataset(resolve_dataset(name))
        if fold is not None:
            questions = [q for q in questions if q.papers and q.papers[0] in fold]
        rows: dict[str, list[dict[str, Any]]] = defaultdict(list)
        for q in questions:
            got, tools = retrieve_context(q.question, service.resources, settings, mode="hybrid")
            passages = [p.text for p in q.reference_passages]
            for label, selector in variants.items():
                tools.selector = selector
                started = time.perf_counter()
                generation = generate_answer(got.question, got.bundle, got.route.category, tools, [], None)
                ms = (time.perf_counter() - started) * 1000
                answer = generation.answer
                scored = ExtractiveGenerator(tools.scorer, selector=selector).scored_candidates(
                    got.question.text, got.bundle
                )
                a, r = embed.embed_documents([answer, q.reference_answer])
                rows[label].append(
                    {
                        "id": q.id,
                        "type": q.query_type,
                        "answerable": q.answerable,
                        "recall": answer_evidence_recall(answer, passages, q.answerable).value,
                        "numbers": reference_numbers_stated(answer, q.reference_answer, q.answerable).value,
                        "abstained": answer.startswith(NOT_FOUND),
                        "similarity": float(np.dot(a, r)),
                        "ms": ms,
                        "words": len(answer.split()),
                        # what an abstention threshold could read: the best candidate's relevance
                        # and rank (the selector's probability), whatever the answer was
                        "best_score": max((c.score for c in scored), default=0.0),
                        "best_rank": max((c.rank for c in scored), default=0.0),
                        "evidence_check": generation.generator == "evidence_check",
                    }
                )
        report[name] = rows
        _print(name, rows)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


def _mean(values: list[float]) -> str:
    values = [v for v in values if v == v]  # NaN: undefined for that question
    return f"{statistics.fmean(values):.3f}" if values else "–"


def _print(name: str, rows: dict[str, list[dict[str, Any]]]) -> None:
    print(f"\n## {name}")
    print(
        "| variant | type | n | answer evidence recall | numbers stated | false abstention | similarity | words | ms p50 |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for label, items in rows.items():
        types = sorted({i["type"] for i in items}) + ["all"]
        for t in types:
            scope = [i for i in items if t in ("all", i["type"]) and i["answerable"]]
            if not scope:
                continue
            print(
                f"| {label} | {t} | {len(scope)} | {_mean([i['recall'] for i in scope])} | "
                f"{_mean([i['numbers'] for i in scope])} | {_mean([float(i['abstained']) for i in scope])} | "
                f"{_mean([i['similarity'] for i in scope])} | {_mean([i['words'] for i in scope])} | "
                f"{statistics.median(i['ms'] for i in scope):.0f} |"
            )


if __name__ == "__main__":
    main()
