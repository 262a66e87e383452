"""Retiring papers: hidden at once, deleted only when purged.

A PDF that left the watched folder retires its paper — but a missing file is weak evidence: an
unmounted network share, a cleaned temporary folder or a folder moved away all look like "every PDF
was deleted". So:

* only papers whose registered PDF lies under the watched folder are candidates (a paper ingested
  from elsewhere with ``geo-rag ingest PATH`` is never retired by the sensor), and none at all
  while that folder is missing or unreadable;
* the sensor retires at most ``GEO_RAG_RETIRE_MAX_SHARE`` of the papers (and at least one) in one
  evaluation; more at once is logged and skipped, and ``geo-rag retire --confirm`` does it on purpose;
* retiring only hides a paper (``publication.mark_retired``): every store keeps it, so ``geo-rag
  unretire`` — or the same PDF coming back — undoes it at once. ``geo-rag purge`` deletes the data
  of papers retired longer than ``GEO_RAG_RETIRE_KEEP_DAYS`` (``--all``: every retired paper), and
  only then is a paper gone from the document, vector, keyword and graph stores.

Every function here writes, so callers hold the home's writer lock (``geo_rag_runtime.home_lock``).
"""

from __future__ import annotations

import datetime as dt
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from geo_rag_runtime import contract
from geo_rag_runtime.query import sentence_vectors
from geo_rag_runtime.settings import Settings
from geo_rag_runtime.stores import opening, publication
from geo_rag_runtime.stores.protocols import DocumentRepository

__all__ = [
    "RetirementPlan",
    "find_retired",
    "folder_problem",
    "plan_retirement",
    "purge_paper",
    "purgeable",
    "retire_paper",
    "retire_replaced",
    "unretire_paper",
]


def folder_problem(folder: Path) -> str | None:
    """Why ``folder`` cannot be trusted to say which PDFs were removed (None: it can).

    A folder that is missing, not a folder, or unreadable (permissions, a stale network mount)
    says nothing about the papers that were ingested from it."""
    try:
        if not folder.exists():
            return f"the papers folder {folder} does not exist (unmounted, moved or deleted?)"
        if not folder.is_dir():
            return f"the papers folder {folder} is not a folder"
        if not os.access(folder, os.R_OK | os.X_OK):
            return f"the papers folder {folder} is not readable"
        with os.scandir(folder) as entries:  # a stale mount fails here, not in is_dir()
            next(entries, None)
    except OSError as exc:
        return f"the papers folder {folder} cannot be read ({exc})"
    return None


@dataclass
class RetirementPlan:
    """What a scan of the watched folder would retire, and whether it may."""

    folder: Path
    problem: str | None = None  # the folder cannot be trusted: retire nothing
    missing: list[str] = field(default_factory=list)  # keys under the folder whose PDF is gone
    orphans: list[str] = field(default_factory=list)  # such keys that hold no paper (registry only)
    back: list[str] = field(default_factory=list)  # retired keys whose same PDF is there again
    papers: int = 0  # papers held and not retired
    limit: int = 0  # the most the sensor retires in one evaluation

    @property
    def over_limit(self) -> bool:
        return len(self.missing) > self.limit

    def describe(self) -> str:
        share = len(self.missing) / self.papers if self.papers else 1.0
        return (
            f"{len(self.missing)} of {self.papers} papers ({share:.0%}) have no PDF under {self.folder} "
            f"any more; the sensor retires at most {self.limit} at once (GEO_RAG_RETIRE_MAX_SHARE)"
        )


def _under(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def retire_limit(settings: Settings, papers: int) -> int:
    """The most papers one sensor evaluation retires: the share, at least one (0 turns it off)."""
    if settings.retire_max_share <= 0:
        return 0
    return max(1, math.floor(settings.retire_max_share * papers))


def plan_retirement(
    settings: Settings, store: DocumentRepository, known: set[str] | None = None
) -> RetirementPlan:
    """Which papers of the watched folder lost their PDF (only partitions in ``known``, when given)."""
    folder = Path(settings.papers).expanduser().resolve()
    plan = RetirementPlan(folder=folder, problem=folder_problem(folder))
    retired = publication.retired_papers(settings.home_dir)
    retired_keys = {record.get("partition_key"): paper_id for paper_id, record in retired.items()}
    plan.papers = max(0, store.counts().get(contract.PAPERS, 0) - len(retired))
    plan.limit = retire_limit(settings, plan.papers)
    if plan.problem is not None:
        return plan
    for key, raw in store.sources().items():
        path = Path(raw)
        if not _under(path, folder) or (known is not None and key not in known):
            continue
        if path.is_file():
            paper_id = retired_keys.get(key)
            if paper_id is not None and _same_bytes(store, paper_id, path):
                plan.back.append(key)
            continue
        if key in retired_keys:
            continue
        if store.find_paper_by_partition(key) is None:
            plan.orphans.append(key)
        else:
            plan.missing.append(key)
    return plan


def _same_bytes(store: DocumentRepository, paper_id: str, path: Path) -> bool:
    paper = store.get_paper(paper_id) or {}
    try:
        return bool(paper.get("sha256")) and paper.get("sha256") == contract.file_sha256(path)
    except OSError:
        return False


def retire_paper(
    settings: Settings, store: DocumentRepository, partition_key: str, reason: str
) -> dict[str, str] | None:
    """Hide the paper of ``partition_key`` from questions and exports, keeping its data; returns the
    retirement record, or None when the partition holds no paper."""
    doc = store.find_paper_by_partition(partition_key)
    if doc is None:
        return None
    paper_id = str(doc["paper_id"])
    publication.mark_retired(
        settings.home_dir,
        paper_id,
        partition_key=partition_key,
        source_path=store.source_path(partition_key) or str(doc.get("source_path", "")),
        reason=reason,
    )
    return publication.retired_papers(settings.home_dir).get(paper_id)


def retire_replaced(
    settings: Settings, store: DocumentRepository, partition_key: str, current_paper_id: str
) -> list[str]:
    """The earlier versions of a PDF whose bytes changed under the same name, once the new version is
    published: retired — hidden from questions at once, kept in every store until ``geo-rag purge``,
    back with ``geo-rag unretire`` — like a PDF that left the folder. Without this both versions
    stayed published (the paper id is the hash of the bytes), so every replaced PDF answered twice.
    The old document gives up the partition (``replaced_by`` names its successor), so lookups by
    partition find the current version. Returns the retired paper ids."""
    retired = []
    for doc in store.papers_for_partition(partition_key):
        old = str(doc["paper_id"])
        if old == current_paper_id:
            continue
        publication.mark_retired(
            settings.home_dir,
            old,
            partition_key=partition_key,
            source_path=str(doc.get("source_path", "")),
            reason=f"replaced by a new version of {partition_key} (paper {current_paper_id})",
        )
        store.set_paper_fields(old, partition_key=None, replaced_by=current_paper_id)
        retired.append(old)
    return retired


def find_retired(settings: Settings, name: str) -> dict[str, str] | None:
    """The retirement record named by a paper id, partition key or PDF file name."""
    for paper_id, record in publication.retired_papers(settings.home_dir).items():
        names = {paper_id, record.get("partition_key", ""), Path(record.get("source_path", "")).name}
        if name in names:
            return record
    return None


def unretire_paper(settings: Settings, paper_id: str) -> bool:
    """Questions may use the paper again (its data never left the stores); False if not retired."""
    return publication.mark_unretired(settings.home_dir, paper_id)


def purgeable(
    settings: Settings, *, everything: bool = False, now: dt.datetime | None = None
) -> list[dict[str, str]]:
    """The retired papers ``geo-rag purge`` deletes: retired more than ``retire_keep_days`` ago
    (``everything``: all of them), oldest first."""
    now = now or dt.datetime.now(dt.UTC)
    keep = dt.timedelta(days=settings.retire_keep_days)
    found = []
    for record in publication.retired_papers(settings.home_dir).values():
        try:
            since = dt.datetime.fromisoformat(record.get("since", ""))
        except ValueError:
            since = now  # unreadable date: keep it (purge --all still deletes it)
        if since.tzinfo is None:
            since = since.replace(tzinfo=dt.UTC)
        if everything or now - since > keep:
            found.append({**record, "since": since.isoformat(timespec="seconds")})
    return sorted(found, key=lambda r: r["since"])


def purge_paper(settings: Settings, store: DocumentRepository, paper_id: str) -> dict[str, Any]:
    """Delete a retired paper from the document, vector, keyword and graph stores and its sentence
    vectors, and forget its partition's PDF. Shared graph entities stay while other papers still
    mention them."""
    record = publication.retired_papers(settings.home_dir).get(paper_id, {})
    removed: dict[str, Any] = {"paper_id": paper_id, "partition": record.get("partition_key", "")}
    publication.mark_building(settings.home_dir, paper_id, "purge")  # stays hidden if this fails
    removed["vectors"] = opening.open_vectors(settings).delete_paper(paper_id)
    removed["sparse"] = opening.open_keyword_index(settings).delete_paper(paper_id)
    removed["sentence_vectors"] = sentence_vectors.delete_paper(settings.home_dir, paper_id)
    graph = opening.open_graph(settings)
    try:
        removed["graph"] = graph.delete_paper(paper_id)
    finally:
        graph.close()
    removed["documents"] = store.delete_paper(paper_id)
    key = record.get("partition_key")
    if key and store.find_paper_by_partition(key) is None:  # not re-ingested meanwhile
        store.delete_source(key)
    publication.mark_unretired(settings.home_dir, paper_id)
    publication.mark_published(settings.home_dir, paper_id)  # gone from every store
    return removed
