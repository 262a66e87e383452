"""Watching the papers folder: a sensor for new/removed PDFs and a schedule that re-scans.

New PDFs get a partition and a run of ``ingest_paper_job``; a PDF that disappeared from the folder
gets its partition deleted and its documents, vectors, keywords and graph provenance retired.
Changed bytes under the same name show up as a new data version of ``raw_pdf`` (stale downstream)
and are re-run.
"""

from pathlib import Path
from typing import Any

import dagster as dg

from geo_assets.ingest import registry
from geo_assets.ingest.retire import retire_paper
from geo_assets.partitions import PAPERS, papers_partitions
from geo_assets.resources import DocumentStoreResource, GeoRagResource
from geo_rag_runtime import contract


def scan(
    instance: dg.DagsterInstance, geo: GeoRagResource, documents: DocumentStoreResource
) -> tuple[list[str], list[str], list[str]]:
    """Register new PDFs of the papers folder; retire partitions whose file is gone.

    Returns (new partition keys, changed partition keys, removed partition keys).
    """
    settings = geo.settings()
    folder = Path(settings.papers).expanduser().resolve()
    known = set(instance.get_dynamic_partitions(PAPERS))
    new: list[str] = []
    changed: list[str] = []
    removed: list[str] = []
    with documents.open() as store:
        for pdf in registry.scan_pdfs([folder]) if folder.is_dir() else []:
            key = registry.register(store, pdf)
            if key not in known:
                new.append(key)
                continue
            stored_sha256 = store.paper_sha256_for_partition(key)
            if stored_sha256 is not None and stored_sha256 != contract.file_sha256(pdf):
                changed.append(key)
        for key, path in registry.registered(store).items():
            if not path.exists() and key in known:
                retire_paper(settings, store, key)
                removed.append(key)
    return new, changed, removed


def _requests(new: list[str], changed: list[str], removed: list[str]) -> tuple[list, list]:
    dyn: list[Any] = []
    if new:
        dyn.append(papers_partitions.build_add_request(new))
    if removed:
        dyn.append(papers_partitions.build_delete_request(removed))
    runs = [
        dg.RunRequest(partition_key=k, run_key=None, tags={"georag/reason": "new" if k in new else "changed"})
        for k in [*new, *changed]
    ]
    return runs, dyn


def build_sensor_and_schedule(job: Any):
    @dg.sensor(
        job=job,
        minimum_interval_seconds=60,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Registers each new PDF in GEO_RAG_PAPERS as a partition and requests its "
        "ingest run; retires partitions whose PDF was removed.",
    )
    def new_papers_sensor(
        context: dg.SensorEvaluationContext, geo: GeoRagResource, documents: DocumentStoreResource
    ):
        new, changed, removed = scan(context.instance, geo, documents)
        runs, dyn = _requests(new, changed, removed)
        if not runs and not dyn:
            return dg.SkipReason("no new, changed or removed PDFs")
        return dg.SensorResult(run_requests=runs, dynamic_partitions_requests=dyn)

    @dg.schedule(
        job=job,
        cron_schedule="0 2 * * *",
        default_status=dg.DefaultScheduleStatus.STOPPED,
        description="Nightly re-scan of the papers folder (for deployments that keep the sensor off).",
    )
    def nightly_rescan(
        context: dg.ScheduleEvaluationContext, geo: GeoRagResource, documents: DocumentStoreResource
    ):
        new, changed, removed = scan(context.instance, geo, documents)
        if new:
            context.instance.add_dynamic_partitions(PAPERS, new)
        if removed:
            for key in removed:
                context.instance.delete_dynamic_partition(PAPERS, key)
        runs, _ = _requests(new, changed, removed)
        return runs or dg.SkipReason("no new or changed PDFs")

    return new_papers_sensor, nightly_rescan
