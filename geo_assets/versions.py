"""The versions Dagster recorded for materializations: code version, data version and time.

Dagster keeps an asset's code and data version as tags on each materialization event in the
instance (``dagster/code_version``, ``dagster/data_version``). This module is the one place in the
code location that reads them: ``geo-rag status`` (``cli.commands.asset_versions``) and the
up-to-date check of ``geo-rag ingest`` (``cli.commands.up_to_date``) go through it.

It does not import Dagster: the caller passes its ``DagsterInstance`` and the records filter that
``DagsterInstance.fetch_materializations`` takes (an ``AssetKey`` or an ``AssetRecordsFilter``), so
any module here may use it without widening the import contracts (pyproject.toml, importlinter).
"""

from dataclasses import dataclass
from typing import Any

CODE_VERSION_TAG = "dagster/code_version"
DATA_VERSION_TAG = "dagster/data_version"
UNPARTITIONED = "-"  # the partition name used for an unpartitioned asset's materializations


@dataclass(frozen=True)
class MaterializedVersion:
    """What one materialization recorded: its data and code version (``None`` when untagged) and
    its event time (seconds since the epoch)."""

    data_version: str | None
    code_version: str | None
    timestamp: float


def latest_versions(instance: Any, records_filter: Any, *, limit: int) -> dict[str, MaterializedVersion]:
    """The newest materialization of each partition (``UNPARTITIONED`` for none) among the newest
    ``limit`` materialization records that ``records_filter`` selects, newest partition first.

    ``instance`` is a ``dagster.DagsterInstance``; ``records_filter`` an ``AssetKey`` or an
    ``AssetRecordsFilter``. Records without a materialization are skipped."""
    latest: dict[str, MaterializedVersion] = {}
    for record in instance.fetch_materializations(records_filter, limit=limit).records:  # newest first
        materialization = record.asset_materialization
        if materialization is None:
            continue
        partition = materialization.partition or UNPARTITIONED
        if partition in latest:
            continue
        tags = materialization.tags or {}
        latest[partition] = MaterializedVersion(
            data_version=tags.get(DATA_VERSION_TAG),
            code_version=tags.get(CODE_VERSION_TAG),
            timestamp=record.timestamp,
        )
    return latest
