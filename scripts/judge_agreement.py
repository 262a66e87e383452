"""Does the judge agree with a person? RAGAS Faithfulness from the configured judge vs hand labels.

    GEO_RAG_HOME=data/home python scripts/judge_agreement.py judge answers.jsonl --out DIR [--per-type 3]
    python scripts/judge_agreement.py score DIR/judged.jsonl DIR/labels.jsonl

``answers.jsonl`` is what ``scripts/compare_generators.py --out`` writes (each answer with its
contexts). ``judge`` takes ``--per-type`` questions of each type (stable: ordered by the SHA-256 of
the id), both generators' answers of each, scores their faithfulness with the judge the evaluation
would use (``GEO_RAG_JUDGE_MODEL``, else the local server) and writes

* ``judged.jsonl``: key (question id + generator), the judge's faithfulness, seconds;
* ``sheet.md``: for a person, each answer split into sentences (citation markers removed) under its
  numbered contexts, the generator hidden.

A person writes ``labels.jsonl``: ``{"key": ..., "sentences": [1, 0, ...]}`` — 1 when the retrieved
contexts support the sentence, 0 when not. Human faithfulness = supported / sentences, the same
quantity RAGAS estimates with statements instead of sentences. ``score`` prints, per generator and
overall, the mean of both, the mean absolute difference, Spearman's rank correlation, and agreement
on "fully faithful" (human 1.0 vs judge ≥ 0.99) and on "mostly faithful" (≥ 0.5).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import re
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")

_MARKERS = re.compile(r"\s*\[(?:[VG]\d+(?:\s*[,;]\s*[VG]?\d+)*)\]")


def _contexts(record: dict) -> list[str]:
    from geo_assets.evaluation.answering import fact_text

    contexts = record["contexts"]
    chunks = [c["text"] for c in contexts["VectorRAG_Context"].values()]
    facts = [fact_text(f) for f in contexts["GraphRAG_Context"].values()]
    return [t for t in chunks + facts if t and t.strip()]


def judge(args: argparse.Namespace) -> int:
    from geo_assets.evaluation.metric_specs import EvalSample
    from geo_assets.evaluation.metric_suite import MetricSuite
    from geo_assets.evaluation.ragas_adapters import build_judge_llm, resolve_judge
    from geo_rag_runtime.query.grounded import split_answer
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    target = resolve_judge(settings)
    if isinstance(target, str):
        print(f"no judge: {target}", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in Path(args.answers).read_text().splitlines() if line.strip()]
    ids: dict[str, list[str]] = {}
    for rid in sorted({r["id"] for r in records}, key=lambda i: hashlib.sha256(i.encode()).hexdigest()):
        qtype = next(r["query_type"] for r in records if r["id"] == rid)
        if len(ids.setdefault(qtype, [])) < args.per_type:
            ids[qtype].append(rid)
    chosen = [r for r in records if any(r["id"] in v for v in ids.values())]
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    llm, caching = build_judge_llm(settings, out / "judge_cache", target=target)
    suite = MetricSuite(judge_llm=llm, judged_metrics=frozenset({"faithfulness"}), judge_concurrency=1)
    sheet = [f"# Faithfulness labels ({len(chosen)} answers)\n"]
    for n, record in enumerate(chosen, 1):  # the sheet first: a person can label while the judge runs
        key = f"{record['id']}/{record['generator_setting']}"
        answer = _MARKERS.sub("", record["answer"]).strip()
        sheet.append(f"\n## Answer {n} — key `{key}`\n\n**Question:** {record['question']}\n")
        sheet += [f"\n**Context {i}:** {text}\n" for i, text in enumerate(_contexts(record))]
        sheet.append("\n**Answer sentences:**\n")
        sheet += [f"{i}. {s}\n" for i, s in enumerate(split_answer(answer), 1)]
    (out / "sheet.md").write_text("".join(sheet), encoding="utf-8")
    if args.sheet_only:
        return 0
    with (out / "judged.jsonl").open("w", encoding="utf-8") as handle:
        for record in chosen:
            key = f"{record['id']}/{record['generator_setting']}"
            answer = _MARKERS.sub("", record["answer"]).strip()
            contexts = _contexts(record)
            sample = EvalSample(
                record["id"], record["query_type"], "hybrid", record["question"], answer,
                tuple(contexts), (), record["reference_answer"], (), (),
            )  # fmt: skip
            started = time.perf_counter()
            value = next(v for v in suite.score([sample])[0] if v.metric == "faithfulness")
            seconds = time.perf_counter() - started
            handle.write(
                json.dumps(
                    {
                        "key": key,
                        "faithfulness": value.value,
                        "status": value.status,
                        "reason": value.reason,
                        "seconds": round(seconds, 1),
                    }
                )  # fmt: skip
                + "\n"
            )
            handle.flush()
            print(f"{key}: {value.value} ({value.status}) {seconds:.0f}s", file=sys.stderr)
    print(f"judge {target.name}: {caching.misses} requests sent, {caching.hits} from cache", file=sys.stderr)
    return 0


def _spearman(x: list[float], y: list[float]) -> float:
    def ranks(v: list[float]) -> list[float]:
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(order):
            j = i
            while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2
            i = j + 1
        return r

    rx, ry = ranks(x), ranks(y)
    if len(x) < 3 or statistics.pstdev(rx) == 0 or statistics.pstdev(ry) == 0:
        return math.nan
    return statistics.correlation(rx, ry)


def score(args: argparse.Namespace) -> int:
    judged = {
        r["key"]: r
        for r in map(json.loads, Path(args.judged).read_text().splitlines())
        if r["status"] == "ok"
    }
    labels = {r["key"]: r["sentences"] for r in map(json.loads, Path(args.labels).read_text().splitlines())}
    pairs = [
        (key.split("/")[1], sum(marks) / len(marks), judged[key]["faithfulness"])
        for key, marks in labels.items()
        if key in judged and marks
    ]
    print(
        f"{'generator':<11} {'n':>3} {'human':>6} {'judge':>6} {'|diff|':>6} {'spearman':>8} "
        f"{'agree=1':>7} {'agree≥.5':>8}"
    )
    for name in [*sorted({p[0] for p in pairs}), "all"]:
        rows = [p for p in pairs if name in ("all", p[0])]
        if not rows:
            continue
        human, model = [r[1] for r in rows], [r[2] for r in rows]
        full = statistics.fmean((h == 1.0) == (m >= 0.99) for h, m in zip(human, model, strict=True))
        half = statistics.fmean((h >= 0.5) == (m >= 0.5) for h, m in zip(human, model, strict=True))
        diff = statistics.fmean(abs(h - m) for h, m in zip(human, model, strict=True))
        print(
            f"{name:<11} {len(rows):>3} {statistics.fmean(human):>6.3f} {statistics.fmean(model):>6.3f} "
            f"{diff:>6.3f} {_spearman(human, model):>8.3f} {full:>7.2f} {half:>8.2f}"
        )
    missing = sorted(set(labels) - set(judged))
    if missing:
        print(f"labelled but not judged (not yet, or the judge failed): {', '.join(missing)}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    j = sub.add_parser("judge")
    j.add_argument("answers")
    j.add_argument("--out", default="judge-agreement")
    j.add_argument("--per-type", type=int, default=3)
    j.add_argument("--sheet-only", action="store_true", help="write the labelling sheet, judge nothing")
    s = sub.add_parser("score")
    s.add_argument("judged")
    s.add_argument("labels")
    args = parser.parse_args(argv)
    return judge(args) if args.command == "judge" else score(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
