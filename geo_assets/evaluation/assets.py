"""Evaluation stage: the versioned question set, and HybridRAG vs BaselineRAG scored with RAGAS.

``evaluation_dataset`` reads and validates the JSONL question set (the shipped one unless the run
config names another); its data version is the dataset version, so editing a question marks
``evaluation_results`` stale. ``evaluation_results`` answers every question in both modes from the
materialized stores, scores them (``geo_assets.evaluation.metrics``), writes a new run folder with the
tables and plots (``geo_assets.evaluation.runner``) and shows the per-type table and the plots here.
"""

import hashlib
import json
from collections import Counter
from typing import Any

import dagster as dg
from pydantic import Field

from geo_assets.resources import GeoRagResource
from geo_assets.versions import latest_versions
from geo_rag_runtime.models import QUERY_TYPES
from geo_rag_runtime.prompts import PROMPT_SET_VERSION

# what the answers depend on: the routing model, the graph and the vectors (all materialized assets)
UPSTREAM_ASSETS = ("query_classifier", "knowledge_graph", "chunk_embeddings")


class EvaluationDatasetConfig(dg.Config):
    dataset: str | None = Field(
        default=None,
        description="'dev' (default: data/evaluation/geochem_qa_v1.jsonl, over data/papers), 'corpus' "
        "(geochem_qa_corpus_v1.jsonl, over the 17 shared-corpus papers) or a JSONL path",
    )


class EvaluationResultsConfig(dg.Config):
    out: str | None = Field(
        default=None, description="output folder (run folders + runs.csv); default: GEO_RAG_HOME/evaluation"
    )
    max_questions: int | None = Field(default=None, description="evaluate only the first N questions")
    judge_concurrency: int = Field(default=4, description="concurrent judge requests (with a judge)")


@dg.asset(
    group_name="evaluation",
    kinds={"json"},
    code_version="evalset-1",
    description="The evaluation questions (JSONL, validated): question, query type, reference answer, "
    "verbatim reference passages and entities. Data version = dataset version (hash of the content).",
)
def evaluation_dataset(context: dg.AssetExecutionContext, config: EvaluationDatasetConfig) -> dg.Output[dict]:
    from geo_assets.evaluation.dataset import dataset_version, load_eval_dataset, resolve_dataset
    from geo_rag_runtime.errors import InputError

    path = resolve_dataset(config.dataset)
    try:
        questions = load_eval_dataset(path)
        version = dataset_version(path)
    except InputError as exc:
        raise dg.Failure(description=str(exc), metadata={"path": str(path)}, allow_retries=False) from exc
    counts = Counter(q.query_type for q in questions)
    context.log.info(f"{path}: {len(questions)} questions, version {version}")
    return dg.Output(
        {
            "path": str(path.resolve()),
            "version": version,
            "questions": [q.model_dump(mode="json") for q in questions],
        },
        data_version=dg.DataVersion(version),
        metadata={
            "questions": len(questions),
            "per_type": dg.MetadataValue.json({t: counts.get(t, 0) for t in QUERY_TYPES}),
            "unanswerable": sum(1 for q in questions if not q.answerable),
            "multi_hop": sum(1 for q in questions if q.multi_hop),
            "dataset_version": version,
            "path": dg.MetadataValue.path(str(path.resolve())),
        },
    )


def _upstream_versions(instance: dg.DagsterInstance, names: tuple[str, ...]) -> dict[str, Any]:
    """Latest data/code version of each upstream asset (per partition, summarized by a hash)."""
    out: dict[str, Any] = {}
    for name in names:
        latest = {
            partition: (v.data_version, v.code_version)
            for partition, v in latest_versions(instance, dg.AssetKey(name), limit=10000).items()
        }
        if not latest:
            out[name] = {"materialized": False}
        elif list(latest) == ["-"]:
            out[name] = {"data_version": latest["-"][0], "code_version": latest["-"][1]}
        else:
            digest = hashlib.sha256(json.dumps(sorted(latest.items())).encode()).hexdigest()[:16]
            out[name] = {"partitions": len(latest), "versions_sha": digest}
    return out


@dg.asset(
    group_name="evaluation",
    kinds={"pandas", "python"},
    code_version="evalresults-1",
    deps=[dg.AssetKey(name) for name in UPSTREAM_ASSETS],
    description="HybridRAG and BaselineRAG answers to every evaluation question, scored per question "
    "with the RAGAS metrics (judge metrics only with GEO_RAG_JUDGE_MODEL) and our hit@k/MRR/entity "
    "recall; per-question and per-type tables (parquet, CSV), plots, and the run's identity, in a new "
    "run folder under the output folder (history in runs.csv).",
)
def evaluation_results(
    context: dg.AssetExecutionContext,
    config: EvaluationResultsConfig,
    evaluation_dataset: dict,
    geo: GeoRagResource,
) -> dg.MaterializeResult:
    from geo_assets.evaluation import report as eval_report
    from geo_assets.evaluation.dataset import EvalQuestion
    from geo_assets.evaluation.runner import run_evaluation
    from geo_rag_runtime.errors import GeoRagError

    questions = [EvalQuestion.model_validate(q) for q in evaluation_dataset["questions"]]
    if config.max_questions is not None:
        questions = questions[: config.max_questions]
    try:
        run = run_evaluation(
            questions,
            dataset_version=evaluation_dataset["version"],
            settings=geo.settings(),
            out_dir=config.out,
            dataset_path=evaluation_dataset["path"],
            upstream_versions=_upstream_versions(context.instance, UPSTREAM_ASSETS),
            judge_concurrency=config.judge_concurrency,
            log=context.log.info,
        )
    except GeoRagError as exc:  # e.g. nothing ingested: say so instead of a stack trace
        raise dg.Failure(description=f"evaluation failed: {exc}", allow_retries=False) from exc
    identity = run.identity
    overall = run.per_type[(run.per_type["query_type"] == eval_report.ALL) & (run.per_type["n"] > 0)]
    headline = {f"{r.system}/{r.metric}": dg.MetadataValue.float(float(r.mean)) for r in overall.itertuples()}
    metadata: dict[str, Any] = {
        "run_id": run.run_id,
        "prompt_set_version": PROMPT_SET_VERSION,
        "output_folder": dg.MetadataValue.path(str(run.folder)),
        "per_type": dg.MetadataValue.md(run.summary_markdown),
        "questions": len(questions),
        "answers_failed": sum(1 for a in run.answers if a.error),
        # answers whose strategy raised and that dense similarity gave instead, per system and strategy
        "fallbacks": dg.MetadataValue.json(run.fallbacks),
        "dataset_version": identity["dataset_version"],
        "identity_hash": identity["identity_hash"],
        "config_hash": identity["config_hash"],
        "judge": identity["judge"],
        "code_version": run.per_question["code_version"].iloc[0] if len(run.per_question) else "",
        "data_versions": dg.MetadataValue.json(identity["data_versions"]),
        "data_versions_missing": dg.MetadataValue.json(identity["data_versions_missing"]),
        "metric_seconds": dg.MetadataValue.json({k: round(v, 3) for k, v in run.metric_seconds.items()}),
        **{
            f"plot_{group}": dg.MetadataValue.md(eval_report.image_markdown(p))
            for group, p in run.plots.items()
        },
        **{f"plot_{group}_file": dg.MetadataValue.path(str(p)) for group, p in run.plots.items()},
        **headline,
    }
    return dg.MaterializeResult(metadata=metadata, data_version=dg.DataVersion(identity["identity_hash"]))
