"""One writer at a time: a run the sensor launched and a `geo-rag ingest` of the same home, at once.

The sensor sees a new PDF in the watched folder and requests its run; while that run (its own
process, as Dagster's run worker) ingests it, a user runs `geo-rag ingest` on a PDF from elsewhere.
The second writer must say whom it waits for and start only when the first has finished, and the
stores must end with exactly both papers: every chunk once in the vectors and the keyword index,
both papers in the graph, none left building.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import pytest

CLI_INGEST = (
    "import sys; from geo_assets.cli.commands import ingest; "
    "sys.exit(ingest([sys.argv[1]], progress=False, corpus_assets=False))"
)

pytestmark = pytest.mark.slow  # two real paper ingests in subprocesses (about 1 min)

REPO = Path(__file__).resolve().parents[2]
WATCHED = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
ELSEWHERE = "LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf"


def _holder_pid(home: Path) -> int | None:
    try:
        record = json.loads((home / "ingest.pid").read_text())
    except (OSError, ValueError):
        return None
    return int(record["pid"]) if isinstance(record, dict) else int(record)


def test_a_sensor_run_and_a_cli_ingest_write_one_after_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo_assets.definitions import new_papers_sensor
    from geo_assets.partitions import PAPERS
    from geo_assets.resources import default_resources
    from geo_rag_runtime.settings import get_settings
    from geo_rag_runtime.stores import publication
    from geo_rag_runtime.stores.opening import store_counts

    home, papers, downloads = tmp_path / "home", tmp_path / "papers", tmp_path / "downloads"
    papers.mkdir()
    downloads.mkdir()
    shutil.copy(REPO / "data" / "papers" / WATCHED, papers / WATCHED)
    shutil.copy(REPO / "data" / "papers" / ELSEWHERE, downloads / ELSEWHERE)
    env = {"GEO_RAG_HOME": str(home), "GEO_RAG_PAPERS": str(papers), "DAGSTER_HOME": str(REPO)}
    env["GEO_RAG_DAGSTER_STORAGE"] = str(home / "dagster")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    for var in ("MONGODB_URI", "CHROMA_HOST", "NEO4J_URI", "GROBID_URL", "GEO_RAG_LLM_MODEL"):
        monkeypatch.delenv(var, raising=False)
    # no ONNX export of the embedding model in the CLI's ingest: this test is about the two writers
    # (the export is made and checked by the runtime knowledge base and test_ingest_pipeline)
    child_env = {**os.environ, "PYTHONPATH": str(REPO), "GEO_RAG_EMBEDDING_RUNTIME": "torch"}

    with dg.DagsterInstance.get() as instance:  # the sensor's evaluation, as the daemon runs it
        resources = {k: v for k, v in default_resources().items() if k in ("geo", "documents")}
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            result = new_papers_sensor(context)
        assert isinstance(result, dg.SensorResult)
        assert [r.partition_key for r in result.run_requests] == [WATCHED]
        instance.add_dynamic_partitions(PAPERS, [WATCHED])  # the daemon applies its partition request

    sensor_run = subprocess.Popen(
        [sys.executable, "-m", "tests.assets.sensor_run", WATCHED],
        cwd=REPO,
        env=child_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    deadline = time.monotonic() + 120
    while _holder_pid(home) != sensor_run.pid and time.monotonic() < deadline and sensor_run.poll() is None:
        time.sleep(0.1)  # until the run holds the home (its resources are set up before any step)
    cli = subprocess.run(
        # the ingest command's own function, without the corpus assets (a classifier training, ~40 s,
        # that the two writers do not need); `geo-rag ingest` itself runs in scripts/check_serve_install,
        # tests/stack and the quickstart
        [sys.executable, "-c", CLI_INGEST, str(downloads / ELSEWHERE)],
        cwd=REPO,
        env=child_env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    run_output = sensor_run.communicate(timeout=900)[0]
    assert sensor_run.returncode == 0, run_output[-3000:]
    assert cli.returncode == 0, cli.stdout[-2000:] + cli.stderr[-3000:]
    assert f"waiting for the home lock held by pid {sensor_run.pid} (Dagster run" in cli.stdout, cli.stdout

    with dg.DagsterInstance.get() as instance:  # the CLI's runs began after the sensor's run ended
        records = instance.get_run_records()
        sensor = [r for r in records if r.dagster_run.tags.get("georag/reason") == "new"]
        cli_runs = [r for r in records if r.dagster_run.tags.get("georag/reason") == "cli-ingest"]
        assert len(sensor) == 1 and sensor[0].dagster_run.is_success and cli_runs
        assert all(r.start_time is not None for r in cli_runs) and sensor[0].end_time is not None
        assert sensor[0].end_time <= min(r.start_time for r in cli_runs if r.start_time is not None)

    settings = get_settings()
    counts = store_counts(settings)
    documents = counts["documents"]
    assert documents["papers"] == 2, counts
    assert counts["vectors"]["vectors"] == documents["chunks"] == counts["keyword_index"]["chunks"], counts
    assert counts["graph"]["papers"] == 2 and counts["graph"]["chunks"] == documents["chunks"], counts
    assert publication.building_papers(settings.home_dir) == {}
