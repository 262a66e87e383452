"""Benchmark entity recognition, triple extraction, graph load and subgraph queries on real papers.

    python scripts/bench_graph.py [PDF or folder ...] [--sample 50] [--seed 7] [--json out.json]

Text comes from the project pipeline (pdf_to_tei → tei_to_paper → clean_paper → chunk_paper). It prints per
paper: chunks, entities, triples by relation; load/reload/delete timings and store counts checked against
the input; subgraph and retriever timings at depth 1 and 2; and, with --sample, a seeded random sample of
triples with their sentences for judging precision by hand.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

from geo_assets.graph.extraction import extract_triples
from geo_assets.ingest.pipeline import chunks_from_pdf
from geo_rag_runtime.models import Chunk, Triple
from geo_rag_runtime.retrieval.graph import GraphRetriever
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.graph import LadybugGraphStore
from geo_rag_runtime.vocab import recognize

QUESTIONS = [
    "Which minerals were dated by U–Pb?",
    "Why do the basalts show crustal contamination?",
    "What is the εNd of the felsic rocks?",
    "How does fractional crystallization affect SiO2 and MgO?",
    "What do zircon Hf and O isotopes indicate?",
]


def _pipeline_chunks(pdf: Path) -> tuple[dict[str, str], list[Chunk]]:
    paper, chunks = chunks_from_pdf(pdf, get_settings())
    return {"paper_id": paper.paper_id, "title": paper.title, "source_file": pdf.name}, chunks


def _timed(fn: Any, *args: Any, repeat: int = 1) -> tuple[Any, float]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = fn(*args)
        times.append((time.perf_counter() - start) * 1000)
    return result, statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("paths", nargs="*", type=Path, default=[Path("data/papers")])
    parser.add_argument("--sample", type=int, default=0, help="print N random triples for judging precision")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument(
        "--rules-only", action="store_true", help="sample only rule triples (no vocabulary facts)"
    )
    parser.add_argument("--json", type=Path, help="write the measurements here")
    args = parser.parse_args(argv)

    pdfs = sorted(p for path in args.paths for p in ([path] if path.is_file() else path.glob("*.pdf")))
    report: dict[str, Any] = {"papers": {}, "source": None}
    corpus: list[tuple[dict[str, str], list[Chunk], list[Triple]]] = []
    for pdf in pdfs:
        start = time.perf_counter()
        report["source"] = "pipeline"
        paper, chunks = _pipeline_chunks(pdf)
        text_s = time.perf_counter() - start
        entities = {(e.name, e.type) for c in chunks for e in recognize(c.text)}
        triples, extract_ms = _timed(extract_triples, chunks)
        rels = Counter(t.relation for t in triples)
        structural = sum(1 for t in triples if t.attributes.get("rule") == "vocabulary")
        report["papers"][pdf.name] = {
            "chunks": len(chunks),
            "entities_recognized": len(entities),
            "entities_in_triples": len({t.head for t in triples} | {t.tail for t in triples}),
            "triples": len(triples),
            "structural": structural,
            "by_relation": dict(rels.most_common()),
            "text_s": round(text_s, 2),
            "extract_ms": round(extract_ms, 1),
        }
        print(
            f"{pdf.name}: {len(chunks)} chunks, {len(entities)} distinct entities, {len(triples)} triples "
            f"({structural} vocabulary, {len(triples) - structural} rules) in {extract_ms:.0f} ms"
        )
        corpus.append((paper, chunks, triples))
    print(f"text source: {report['source']}")

    with tempfile.TemporaryDirectory() as tmp:
        store = LadybugGraphStore(Path(tmp) / "graph.lbug", keep_open=True)
        store.ensure_schema()
        loads = []
        for paper, chunks, triples in corpus:
            _, ms = _timed(store.load, paper, chunks, triples)
            loads.append(ms)
        counts = store.counts()
        all_triples = [t for _, _, ts in corpus for t in ts]
        expected_facts = len({t.triple_id for t in all_triples})
        expected_entities = len({t.head for t in all_triples} | {t.tail for t in all_triples})
        ok = counts["facts"] == expected_facts and counts["entities"] == expected_entities
        _, reload_ms = _timed(store.load, *corpus[0])
        ok = ok and store.counts() == counts
        print(
            f"load: {sum(loads):.0f} ms for {len(corpus)} papers ({statistics.median(loads):.0f} ms median), "
            f"reload {reload_ms:.0f} ms; counts {counts}; match input: {ok}"
        )
        report["load"] = {
            "total_ms": round(sum(loads), 1),
            "per_paper_ms": [round(x, 1) for x in loads],
            "reload_ms": round(reload_ms, 1),
            "counts": counts,
            "counts_match_input": ok,
        }
        report["subgraph"] = {}
        for entity in ("zircon", "U–Pb", "basalt", "Sr", "crustal contamination"):
            for depth in (1, 2):
                facts, ms = _timed(store.subgraph, [entity], depth, 1000, repeat=5)
                report["subgraph"][f"{entity}@{depth}"] = {"facts": len(facts), "median_ms": round(ms, 2)}
                print(f"subgraph {entity!r} depth {depth}: {len(facts)} facts, {ms:.1f} ms (median of 5)")
        retriever = GraphRetriever(store)
        report["retriever"] = {}
        for question in QUESTIONS:
            items, ms = _timed(retriever.retrieve, question, repeat=3)
            report["retriever"][question] = {
                "facts": len(items),
                "median_ms": round(ms, 2),
                "top": [i.text for i in items[:3]],
            }
            print(
                f"retrieve {question!r}: {len(items)} facts in {ms:.1f} ms; top {[i.text for i in items[:3]]}"
            )
        _, delete_ms = _timed(store.delete_paper, corpus[0][0]["paper_id"])
        print(f"delete_paper: {delete_ms:.0f} ms")
        report["delete_ms"] = round(delete_ms, 1)
        store.close()

    if args.sample:
        pool = [t for t in all_triples if not args.rules_only or t.attributes.get("rule") != "vocabulary"]
        rng = random.Random(args.seed)
        sample = rng.sample(pool, min(args.sample, len(pool)))
        print(f"\n{len(sample)} triples sampled with seed {args.seed} from {len(pool)}:")
        for i, t in enumerate(sample, 1):
            print(
                f"[{i}] ({t.head} | {t.relation} | {t.tail}) conf={t.confidence} rule={t.attributes.get('rule')}"
            )
            print(f"     {t.sentence}")
        report["sample"] = [t.model_dump() for t in sample]
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
