"""The run folder and the run history: a new folder per run, tables stamped with the identity, runs.csv.

Tables are written as parquet (the identity in the schema metadata) and csv; ``runs.csv`` gets one row
per run, appended under a file lock, never rewritten.
"""

import csv
import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pandas as pd

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
