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
import json
import math
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")


def judge(args: argparse.Namespace) -> int:
    from types import SimpleNamespace

    from geo_assets.evaluation.answering import context_texts, split_contexts
    from geo_assets.evaluation.judging import stratified_sample
    from geo_assets.evaluation.metric_specs import EvalSample
    from geo_assets.evaluation.metric_suite import MetricSuite
    from geo_assets.evaluation.ragas_adapters import build_judge_llm, resolve_judge
    from geo_rag_runtime.query.grounded import split_answer, strip_markers
    from geo_rag_runtime.settings import get_settings

    settings = get_settings()
    target = resolve_judge(settings)
    if isinstance(target, str):
        print(f"no judge: {target}", file=sys.stderr)
        return 2
    records = [json.loads(line) for line in Path(args.answers).read_text().splitlines() if line.strip()]
    questions = {r["id"]: SimpleNamespace(id=r["id"], query_type=r["query_type"]) for r in records}
    picked = stratified_sample(list(questions.values()), args.per_type) or frozenset(questions)
    samples = {}
    for record in records:
        if record["id"] in picked:
            chunk_texts, fact_texts = context_texts(*split_contexts(record["contexts"]))
            samples[f"{record['id']}/{record['generator_setting']}"] = EvalSample(
                record["id"], record["query_type"], "hybrid", record["question"],
                strip_markers(record["answer"]), tuple(chunk_texts), tuple(fact_texts),
                record["reference_answer"], (), (),
            )  # fmt: skip
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    llm, caching = build_judge_llm(settings, out / "judge_cache", target=target)
    suite = MetricSuite(judge_llm=llm, judged_metrics=frozenset({"faithfulness"}), judge_concurrency=1)
    sheet = [f"# Faithfulness labels ({len(samples)} answers)\n"]
    for n, (key, sample) in enumerate(samples.items(), 1):  # the sheet first: label while the judge runs
        sheet.append(f"\n## Answer {n} — key `{key}`\n\n**Question:** {sample.question}\n")
        sheet += [f"\n**Context {i}:** {text}\n" for i, text in enumerate(sample.contexts)]
        sheet.append("\n**Answer sentences:**\n")
        sheet += [f"{i}. {s}\n" for i, s in enumerate(split_answer(sample.answer), 1)]
    (out / "sheet.md").write_text("".join(sheet), encoding="utf-8")
    if args.sheet_only:
        return 0
    with (out / "judged.jsonl").open("w", encoding="utf-8") as handle:
        for key, sample in samples.items():
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
    """Spearman's rank correlation (SciPy's); NaN below three pairs or for constant labels."""
    import warnings

    from scipy.stats import spearmanr

    if len(x) < 3:
        return math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # constant input: SciPy warns and returns NaN
        return float(spearmanr(x, y).statistic)


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
    j.add_argument("--per-type", type=int, default=3, help="questions per type (0 = all)")
    j.add_argument("--sheet-only", action="store_true", help="write the labelling sheet, judge nothing")
    s = sub.add_parser("score")
    s.add_argument("judged")
    s.add_argument("labels")
    args = parser.parse_args(argv)
    return judge(args) if args.command == "judge" else score(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
