"""Watching the papers folder: a sensor for new/removed PDFs and a schedule that re-scans.

New PDFs get a partition and a run of ``ingest_paper_job``; changed bytes under the same name show
up as a new data version of ``raw_pdf`` (stale downstream) and are re-run. A PDF that disappeared
from the folder retires its paper — hidden from questions, kept in every store until ``geo-rag
purge`` — under the rules of ``geo_assets.ingest.retire``: only papers ingested from the watched
folder, never while the folder is missing or unreadable, never more than
``GEO_RAG_RETIRE_MAX_SHARE`` of the papers at once (logged and skipped instead), and the same PDF
coming back brings its paper back. Registered files that never became a paper (a failed or
duplicate PDF) are simply forgotten, with their partition.

Retiring takes the home's writer lock without waiting: while an ingest, a run, a backup or a
restore writes, the evaluation skips retirement and says so; the next one catches up.
"""

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import dagster as dg
from dagster._utils.schedules import is_valid_cron_string

from geo_assets.ingest import registry, retire
from geo_assets.partitions import PAPERS, papers_partitions
from geo_assets.resources import DocumentStoreResource, GeoRagResource
from geo_rag_runtime import contract
from geo_rag_runtime.errors import ConfigurationError
from geo_rag_runtime.home_lock import HomeBusyError, home_lock
from geo_rag_runtime.settings import Settings


@dataclass
class ScanResult:
    """One scan of the papers folder: partition keys by what happened to them."""

    new: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)  # forgotten registrations (no paper): partition deleted
    retired: list[str] = field(default_factory=list)  # papers hidden, data kept until purged
    restored: list[str] = field(default_factory=list)  # retired papers whose PDF came back
    warnings: list[str] = field(default_factory=list)
    sha256: dict[str, str] = field(default_factory=dict)  # changed keys: the bytes now in the folder


def scan(
    instance: dg.DagsterInstance,
    geo: GeoRagResource,
    documents: DocumentStoreResource,
    log: Callable[[str], None] | None = None,
) -> ScanResult:
    """Register new PDFs of the papers folder; retire (within the limits) papers whose PDF is gone."""
    settings = geo.settings()
    folder = Path(settings.papers).expanduser().resolve()
    result = ScanResult()

    def warn(message: str) -> None:
        result.warnings.append(message)
        if log is not None:
            log(message)

    problem = retire.folder_problem(folder)
    if problem is not None:
        warn(f"{problem}: no PDF is registered or retired until it is readable again")
        return result
    known = set(instance.get_dynamic_partitions(PAPERS))
    with documents.open() as store:
        for pdf in registry.scan_pdfs([folder]):
            key = registry.register(store, pdf)
            if key not in known:
                result.new.append(key)
                continue
            stored_sha256 = store.paper_sha256_for_partition(key)
            if stored_sha256 is not None and stored_sha256 != (sha256 := contract.file_sha256(pdf)):
                result.changed.append(key)
                result.sha256[key] = sha256
        try:
            with home_lock(settings.home_dir, warn, what="new_papers_sensor (retirement)", wait=False):
                plan = retire.plan_retirement(settings, store, known)
                for key in plan.back:
                    record = retire.find_retired(settings, key)
                    if record is not None and retire.unretire_paper(settings, record["paper_id"]):
                        result.restored.append(key)
                for key in plan.orphans:
                    registry.unregister(store, key)
                    result.removed.append(key)
                if plan.over_limit:
                    warn(
                        f"not retiring: {plan.describe()}. An unmounted or emptied folder looks like "
                        "this; if the PDFs were removed on purpose, run `geo-rag retire --confirm`"
                    )
                else:
                    for key in plan.missing:
                        if retire.retire_paper(settings, store, key, f"its PDF left {folder}") is not None:
                            result.retired.append(key)
        except HomeBusyError as exc:
            warn(f"not retiring this time: {exc}; the next evaluation tries again")
    return result


def _requests(result: ScanResult) -> tuple[list[Any], list[Any]]:
    dyn: list[Any] = []
    if result.new:
        dyn.append(papers_partitions.build_add_request(result.new))
    if result.removed:
        dyn.append(papers_partitions.build_delete_request(result.removed))
    # A changed PDF: one run per (file, bytes). It stays "changed" until its run has stored the new
    # bytes, and without a run key every tick in between queued another run of it (measured on the
    # production stack: five runs of one paper in a minute), as did every tick after a failed run;
    # Dagster skips a request whose run key this sensor or schedule already used (re-running a failed
    # paper is the UI's re-execute, or `geo-rag ingest`). A new PDF needs none: its partition is
    # added with the request, so the next tick knows it, and one put back after its failed
    # registration was forgotten is tried again.
    runs = [dg.RunRequest(partition_key=k, run_key=None, tags={"georag/reason": "new"}) for k in result.new]
    runs += [
        dg.RunRequest(partition_key=k, run_key=f"{k}@{result.sha256[k]}", tags={"georag/reason": "changed"})
        for k in result.changed
    ]
    return runs, dyn


def _summary(result: ScanResult) -> str:
    parts = [
        f"{len(keys)} {what}: {', '.join(keys[:10])}"
        for what, keys in (
            ("retired (geo-rag unretire undoes it)", result.retired),
            ("back", result.restored),
        )
        if keys
    ]
    return "; ".join(parts)


def build_sensor_and_schedule(job: Any) -> tuple[Any, Any]:
    """The sensor and the schedule, timed by GEO_RAG_SENSOR_INTERVAL_S and GEO_RAG_RESCAN_CRON: Dagster
    fixes both when the code location loads, so they are the two settings read then (a restart of
    the code server applies a change)."""
    settings = Settings()
    if not is_valid_cron_string(settings.rescan_cron):
        raise ConfigurationError(
            f"GEO_RAG_RESCAN_CRON={settings.rescan_cron!r} is not a cron string (five fields, e.g. '0 2 * * *')"
        )

    @dg.sensor(
        job=job,
        minimum_interval_seconds=settings.sensor_interval_s,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Registers each new PDF in GEO_RAG_PAPERS as a partition and requests its "
        "ingest run; retires (hides, until `geo-rag purge`) papers whose PDF left the folder, "
        "within GEO_RAG_RETIRE_MAX_SHARE and never while the folder is missing.",
    )
    def new_papers_sensor(
        context: dg.SensorEvaluationContext, geo: GeoRagResource, documents: DocumentStoreResource
    ) -> Any:
        result = scan(context.instance, geo, documents, log=context.log.warning)
        if _summary(result):
            context.log.info(_summary(result))
        runs, dyn = _requests(result)
        if not runs and not dyn:
            return dg.SkipReason(
                "; ".join(result.warnings) or _summary(result) or "no new, changed or removed PDFs"
            )
        return dg.SensorResult(run_requests=runs, dynamic_partitions_requests=dyn)

    @dg.schedule(
        job=job,
        cron_schedule=settings.rescan_cron,
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description="Nightly re-scan of the papers folder (for deployments that keep the sensor off).",
    )
    def nightly_rescan(
        context: dg.ScheduleEvaluationContext, geo: GeoRagResource, documents: DocumentStoreResource
    ) -> Any:
        result = scan(context.instance, geo, documents, log=context.log.warning)
        if result.new:
            context.instance.add_dynamic_partitions(PAPERS, result.new)
        for key in result.removed:
            context.instance.delete_dynamic_partition(PAPERS, key)
        runs, _ = _requests(result)
        return runs or dg.SkipReason("; ".join(result.warnings) or "no new or changed PDFs")

    return new_papers_sensor, nightly_rescan
