"""The evaluation runner: HybridRAG and BaselineRAG on every question, metrics, tables, run history.

``run_evaluation(questions, ...)`` asks each question in both modes (``answer_fn(question, mode)``,
by default ``RagService(settings).ask``), scores every (question, system) with the metrics of
``eval_metrics`` and writes one run folder::

    <out>/runs.csv                       one row per run (appended, never rewritten)
    <out>/<run_id>/per_question.parquet  question_id, query_type, system, metric, value, status, reason
    <out>/<run_id>/per_question.csv        (+ the run's identity columns)
    <out>/<run_id>/per_type.parquet      query_type (and "all") × system × metric: mean, n
    <out>/<run_id>/per_type.csv
    <out>/<run_id>/answers.jsonl         what each system returned: answer, contexts, route, timings
    <out>/<run_id>/run.json              identity, metric catalogue, cost per metric, judge cache use
    <out>/<run_id>/plots/*.png           one bar chart per metric group

The run's *identity* is what decides the numbers: code (package version, git commit and a hash of the
source files), the data versions of the stores and of the classifier (plus the Dagster data versions
of the upstream assets when run as an asset), the dataset version, a hash of the relevant settings,
and the judge. ``run_id`` = UTC time + the identity hash, so every run gets its own folder and the
history shows which runs had the same inputs. A rerun with the same identity gives the same numbers:
the retrieval and the extractive generator are deterministic, metrics are computed in a fixed order
and batches, and judge calls go at temperature 0 with a seed through an on-disk cache.
Timings (``answers.jsonl``, ``run.json``) are measurements and differ between runs; they are kept out
of the metric tables.

The runner is split by what each part owns: asking the questions and turning answers into metric
samples (``answering``), the run's identity, i.e. code, store and config fingerprints (``identity``),
and the run folder's tables and the history file (``run_folder``); this module composes them.
"""

import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

import pandas as pd

from geo_assets.evaluation.answering import (
    SYSTEMS,
    AnswerFn,
    AnswerRecord,
    collect_answers,
    contexts_of,
    fallback_counts,
    fallback_markdown,
    to_samples,
)
from geo_assets.evaluation.comparison import (
    abstention_markdown,
    abstention_summary,
    differences_markdown,
    paired_differences,
)
from geo_assets.evaluation.dataset import EvalQuestion
from geo_assets.evaluation.identity import (
    EVAL_VERSION,
    code_version,
    config_snapshot,
    run_identity,
    store_versions,
)
from geo_assets.evaluation.judging import judge_plan
from geo_assets.evaluation.metrics import METRIC_BY_NAME, METRICS, MetricSuite
from geo_assets.evaluation.ragas_adapters import JudgeTarget, build_judge_llm, resolve_judge
from geo_assets.evaluation.run_folder import _append_history, _new_folder, _stamp_columns, _write_table
from geo_rag_runtime.settings import Settings, get_settings

__all__ = [
    "AnswerFn",
    "AnswerRecord",
    "EVAL_VERSION",
    "EvaluationRun",
    "SYSTEMS",
    "code_version",
    "collect_answers",
    "config_snapshot",
    "contexts_of",
    "run_evaluation",
    "run_identity",
    "store_versions",
    "to_samples",
]

Mode = Literal["hybrid", "baseline"]
# the differences table in summary.md (all metrics are in differences.csv)
KEY_METRICS = (
    "hit@5",
    "mrr",
    "evidence_recall@5",
    "paper_hit@5",
    "both_papers@5",
    "answer_evidence_recall",
    "reference_numbers_stated",
    "semantic_similarity",
    "faithfulness",
)


# --------------------------------------------------------------------------- the run


@dataclass
class EvaluationRun:
    run_id: str
    folder: Path
    identity: dict[str, Any]
    per_question: pd.DataFrame
    per_type: pd.DataFrame
    answers: list[AnswerRecord]
    plots: dict[str, Path]
    metric_seconds: dict[str, float]
    judge_calls: dict[str, int]
    summary_markdown: str
    # system -> strategy that raised -> answers that fell back to dense similarity
    fallbacks: dict[str, dict[str, int]] = field(default_factory=dict)


def run_evaluation(
    questions: Sequence[EvalQuestion],
    *,
    dataset_version: str,
    settings: Settings | None = None,
    out_dir: str | Path | None = None,
    answer_fn: AnswerFn | None = None,
    dataset_path: str = "",
    upstream_versions: dict[str, Any] | None = None,
    suite: MetricSuite | None = None,
    judge_transport: Any = None,
    judge_concurrency: int = 4,
    log: Callable[[str], None] | None = None,
) -> EvaluationRun:
    """Evaluate HybridRAG and BaselineRAG on ``questions`` and write a new run folder under ``out_dir``.

    ``answer_fn(question, mode) -> Answer`` defaults to ``RagService(settings).ask``. ``suite``
    overrides the metric suite (tests); else one is built with the packaged MiniLM and, when
    ``GEO_RAG_JUDGE_MODEL`` is set, the judge (``judge_transport``: the HTTP transport under the
    judge's disk cache, e.g. an ``httpx.MockTransport`` in tests).
    """
    from geo_assets.evaluation import report as eval_report

    settings = settings or get_settings()
    say = log or (lambda message: None)
    out = Path(out_dir) if out_dir is not None else settings.path("evaluation")
    out.mkdir(parents=True, exist_ok=True)
    started_at = datetime.now(UTC)

    target = resolve_judge(settings)
    no_judge = target if isinstance(target, str) else None
    if suite is not None and suite.judge_llm is None:
        no_judge = no_judge or suite.judge_reason
    plan = judge_plan(settings, questions, None if isinstance(target, str) else target)
    judge_name = "none" if no_judge or isinstance(target, str) else target.name
    identity = run_identity(
        settings,
        dataset_version=dataset_version,
        judge=judge_name,
        judge_plan="" if judge_name == "none" else plan.describe(),
        upstream_versions=upstream_versions,
    )
    if identity["data_versions_missing"]:
        say(
            "data versions not available: "
            + "; ".join(f"{k}: {v}" for k, v in identity["data_versions_missing"].items())
        )

    close: Callable[[], None] = lambda: None  # noqa: E731
    if answer_fn is None:
        from geo_rag_runtime.service import RagService

        service = RagService(settings)
        answer_fn = lambda question, mode: service.ask(question, mode=cast(Mode, mode))  # noqa: E731
        close = service.close
    answering = time.perf_counter()
    try:
        records = collect_answers(questions, answer_fn, log=say)
    finally:
        close()
    answer_seconds = time.perf_counter() - answering

    caching = None
    if suite is None:
        judge_llm = None
        if isinstance(target, JudgeTarget):
            judge_llm, caching = build_judge_llm(
                settings, settings.path("evaluation", "judge_cache"), transport=judge_transport, target=target
            )
            say(f"judge: {judge_name} ({plan.describe()})")
        suite = MetricSuite(
            judge_llm=judge_llm,
            judge_reason=no_judge or "",
            # llama.cpp's server answers one request at a time: more would only queue into timeouts
            judge_concurrency=1 if isinstance(target, JudgeTarget) and target.local else judge_concurrency,
            judged_questions=plan.questions,
            judged_metrics=plan.metrics,
            sample_reason=f"outside the judged sample ({plan.describe()})",
        )
    scoring = time.perf_counter()
    values = suite.score(to_samples(records, questions))
    score_seconds = time.perf_counter() - scoring

    run_id, folder = _new_folder(out, started_at, identity["identity_hash"])
    stamp = _stamp_columns(run_id, identity)
    rows = []
    for record, sample_values in zip(records, values, strict=True):
        for v in sample_values:
            rows.append(
                {
                    **stamp,
                    "question_id": record.question_id,
                    "query_type": record.query_type,
                    "system": record.system,
                    "metric": v.metric,
                    "group": METRIC_BY_NAME[v.metric].group,
                    "value": v.value,
                    "status": v.status,
                    "reason": v.reason,
                }
            )
    per_question = pd.DataFrame(rows)
    per_type = eval_report.aggregate(per_question)
    for key, value in stamp.items():
        per_type.insert(list(stamp).index(key), key, value)
    _write_table(per_question, folder, "per_question", identity)
    _write_table(per_type, folder, "per_type", identity)
    with open(folder / "answers.jsonl", "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(asdict(record), ensure_ascii=False) + "\n")
    plots = eval_report.plot_groups(per_type, folder / "plots")
    differences = paired_differences(per_question)
    abstention = abstention_summary(per_question)
    if not differences.empty:
        differences.to_csv(folder / "differences.csv", index=False)
    abstention.to_csv(folder / "abstention.csv", index=False)
    fallbacks = fallback_counts(records)
    if fallbacks:
        say(fallback_markdown(fallbacks).replace("**", ""))
    summary = eval_report.markdown_table(per_type)
    if fallbacks:  # first, so nobody reads the scores without it
        summary = fallback_markdown(fallbacks) + "\n\n" + summary
    if not differences.empty:
        summary += "\n\n" + differences_markdown(differences, KEY_METRICS)
    if abstention["unanswerable"].sum():
        summary += "\n\n" + abstention_markdown(abstention)
    (folder / "summary.md").write_text(summary + "\n", encoding="utf-8")

    samples_scored = max(1, len(records))
    judge_calls = {"requests_sent": caching.misses, "cache_hits": caching.hits} if caching else {}
    routed = [r for r in records if r.mode == "hybrid" and not r.error]
    finished_at = datetime.now(UTC)
    run_info = {
        "run_id": run_id,
        "started_at": started_at.isoformat(),
        "finished_at": finished_at.isoformat(),
        "identity": identity,
        "dataset_path": dataset_path,
        "questions": len(questions),
        "answers_failed": sum(1 for r in records if r.error),
        "fallbacks": fallbacks,
        "routing_accuracy": (
            sum(1 for r in routed if r.category == r.query_type) / len(routed) if routed else None
        ),
        "seconds": {"answers": round(answer_seconds, 2), "metrics": round(score_seconds, 2)},
        "metric_ms_per_sample": {
            k: round(v * 1000 / samples_scored, 3) for k, v in sorted(suite.seconds.items())
        },
        "judge_calls": judge_calls,
        "metrics": [asdict(m) for m in METRICS],
        "status_counts": per_question.groupby(["metric", "status"])
        .size()
        .unstack(fill_value=0)
        .to_dict("index"),
    }
    (folder / "run.json").write_text(
        json.dumps(run_info, indent=2, default=str, ensure_ascii=False), encoding="utf-8"
    )
    _append_history(
        out,
        {
            "run_id": run_id,
            "started_at": started_at.isoformat(),
            "finished_at": finished_at.isoformat(),
            "identity_hash": identity["identity_hash"],
            "code_version": stamp["code_version"],
            "git_commit": identity["code"]["git_commit"] or "",
            "dataset_version": dataset_version,
            "config_hash": identity["config_hash"],
            "data_versions_hash": identity["data_versions_hash"],
            "judge": judge_name,
            "questions": len(questions),
            "answers_failed": run_info["answers_failed"],
            "folder": str(folder),
        },
    )
    say(f"evaluation {run_id}: {len(records)} answers, {len(per_question)} metric values in {folder}")
    return EvaluationRun(
        run_id=run_id,
        folder=folder,
        identity=identity,
        per_question=per_question,
        per_type=per_type,
        answers=records,
        plots=plots,
        metric_seconds=dict(suite.seconds),
        judge_calls=judge_calls,
        summary_markdown=summary,
        fallbacks=fallbacks,
    )
