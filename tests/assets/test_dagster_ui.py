"""`dagster dev` serves the code location: the UI's GraphQL API lists our assets with their groups
and lineage, and the sensor registers a new PDF as a partition with a run request."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a whole Dagster ingest or server: run in CI, not in the inner loop

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_dagster_dev_shows_asset_graph(tmp_path: Path) -> None:
    port = _free_port()
    env = dict(
        os.environ,
        DAGSTER_HOME=str(REPO),
        GEO_RAG_HOME=str(tmp_path / "home"),
        GEO_RAG_DAGSTER_STORAGE=str(tmp_path / "home" / "dagster"),
        GEO_RAG_PAPERS=str(tmp_path / "papers"),
    )
    dagster = str(Path(sys.executable).with_name("dagster"))
    # own process group: `dagster dev` leaves children behind otherwise
    # (docs/architecture.md#measured-pitfalls)
    proc = subprocess.Popen(
        [dagster, "dev", "-w", str(REPO / "workspace.yaml"), "-p", str(port)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        query = {"query": "{ assetNodes { assetKey { path } groupName dependencyKeys { path } } }"}
        deadline = time.time() + 180
        nodes = None
        while time.time() < deadline:
            try:
                request = urllib.request.Request(
                    f"http://127.0.0.1:{port}/graphql",
                    data=json.dumps(query).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(request, timeout=10) as response:
                    body = json.loads(response.read())
                nodes = body.get("data", {}).get("assetNodes")
                if nodes:
                    break
            except OSError:
                pass
            time.sleep(0.25)  # only waits for the server to come up; the deadline stays 180 s
        assert nodes, "dagster dev did not serve the asset graph within 180 s"
        graph = {
            "/".join(n["assetKey"]["path"]): {"/".join(d["path"]) for d in n["dependencyKeys"]} for n in nodes
        }
        groups = {"/".join(n["assetKey"]["path"]): n["groupName"] for n in nodes}
        assert graph["knowledge_graph"] == {"triples"}
        assert graph["chunks"] == {"cleaned_text"}
        assert groups["chunk_embeddings"] == "index" and groups["query_classifier"] == "queries"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


def test_sensor_registers_new_pdf_and_requests_its_run(
    tmp_path: Path, sample_papers: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import dagster as dg

    from geo_assets.definitions import defs
    from geo_assets.resources import default_resources

    papers = tmp_path / "papers"
    papers.mkdir()
    name = "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf"
    shutil.copy(sample_papers / name, papers / name)
    monkeypatch.setenv("GEO_RAG_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("GEO_RAG_PAPERS", str(papers))
    with dg.instance_for_test() as instance:
        sensor = defs.resolve_sensor_def("new_papers_sensor")
        resources = default_resources()
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            result = sensor(context)
        assert [r.partition_key for r in result.run_requests] == [name]
        assert result.dynamic_partitions_requests[0].partition_keys == [name]
        instance.add_dynamic_partitions("papers", [name])
        # a second evaluation finds nothing new
        with dg.build_sensor_context(instance=instance, resources=resources) as context:
            again = sensor(context)
        assert isinstance(again, dg.SkipReason)
