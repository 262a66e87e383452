"""What a finished Dagster run tells the command line (shared by ``commands`` and ``evaluate``), and
what the next command does about runs whose process died (kill -9, power loss, OOM killer).

``geo-rag ingest`` runs each paper in its own process's Dagster run, without the daemon, so nothing
else notices when that process dies: its run stays ``STARTED`` and keeps the concurrency-pool slots
its steps claimed, and the next ingest's steps wait for those slots forever. The ingest lock
(``geo_rag_runtime.home_lock``, an ``fcntl`` lock the kernel releases when its holder dies) proves that no other
``geo-rag ingest`` of this home is alive, so :func:`recover_dead_runs` may mark the command line's
unfinished runs failed and free every slot held by a run that is not running.
"""

from __future__ import annotations

import dagster as dg

__all__ = ["failure_messages", "recover_dead_runs"]

_UNFINISHED = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
    dg.DagsterRunStatus.CANCELING,
]


def failure_messages(result: dg.ExecuteInProcessResult) -> list[str]:
    """One line per failed step: the asset's own failure description, else the error's last line."""
    messages = []
    for event in result.all_events:
        if event.is_step_failure and event.step_failure_data is not None:
            data = event.step_failure_data
            if data.user_failure_data is not None and data.user_failure_data.description:
                messages.append(data.user_failure_data.description)
            elif data.error is not None:
                messages.append(f"{event.step_key}: {data.error.message.strip().splitlines()[-1]}")
    return messages


def recover_dead_runs(instance: dg.DagsterInstance, reason: str = "cli-ingest") -> list[str]:
    """Call only while holding the home lock (``geo_rag_runtime.home_lock``). Marks this command's unfinished runs (tag
    ``georag/reason``) failed — their process is gone — and frees the pool slots of every run that
    is not running; returns one line per run recovered."""
    lines = []
    records = instance.get_run_records(dg.RunsFilter(statuses=_UNFINISHED, tags={"georag/reason": reason}))
    for record in records:
        run = record.dagster_run
        instance.report_run_failed(
            run,
            message="the geo-rag ingest process that ran this is gone (killed or crashed); "
            "marked failed by the next geo-rag ingest, which redoes the paper",
        )
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        partition = run.tags.get("dagster/partition", "corpus assets")
        lines.append(
            f"recovered: run {run.run_id[:8]} ({partition}) was left {run.status.value}; marked failed"
        )
    storage = instance.event_log_storage
    if storage.supports_global_concurrency_limits:
        holders = storage.get_concurrency_run_ids()
        for run_id in sorted(holders):
            holder = instance.get_run_by_id(run_id)
            if holder is None or holder.is_finished:
                storage.free_concurrency_slots_for_run(run_id)
                lines.append(f"recovered: freed the pool slots of finished run {run_id[:8]}")
    return lines
