"""The LLM triple extractor against the rules, on the same chunks: triples, cost, and a labelling sheet.

    python scripts/compare_triple_extractors.py extract [--chunks 12] [--papers data/papers]
        [--sample 50] [--out /tmp/triples]
    python scripts/compare_triple_extractors.py score /tmp/triples/labels.csv

``extract`` needs a running local LLM server (``geo-rag llm start``) or another configured LLM. It
chunks the PDFs as ingest does, picks ``--chunks`` chunks spread over the papers (stable: ordered
by the SHA-256 of the chunk id), runs both extractors on each (the vocabulary-structural triples,
which both add the same way, are left out), times them per chunk, and writes

* ``triples.jsonl``: every triple of both extractors with its evidence sentence;
* ``labels.csv``: up to ``--sample`` triples of each extractor (stable sample), shuffled together with
  the extractor hidden, and an empty ``correct`` column for a person to fill: 1 when the sentence
  states the relation between head and tail, 0 when it does not.

``score`` reads the filled sheet and prints precision per extractor with a Wilson 95 % interval.
Numbers are measured, not asserted.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")


def _stable(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def extract(args: argparse.Namespace) -> int:
    from geo_assets.graph.extraction import LLMTripleExtractor, extract_chunk_triples
    from geo_assets.ingest.pipeline import chunks_from_pdf
    from geo_rag_runtime.llm import get_llm
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    llm = get_llm(settings)
    if llm is None:
        print("no LLM available: start one with `geo-rag llm start`", file=sys.stderr)
        return 2
    per_paper = []
    for pdf in sorted(Path(args.papers).glob("*.pdf")):
        _, chunks = chunks_from_pdf(pdf, settings)
        per_paper.append(sorted(chunks, key=lambda c: _stable(c.chunk_id)))
    picked = []
    while len(picked) < args.chunks and any(per_paper):
        for chunks in per_paper:
            if chunks and len(picked) < args.chunks:
                picked.append(chunks.pop(0))
    llm_extractor = LLMTripleExtractor(llm)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    rows, seconds = [], {"rules": [], "llm": []}
    failures = 0
    for chunk in picked:
        started = time.perf_counter()
        rules = [t for t in extract_chunk_triples(chunk) if t.attributes.get("rule") != "vocabulary"]
        seconds["rules"].append(time.perf_counter() - started)
        started = time.perf_counter()
        try:
            llm_triples = llm_extractor.extract_chunk(chunk)
        except Exception as exc:  # counted and reported: the ingest falls back to the rules here
            failures += 1
            llm_triples = []
            print(f"{chunk.chunk_id}: LLM failed: {exc}", file=sys.stderr)
        seconds["llm"].append(time.perf_counter() - started)
        for name, triples in (("rules", rules), ("llm", llm_triples)):
            for t in triples:
                rows.append(
                    {
                        "extractor": name,
                        "chunk_id": t.chunk_id,
                        "head": t.head,
                        "relation": t.relation,
                        "tail": t.tail,
                        "sentence": t.sentence,
                        "verified": t.attributes.get("evidence_verified"),
                    }
                )
        print(f"{chunk.chunk_id}: rules {len(rules)}, llm {len(llm_triples)}", file=sys.stderr)
    with (out / "triples.jsonl").open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    sheet = []
    for name in ("rules", "llm"):
        mine = sorted((r for r in rows if r["extractor"] == name), key=lambda r: _stable(json.dumps(r)))
        sheet += mine[: args.sample]
    sheet.sort(key=lambda r: _stable(r["head"] + r["relation"] + r["tail"] + r["sentence"]))
    with (out / "labels.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["n", "head", "relation", "tail", "sentence", "correct"])
        for n, r in enumerate(sheet, 1):
            writer.writerow([n, r["head"], r["relation"], r["tail"], r["sentence"], ""])
    with (out / "key.csv").open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["n", "extractor"])
        for n, r in enumerate(sheet, 1):
            writer.writerow([n, r["extractor"]])
    print(f"{'extractor':<9} {'chunks':>6} {'triples':>7} {'per chunk':>9} {'s/chunk':>8} {'failed':>6}")
    for name in ("rules", "llm"):
        count = sum(1 for r in rows if r["extractor"] == name)
        print(
            f"{name:<9} {len(picked):>6} {count:>7} {count / max(1, len(picked)):>9.2f} "
            f"{statistics.fmean(seconds[name]):>8.2f} {failures if name == 'llm' else 0:>6}"
        )
    print(f"labelling sheet: {out / 'labels.csv'} ({len(sheet)} triples; key in key.csv)")
    return 0


def _wilson(k: int, n: int) -> tuple[float, float]:
    if n == 0:
        return (math.nan, math.nan)
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def score(args: argparse.Namespace) -> int:
    labels = Path(args.labels)
    with labels.open(encoding="utf-8") as handle:
        marks = {row["n"]: row["correct"].strip() for row in csv.DictReader(handle)}
    with (labels.parent / "key.csv").open(encoding="utf-8") as handle:
        key = {row["n"]: row["extractor"] for row in csv.DictReader(handle)}
    print(f"{'extractor':<9} {'labelled':>8} {'correct':>7} {'precision':>9} {'95% CI':>15}")
    for name in ("rules", "llm"):
        values = [int(marks[n]) for n, e in key.items() if e == name and marks.get(n) in ("0", "1")]
        k, n = sum(values), len(values)
        low, high = _wilson(k, n)
        print(f"{name:<9} {n:>8} {k:>7} {k / max(1, n):>9.3f} {f'[{low:.2f}, {high:.2f}]':>15}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("extract")
    ex.add_argument("--chunks", type=int, default=12)
    ex.add_argument("--papers", default=str(REPO / "data" / "papers"))
    ex.add_argument("--sample", type=int, default=50)
    ex.add_argument("--out", default="triples-comparison")
    sc = sub.add_parser("score")
    sc.add_argument("labels")
    args = parser.parse_args(argv)
    return extract(args) if args.command == "extract" else score(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
