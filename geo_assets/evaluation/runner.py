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
"""

import csv
import functools
import hashlib
import json
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal, cast

import pandas as pd

from geo_assets.evaluation.dataset import EvalQuestion
from geo_assets.evaluation.metrics import (
    HIT_KS,
    JUDGE_MAX_TOKENS,
    MATCH_THRESHOLD,
    METRIC_BY_NAME,
    METRICS,
    EvalSample,
    MetricSuite,
    build_judge_llm,
    judge_unavailable_reason,
)
from geo_rag_runtime.models import Answer
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
]

EVAL_VERSION = "eval-1"  # bump when the way numbers are computed changes
SYSTEMS = {"hybrid": "HybridRAG", "baseline": "BaselineRAG"}
AnswerFn = Callable[[str, str], Answer]
Mode = Literal["hybrid", "baseline"]
PACKAGE_ROOT = Path(__file__).resolve().parents[2]
RUNS_COLUMNS = (
    "run_id",
    "started_at",
    "finished_at",
    "identity_hash",
    "code_version",
    "git_commit",
    "dataset_version",
    "config_hash",
    "data_versions_hash",
    "judge",
    "questions",
    "answers_failed",
    "folder",
)


def _sha(value: Any, n: int = 16) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


# --------------------------------------------------------------------------- answers


@dataclass
class AnswerRecord:
    """What one system returned for one question (or why it failed)."""

    question_id: str
    query_type: str
    system: str
    mode: str
    question: str
    answer: str = ""
    category: str = ""
    strategy: str = ""
    generator: str = ""
    chunk_texts: list[str] = field(default_factory=list)
    chunk_ids: list[str | None] = field(default_factory=list)
    source_files: list[str | None] = field(default_factory=list)
    fact_texts: list[str] = field(default_factory=list)
    timings_ms: dict[str, float] = field(default_factory=dict)
    wall_ms: float = 0.0
    notes: list[str] = field(default_factory=list)
    error: str | None = None


def _ordered(items: Any) -> list[Any]:
    """The values of a context dict {"0": ..., "1": ...} in rank order."""
    if isinstance(items, list):
        return items
    if not isinstance(items, dict):
        return []
    keys = sorted(items, key=lambda k: (0, int(k)) if str(k).isdigit() else (1, str(k)))
    return [items[k] for k in keys]


def _text(item: Any) -> str:
    if isinstance(item, dict):
        return str(item.get("text") or "")
    return str(item or "")


def contexts_of(answer: Answer) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(chunks in rank order, graph facts) from ``Answer.contexts``."""
    contexts = answer.contexts or {}
    chunks = [
        c if isinstance(c, dict) else {"text": _text(c)} for c in _ordered(contexts.get("VectorRAG_Context"))
    ]
    facts = [
        f if isinstance(f, dict) else {"text": _text(f)} for f in _ordered(contexts.get("GraphRAG_Context"))
    ]
    return chunks, facts


def _error_text(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}".replace("\n", " ")[:500]


def collect_answers(
    questions: Sequence[EvalQuestion],
    answer_fn: AnswerFn,
    *,
    modes: Sequence[str] = ("hybrid", "baseline"),
    log: Callable[[str], None] | None = None,
) -> list[AnswerRecord]:
    """Ask every question in every mode; a failing answer is recorded, not raised.

    If every answer fails (no stores, say), the first error is raised: there is nothing to score.
    """
    records: list[AnswerRecord] = []
    first_error: BaseException | None = None
    for number, q in enumerate(questions, start=1):
        for mode in modes:
            record = AnswerRecord(q.id, q.query_type, SYSTEMS[mode], mode, q.question)
            started = time.perf_counter()
            try:
                answer = answer_fn(q.question, mode)
            except Exception as exc:  # one bad question must not lose the others
                record.error = _error_text(exc)
                first_error = first_error or exc
            else:
                chunks, facts = contexts_of(answer)
                record.answer = answer.answer or ""
                record.category = answer.category
                record.strategy = answer.strategy
                record.generator = answer.generator
                record.chunk_texts = [_text(c) for c in chunks]
                record.chunk_ids = [c.get("chunk_id") for c in chunks]
                record.source_files = [c.get("source_file") for c in chunks]
                record.fact_texts = [_text(f) for f in facts]
                record.timings_ms = dict(answer.timings_ms)
                record.notes = list(answer.notes)
            record.wall_ms = round((time.perf_counter() - started) * 1000, 1)
            records.append(record)
        if log is not None and (number % 10 == 0 or number == len(questions)):
            log(f"answered {number}/{len(questions)} questions")
    if records and all(r.error for r in records) and first_error is not None:
        raise first_error
    return records


def to_samples(records: Sequence[AnswerRecord], questions: Sequence[EvalQuestion]) -> list[EvalSample]:
    by_id = {q.id: q for q in questions}
    samples = []
    for r in records:
        q = by_id[r.question_id]
        samples.append(
            EvalSample(
                question_id=r.question_id,
                query_type=r.query_type,
                system=r.system,
                question=r.question,
                answer=r.answer,
                chunk_texts=tuple(r.chunk_texts),
                fact_texts=tuple(r.fact_texts),
                reference_answer=q.reference_answer,
                reference_passages=tuple(p.text for p in q.reference_passages),
                reference_entities=tuple(q.reference_entities),
                error=r.error,
            )
        )
    return samples


# --------------------------------------------------------------------------- identity


def _git(*args: str) -> str | None:
    try:
        proc = subprocess.run(
            ["git", "-C", str(PACKAGE_ROOT), *args], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


@functools.lru_cache(maxsize=1)
def _source_hash() -> str:
    """sha256 over the Python and data files of both packages (works without git, from a wheel too).

    Computed once per process: the code that runs is the code that was imported, even if the files
    change on disk afterwards (a long-running code server is reloaded before it runs new code).
    """
    digest = hashlib.sha256()
    for package in ("geo_rag_runtime", "geo_assets"):
        root = PACKAGE_ROOT / package
        for path in sorted(root.rglob("*")):
            if (
                path.is_file()
                and path.suffix in {".py", ".json", ".csv", ".jsonl", ".txt"}
                and ("__pycache__" not in path.parts)
            ):
                digest.update(str(path.relative_to(PACKAGE_ROOT)).encode())
                digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def code_version() -> dict[str, Any]:
    """Package version, git commit (None outside a checkout), dirty flag and the source hash."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        package = version("geo-rag")
    except PackageNotFoundError:
        package = "unknown"
    commit = _git("rev-parse", "HEAD")
    status = _git("status", "--porcelain", "--untracked-files=no") if commit else None
    return {
        "package": package,
        "git_commit": commit,
        "git_dirty": bool(status) if status is not None else None,
        "source_sha": _source_hash(),
        "eval_version": EVAL_VERSION,
    }


def config_snapshot(settings: Settings) -> dict[str, Any]:
    """The settings that change answers or scores (no secrets, no credentials in URIs)."""
    return {
        "top_k": settings.top_k,
        "chunk_tokens": settings.chunk_tokens,
        "chunk_overlap": settings.chunk_overlap,
        "embedding_model": settings.embedding_model,
        "llm_model": settings.llm_model,
        "llm_seed": settings.llm_seed,
        "judge_model": settings.judge_model,
        "judge_max_tokens": JUDGE_MAX_TOKENS,
        "openai_base_url": settings.openai_base_url,
        "classifier_min_confidence": settings.classifier_min_confidence,
        "context_token_budget": settings.context_token_budget,
        "max_question_chars": settings.max_question_chars,
        "chroma_collection": settings.chroma_collection,
        "backends": {
            "documents": "mongodb" if settings.mongodb_uri else "litemongo",
            "vectors": "chroma-http" if settings.chroma_host else "chroma-persistent",
            "graph": "neo4j" if settings.neo4j_uri else "ladybug",
        },
        "match_threshold": MATCH_THRESHOLD,
        "hit_ks": list(HIT_KS),
        "metrics": [m.name for m in METRICS],
    }


def store_versions(settings: Settings) -> tuple[dict[str, Any], dict[str, str]]:
    """Data versions of the stores and the classifier: (what was read, {store: why it is missing})."""
    found: dict[str, Any] = {}
    missing: dict[str, str] = {}

    def attempt(name: str, read: Callable[[], Any]) -> None:
        try:
            value = read()
        except Exception as exc:  # a missing store is recorded, not fatal: the answers will tell
            missing[name] = _error_text(exc)
        else:
            if value is None:
                missing[name] = "not available"
            else:
                found[name] = value

    def documents() -> Any:
        from geo_rag_runtime.stores.documents import open_document_store

        store = open_document_store(settings)
        try:
            papers = sorted((p.get("paper_id", ""), p.get("sha256", "")) for p in store.papers())
            return {**store.counts(), "papers_sha": _sha(papers)}
        finally:
            store.close()

    def vectors() -> Any:
        from geo_rag_runtime.stores.vectors import ChromaVectorStore

        with ChromaVectorStore(settings, read_only=True) as store:
            return {
                "count": store.count(),
                "collection": store.collection_name,
                "model": store.model_identity,
            }

    def keyword_index() -> Any:
        from geo_rag_runtime.stores.sparse import SparseIndex

        index = SparseIndex(settings)
        return {"count": index.count(), "papers": len(index.paper_ids())}

    def graph() -> Any:
        from geo_rag_runtime.stores.graph import get_graph_store

        store = get_graph_store(settings, read_only=True)
        try:
            return dict(store.counts())
        finally:
            store.close()

    def classifier() -> Any:
        from geo_rag_runtime.classifier import MANIFEST_FILE, default_artifact_dir

        path = default_artifact_dir(settings) / MANIFEST_FILE
        if not path.is_file():
            return None
        manifest = json.loads(path.read_text(encoding="utf-8"))
        return {k: v for k, v in manifest.items() if k in {"model_version", "sha256"} or "version" in k}

    attempt("documents", documents)
    attempt("vectors", vectors)
    attempt("keyword_index", keyword_index)
    attempt("graph", graph)
    attempt("classifier", classifier)
    return found, missing


def run_identity(
    settings: Settings,
    *,
    dataset_version: str,
    judge: str,
    upstream_versions: dict[str, Any] | None = None,
    stores: tuple[dict[str, Any], dict[str, str]] | None = None,
) -> dict[str, Any]:
    """Everything that decides the numbers, and its hash."""
    found, missing = stores if stores is not None else store_versions(settings)
    data_versions = {"stores": found, "assets": upstream_versions or {}}
    config = config_snapshot(settings)
    identity = {
        "code": code_version(),
        "dataset_version": dataset_version,
        "config": config,
        "config_hash": _sha(config, 12),
        "data_versions": data_versions,
        "data_versions_hash": _sha(data_versions, 12),
        "data_versions_missing": missing,
        "judge": judge,
    }
    identity["identity_hash"] = _sha({k: v for k, v in identity.items() if k != "data_versions_missing"})
    return identity


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


def _stamp_columns(run_id: str, identity: dict[str, Any]) -> dict[str, str]:
    code = identity["code"]
    return {
        "run_id": run_id,
        "identity_hash": identity["identity_hash"],
        "code_version": f"{code['package']}+{(code['git_commit'] or 'nogit')[:12]}"
        + ("-dirty" if code.get("git_dirty") else "")
        + f".{code['source_sha'][:8]}",
        "dataset_version": identity["dataset_version"],
        "config_hash": identity["config_hash"],
        "data_versions_hash": identity["data_versions_hash"],
        "judge": identity["judge"],
    }


def _write_table(df: pd.DataFrame, folder: Path, stem: str, identity: dict[str, Any]) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(df, preserve_index=False)
    meta = dict(table.schema.metadata or {})
    meta[b"georag.identity"] = json.dumps(identity, sort_keys=True, default=str).encode("utf-8")
    pq.write_table(table.replace_schema_metadata(meta), folder / f"{stem}.parquet")
    df.to_csv(folder / f"{stem}.csv", index=False)


def _append_history(out_dir: Path, row: dict[str, Any]) -> None:
    from filelock import FileLock

    path = out_dir / "runs.csv"
    with FileLock(str(out_dir / ".runs.csv.lock"), timeout=60):
        new = not path.exists()
        with open(path, "a", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(RUNS_COLUMNS))
            if new:
                writer.writeheader()
            writer.writerow({k: row.get(k, "") for k in RUNS_COLUMNS})


def _new_folder(out_dir: Path, started: datetime, identity_hash: str) -> tuple[str, Path]:
    base = f"{started:%Y%m%dT%H%M%SZ}-{identity_hash[:10]}"
    for n in range(1000):
        run_id = base if n == 0 else f"{base}-{n}"
        folder = out_dir / run_id
        try:
            folder.mkdir(parents=True)
        except FileExistsError:
            continue
        return run_id, folder
    raise RuntimeError(f"cannot create a run folder under {out_dir}")


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

    no_judge = judge_unavailable_reason(settings)
    if suite is not None and suite.judge_llm is None:
        no_judge = no_judge or suite.judge_reason
    judge_name = "none" if no_judge else str(settings.judge_model)
    identity = run_identity(
        settings, dataset_version=dataset_version, judge=judge_name, upstream_versions=upstream_versions
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
        if not no_judge:
            judge_llm, caching = build_judge_llm(
                settings, settings.path("evaluation", "judge_cache"), transport=judge_transport
            )
        suite = MetricSuite(
            judge_llm=judge_llm, judge_reason=no_judge or "", judge_concurrency=judge_concurrency
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
    summary = eval_report.markdown_table(per_type)
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
    )
