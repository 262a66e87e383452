"""What a finished Dagster run tells the command line (shared by ``commands`` and ``evaluate``), and
what the next command does about runs whose process died (kill -9, power loss, OOM killer).

``geo-rag ingest`` runs each paper in its own process's Dagster run, without the daemon, so nothing
else notices when that process dies: its run stays ``STARTED`` and keeps the concurrency-pool slots
its steps claimed, and the next ingest's steps wait for those slots forever. The ingest lock
(``geo_rag_runtime.home_lock``, an ``fcntl`` lock the kernel releases when its holder dies) proves that no other
``geo-rag ingest`` of this home is alive, so :func:`recover_dead_runs` may mark the command line's
unfinished runs failed and free every slot held by a run that is not running.

Daemon-launched runs have the same gap: DefaultRunLauncher's run workers are children of the code
server, and Dagster's run monitoring cannot ask that launcher whether a worker lives, so a run whose
worker was killed (the code server's process group stopped or crashed mid-run) stays ``STARTED``
with its pool slots. :func:`recover_orphaned_runs` finds them by the worker pid the run logged
("Started process for run (pid: N)"); ``scripts/stack up`` calls it on its host and re-executes them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import dagster as dg

__all__ = ["failure_messages", "recover_dead_runs", "recover_orphaned_runs", "worker_alive", "worker_pid"]

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


def worker_pid(instance: dg.DagsterInstance, run_id: str) -> tuple[int, float] | None:
    """The pid of the run's worker process and when it logged it (its "Started process for run"
    event; a Unix time)."""
    for record in instance.all_logs(run_id, of_type=dg.DagsterEventType.ENGINE_EVENT):
        event = record.dagster_event
        data = event.engine_event_data if event is not None else None
        pid = data.metadata.get("pid") if data is not None else None
        if pid is not None and str(pid.value).isdigit():
            return int(str(pid.value)), record.timestamp
    return None


def worker_alive(pid: int, logged_at: float) -> bool:
    """Whether this host runs the process ``pid`` logged at ``logged_at`` (a Unix time): a process
    with that pid that had started by then (one started later holds a reused pid) and has not
    exited (a zombie has)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        boot = next(int(line.split()[1]) for line in Path("/proc/stat").read_text().splitlines()
                    if line.startswith("btime"))  # fmt: skip
    except (OSError, ValueError, IndexError, StopIteration):
        return False
    if fields[0] == "Z":  # exited, not yet reaped
        return False
    return boot + int(fields[19]) / os.sysconf("SC_CLK_TCK") <= logged_at + 2


def recover_orphaned_runs(
    instance: dg.DagsterInstance, alive: Callable[[int, float], bool]
) -> list[dg.DagsterRun]:
    """Runs left ``STARTED`` whose worker process is gone (``alive(pid, logged_at)`` is false: no
    process has that pid, or one that started after the worker logged it, a reused pid): each is
    marked failed with the reason and its pool slots are freed, so it can be re-executed from
    failure and the runs queued behind its slots go on; returns them. A run that logged no worker
    pid is left alone (its worker may still be starting)."""
    out = []
    for record in instance.get_run_records(dg.RunsFilter(statuses=[dg.DagsterRunStatus.STARTED])):
        run = record.dagster_run
        worker = worker_pid(instance, run.run_id)
        if worker is None or alive(*worker):
            continue
        instance.report_run_failed(
            run,
            message=f"its run worker (pid {worker[0]}) is gone: the code server's processes were stopped "
            "or crashed mid-run; marked failed by `scripts/stack up`, which re-executes it from failure",
        )
        instance.event_log_storage.free_concurrency_slots_for_run(run.run_id)
        out.append(run)
    return out
