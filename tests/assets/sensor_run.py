"""A run the sensor requested, executed as Dagster's run worker executes it: the code location's
``ingest_paper_job`` (with its resources and executor) for one partition, in a process of its own.

``python -m tests.assets.sensor_run PARTITION`` (environment: GEO_RAG_HOME, DAGSTER_HOME, …); prints
the run id and exits non-zero if the run failed. tests/assets/test_one_writer.py runs it.
"""

from __future__ import annotations

import sys

import dagster as dg


def ingest_job() -> dg.JobDefinition:
    """The job as the code location defines it (resolved against its resources and executor)."""
    from geo_assets.definitions import build_definitions

    return build_definitions().resolve_job_def("ingest_paper_job")


def main(partition: str) -> int:
    with dg.DagsterInstance.get() as instance:
        result = dg.execute_job(
            dg.reconstructable(ingest_job),
            instance=instance,
            tags={"dagster/partition": partition, "georag/reason": "new"},
        )
        print(f"run {result.run_id} success={result.success}", flush=True)
        return 0 if result.success else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
