"""kill -9 of `geo-rag ingest` inside a step that holds a concurrency-pool slot, then a rerun.

Before the fix the rerun never finished: the dead run stayed STARTED holding the `grobid` pool slot
and the new run's `tei_xml` waited for it forever. Now the rerun (which takes the home's ingest lock,
so no other ingest can be alive) marks the dead run failed, frees its slots, and completes; every
store then holds each chunk once, exactly as many as the chunker makes.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # two Dagster ingests in subprocesses

REPO = Path(__file__).resolve().parents[2]
PAPER = "McNabBall2023_Volcanica_meltPT_CCBY.pdf"
INGEST = (
    "import sys; from geo_assets.cli.commands import ingest; "
    "sys.exit(ingest([sys.argv[1]], progress=False, corpus_assets=False))"
)


def _env(home: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"GROBID_URL", "MONGODB_URI", "CHROMA_HOST", "NEO4J_URI"}
    }
    env.update(
        GEO_RAG_HOME=str(home),
        DAGSTER_HOME=str(REPO),
        GEO_RAG_DAGSTER_STORAGE=str(home / "dagster"),
        GEO_RAG_LOCAL_LLM="false",
        GEO_RAG_EMBEDDING_RUNTIME="torch",  # no ONNX export in this test: it is about the runs
    )
    return env


def _held_slots(home: Path) -> list[tuple[str, str]]:
    """(run id, step) of every claimed pool slot, read from the instance's SQLite index."""
    index = home / "dagster" / "history" / "runs" / "index.db"
    if not index.exists():
        return []
    try:
        with sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=1) as db:
            rows = db.execute(
                "SELECT run_id, step_key FROM concurrency_slots WHERE run_id IS NOT NULL"
            ).fetchall()
    except sqlite3.Error:
        return []
    return [(str(r), str(s)) for r, s in rows]


def test_kill_9_holding_a_pool_slot_then_rerun_completes_without_duplicates(
    tmp_path: Path, sample_papers: Path
) -> None:
    papers = tmp_path / "papers"
    papers.mkdir()
    (papers / PAPER).write_bytes((sample_papers / PAPER).read_bytes())
    home = tmp_path / "home"
    env = _env(home)

    first = subprocess.Popen(
        [sys.executable, "-c", INGEST, str(papers)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    held: list[tuple[str, str]] = []
    while time.monotonic() < deadline and first.poll() is None and not held:
        held = _held_slots(home)
        time.sleep(0.05)
    assert held, "the ingest never claimed a pool slot"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert _held_slots(home), "the slot must still be held by the dead run (the state to recover from)"

    rerun = subprocess.run(
        [sys.executable, "-c", INGEST, str(papers)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert "recovered: run" in rerun.stdout and "marked failed" in rerun.stdout
    assert _held_slots(home) == []

    report = subprocess.run(
        [sys.executable, "-m", "geo_rag_runtime.cli", "status", "--json"],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    status = json.loads(report)["stores"]
    from geo_assets.ingest.pipeline import chunks_from_pdf
    from geo_rag_runtime.settings import Settings

    _, chunks = chunks_from_pdf(papers / PAPER, Settings(home=home))
    assert status["documents"]["papers"] == 1
    assert status["documents"]["chunks"] == len(chunks)
    assert status["vectors"]["vectors"] == len(chunks)
    assert status["keyword_index"]["chunks"] == len(chunks)
    assert status["graph"]["chunks"] == len(chunks)
