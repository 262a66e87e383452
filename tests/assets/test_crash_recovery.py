"""kill -9 of `geo-rag ingest` at three points, then a rerun that completes as if nothing happened.

One folder holds two real papers (a geochronology paper and a short ACL paper, the one killed). The first ingest completes the first paper and is killed half way
through writing the second one's vectors; the next is killed between two stages of the second paper
(its chunks and vectors written, its triples not yet begun); the next inside a step that holds a
concurrency-pool slot (the state that used to hang every later ingest: the dead run stayed STARTED
holding its pool slot and the new run waited for it forever). After each kill a question is
answered from the first paper only — the half-written one is marked building and left out — and the
last rerun completes: every store then holds exactly what a clean load of the two papers holds, no
chunk, vector, keyword entry, triple, measurement row or graph node twice.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.slow  # four Dagster ingests in subprocesses

REPO = Path(__file__).resolve().parents[2]
# ingest takes a folder's PDFs in name order: the prefixes make the killed paper the second
SOURCES = {
    # the one completed first: the sample paper that parses fastest (12 chunks; ingested in the first
    # run and again in the clean load)
    "1-LiVermeesch2021.pdf": REPO / "data/papers/LiVermeesch2021_Geochronology_InverseIsochron_CCBY.pdf",
    # the one killed three times: a short real paper (ACL 2018, 175 KB), so each of the five runs
    # that parse and embed it stays short; what is tested does not depend on its subject
    "2-N18-3011.pdf": REPO / "tests/fixtures/grobid_samples/N18-3011.pdf",
}
FIRST, PAPER = SOURCES
QUESTION = "How is an inverse isochron regression computed?"
INGEST = (
    "import sys; from geo_assets.cli.commands import ingest; "
    "sys.exit(ingest([sys.argv[1]], progress=False, corpus_assets=False))"
)
# Code run in the ingest process before it starts, to die at an exact point: real kill -9 of the
# whole process group, at a place a timer could only hit by chance.
KILL_MID_VECTOR_WRITE = f"""
import os, signal
from geo_rag_runtime.stores.vectors import ChromaVectorStore
_upsert = ChromaVectorStore.upsert_chunks
def _half_then_die(self, chunks, embeddings, identity):
    if chunks and chunks[0].source_file == {PAPER!r}:
        _upsert(self, chunks[: len(chunks) // 2], embeddings[: len(chunks) // 2], identity)
        os.killpg(os.getpgrp(), signal.SIGKILL)
    return _upsert(self, chunks, embeddings, identity)
ChromaVectorStore.upsert_chunks = _half_then_die
"""
KILL_BETWEEN_STAGES = """
import os, signal
import geo_assets.graph.extraction as extraction
def _die(*args, **kwargs):
    os.killpg(os.getpgrp(), signal.SIGKILL)
extraction.extract_triples_with = _die
"""


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


def _start(papers: Path, env: dict[str, str], prelude: str = "") -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", prelude + "\n" + INGEST, str(papers)],
        cwd=REPO,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group, which the kill takes down whole
    )


def _killed_at(papers: Path, env: dict[str, str], prelude: str) -> None:
    process = _start(papers, env, prelude)
    assert process.wait(timeout=600) == -signal.SIGKILL, "the ingest was meant to die at the kill point"


def _answered_without(home: Path, paper_id: str) -> list[str]:
    """Ask as a user would during the outage; the papers the answer uses (must not include
    ``paper_id``, the half-written paper)."""
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import Settings

    settings = Settings(home=home, generator="extractive", local_llm=False, llm_model=None)
    rag = RagService(settings, llm=None)
    try:
        answer = rag.ask(QUESTION)
    finally:
        rag.close()
    passages = [item for item in answer.contexts if item.kind == "passage"]
    used = {str(item.paper_id) for item in passages}
    for item in answer.contexts:
        if item.kind != "passage":
            used |= {str(p.paper_id) for p in item.provenance}
    assert passages, "the completed paper must still answer"
    assert paper_id not in used | {c.paper_id for c in answer.citations}
    return sorted(used)


def _clean_load(pdfs: list[Path], home: Path) -> dict[str, Any]:
    """What a clean run writes for these papers, loaded straight into empty stores (no Dagster)."""
    from geo_assets.graph.extraction import extract_triples_with
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.pipeline import chunks_from_pdf
    from geo_assets.measurements.extract import paper_measurements
    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores.graph import get_graph_store

    settings = Settings(home=home)
    graph = get_graph_store(settings)
    graph.ensure_schema()
    chunks = triples = rows = 0
    for pdf in pdfs:
        paper, made = chunks_from_pdf(pdf, settings, recover=True)  # as the cleaned_text asset does
        extracted = extract_triples_with(made, llm=None)
        graph.load(
            {"paper_id": paper.paper_id, "title": paper.title, "source_file": pdf.name}, made, extracted
        )
        chunks += len(made)
        triples += len(extracted)
        rows += len(paper_measurements(clean_paper(paper), made, paper.captions))
    counts = {"chunks": chunks, "triples": triples, "measurements": rows, "graph": dict(graph.counts())}
    graph.close()
    return counts


def test_kill_9_at_three_points_then_rerun_completes_with_clean_counts(
    tmp_path: Path,
) -> None:
    from geo_rag_runtime import contract
    from geo_rag_runtime.stores import publication

    papers = tmp_path / "papers"
    papers.mkdir()
    for name, source in SOURCES.items():
        (papers / name).write_bytes(source.read_bytes())
    paper_id = contract.paper_id_from_sha256(contract.file_sha256(papers / PAPER))
    home = tmp_path / "home"
    env = _env(home)

    # 1. in the middle of a store write: the first paper done, half the second's vectors written
    _killed_at(papers, env, KILL_MID_VECTOR_WRITE)
    assert set(publication.building_papers(home)) == {paper_id}
    first_only = _answered_without(home, paper_id)

    # 2. between stages: chunks and vectors of the second paper written, its triples not begun
    _killed_at(papers, env, KILL_BETWEEN_STAGES)
    assert set(publication.building_papers(home)) == {paper_id}
    assert _answered_without(home, paper_id) == first_only

    # 3. inside a step that holds a concurrency-pool slot: the second paper's stale steps start at
    # `triples`, which holds `llm`. The run killed in step 2 still holds that pool's slot until this
    # run recovers it, so wait for a slot claimed by a new run (waiting for any slot killed this run
    # before it started)
    dead = {run for run, _ in _held_slots(home)}
    first = _start(papers, env)
    deadline = time.monotonic() + 300
    held: list[tuple[str, str]] = []
    while time.monotonic() < deadline and first.poll() is None and not held:
        held = [(run, step) for run, step in _held_slots(home) if run not in dead]
        time.sleep(0.05)
    assert held, "the ingest never claimed a pool slot"
    os.killpg(first.pid, signal.SIGKILL)
    first.wait()
    assert set(held) <= set(_held_slots(home)), (
        "the slot must still be held by the dead run (the state to recover from)"
    )

    # the rerun recovers the dead runs, frees the slot, redoes the second paper and publishes it
    rerun = subprocess.run(
        [sys.executable, "-c", INGEST, str(papers)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert rerun.returncode == 0, rerun.stdout + rerun.stderr
    assert f"up to date: {FIRST}" in rerun.stdout
    assert rerun.stdout.count("recovered: run") >= 1 and "marked failed" in rerun.stdout
    assert _held_slots(home) == []
    assert publication.building_papers(home) == {}

    from geo_rag_runtime.settings import Settings
    from geo_rag_runtime.stores.opening import store_counts

    stores = store_counts(Settings(home=home))  # what `geo-rag status` prints
    clean = _clean_load([papers / FIRST, papers / PAPER], tmp_path / "clean")
    assert stores["documents"]["papers"] == 2
    assert stores["documents"]["chunks"] == clean["chunks"]
    assert stores["documents"]["triples"] == clean["triples"]
    assert stores["documents"]["measurements"] == clean["measurements"]
    assert stores["vectors"]["vectors"] == clean["chunks"]
    assert stores["keyword_index"]["chunks"] == clean["chunks"]
    graph = {k: v for k, v in stores["graph"].items() if k != "backend"}
    assert graph == clean["graph"]
