"""The run's identity: what decides the numbers, fingerprinted, and its hash.

Code (package version, git commit and a hash of the source files), the data versions of the stores and
of the classifier, the settings that change answers or scores, the dataset version and the judge. A store
that cannot be read is recorded as missing, not fatal: the answers will tell.
"""

import functools
import hashlib
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from geo_assets.evaluation.answering import _error_text
from geo_assets.evaluation.metrics import HIT_KS, JUDGE_MAX_TOKENS, MATCH_THRESHOLD, METRICS
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import opening

EVAL_VERSION = "eval-1"  # bump when the way numbers are computed changes
PACKAGE_ROOT = Path(__file__).resolve().parents[2]


def _sha(value: Any, n: int = 16) -> str:
    text = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:n]


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
    from geo_rag_runtime import local_llm

    local = local_llm.endpoint(settings) if settings.local_llm and not settings.llm_configured else None
    return {
        "generator": settings.generator,
        # the model that writes the answers: a configured one, else the local server's, else none
        "answer_model": settings.llm_model if settings.llm_configured else (local.model if local else None),
        "llm_steps": list(settings.llm_steps),
        "evidence": [settings.evidence_sentences, settings.evidence_token_budget, settings.answer_max_tokens],
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
        store = opening.open_documents(settings, read_only=True)
        try:
            papers = sorted((p.get("paper_id", ""), p.get("sha256", "")) for p in store.papers())
            return {**store.counts(), "papers_sha": _sha(papers)}
        finally:
            store.close()

    def vectors() -> Any:
        with opening.open_vectors(settings, read_only=True) as store:
            return {
                "count": store.count(),
                "collection": store.collection_name,
                "model": store.model_identity,
            }

    def keyword_index() -> Any:
        index = opening.open_keyword_index(settings)
        return {"count": index.count(), "papers": len(index.paper_ids())}

    def graph() -> Any:
        store = opening.open_graph(settings, read_only=True)
        try:
            return dict(store.counts())
        finally:
            store.close()

    def classifier() -> Any:
        from geo_rag_runtime.router.model import MANIFEST_FILE, default_artifact_dir

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
    judge_plan: str = "",
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
    if judge_plan:  # which questions and metrics the judge scored (absent without a judge)
        identity["judge_plan"] = judge_plan
    identity["identity_hash"] = _sha({k: v for k, v in identity.items() if k != "data_versions_missing"})
    return identity
