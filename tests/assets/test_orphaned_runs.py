"""A daemon-launched run whose worker process died stays STARTED in Dagster (DefaultRunLauncher has
no worker health check); :func:`geo_assets.cli.runs.recover_orphaned_runs` marks it failed by the
worker pid it logged and frees its pool slots, and leaves runs with a live worker alone.
(`tests/stack` kills a real code server mid-run; this checks the rule on a real Dagster instance.)"""

from __future__ import annotations

import dagster as dg
from dagster._core.events import EngineEventData

from geo_assets.cli.runs import recover_orphaned_runs, worker_pid


def _started(instance: dg.DagsterInstance, run_id: str, pid: int) -> dg.DagsterRun:
    run = instance.add_run(
        dg.DagsterRun(job_name="ingest_paper_job", run_id=run_id, status=dg.DagsterRunStatus.STARTED)
    )
    instance.report_engine_event(
        f"Started process for run (pid: {pid}).", run, EngineEventData.in_process(pid)
    )
    return run


def test_runs_whose_worker_is_gone_are_failed_and_free_their_slots() -> None:
    with dg.instance_for_test() as instance:
        gone = _started(instance, "a" * 8 + "-0000-0000-0000-000000000000", 424242)
        live = _started(instance, "b" * 8 + "-0000-0000-0000-000000000000", 4343)
        silent = instance.add_run(  # no worker pid logged yet: may still be starting
            dg.DagsterRun(job_name="ingest_paper_job", run_id="c" * 8 + "-0000-0000-0000-000000000000",
                          status=dg.DagsterRunStatus.STARTED)
        )  # fmt: skip
        storage = instance.event_log_storage
        storage.set_concurrency_slots("grobid", 1)
        assert storage.claim_concurrency_slot("grobid", gone.run_id, "tei_xml").is_claimed
        pid, logged_at = worker_pid(instance, gone.run_id) or (0, 0.0)
        assert pid == 424242 and logged_at > 0

        recovered = recover_orphaned_runs(instance, alive=lambda pid, _at: pid == 4343)

        assert [r.run_id for r in recovered] == [gone.run_id]
        status = {r.run_id: r.status for r in instance.get_runs()}
        assert status[gone.run_id] == dg.DagsterRunStatus.FAILURE
        assert status[live.run_id] == status[silent.run_id] == dg.DagsterRunStatus.STARTED
        assert gone.run_id not in storage.get_concurrency_run_ids()
        assert storage.claim_concurrency_slot("grobid", live.run_id, "tei_xml").is_claimed
        assert recover_orphaned_runs(instance, alive=lambda pid, _at: pid == 4343) == []


def test_a_worker_is_alive_only_as_the_process_that_logged_its_pid() -> None:
    import os
    import subprocess
    import sys
    import time

    from geo_assets.cli.runs import worker_alive

    assert worker_alive(os.getpid(), time.time())
    assert not worker_alive(os.getpid(), time.time() - 3600)  # a process started after the log: a reused pid
    done = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    assert not worker_alive(int(done.stdout), time.time())  # exited
