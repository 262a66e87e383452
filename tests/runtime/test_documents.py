"""The document store on the embedded litemongo backend: upserts, idempotence, retirement, and
whether two processes writing at once lose documents."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path

import pytest

from geo_rag_runtime import contract
from geo_rag_runtime.models import Chunk, Paper, Section, Triple
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.documents import open_document_store


def _paper(pid: str) -> Paper:
    return Paper(
        paper_id=pid,
        source_file=f"{pid}.pdf",
        sha256=pid * 4,
        title=f"Title {pid}",
        sections=[Section(heading="Intro", paragraphs=["87Sr/86Sr = 0.7035 ± 0.0001"])],
    )


def _chunks(pid: str, n: int, salt: str = "") -> list[Chunk]:
    out = []
    for i in range(n):
        text = f"chunk {i} of {pid} {salt} εNd = +5.2"
        out.append(
            Chunk(
                chunk_id=contract.chunk_id(pid, i, text),
                paper_id=pid,
                source_file=f"{pid}.pdf",
                ordinal=i,
                char_start=i * 10,
                char_end=i * 10 + 9,
                token_count=9,
                text=text,
            )
        )
    return out


def test_upserts_are_idempotent_and_retire_cleanly(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    assert store.backend == "litemongo"
    store.upsert_paper(_paper("pa"))
    store.upsert_paper(_paper("pa"))
    store.replace_chunks("pa", _chunks("pa", 5))
    store.replace_chunks("pa", _chunks("pa", 5))
    assert store.counts() == {"papers": 1, "chunks": 5, "triples": 0}
    # a re-chunked paper keeps exactly its new chunks
    store.replace_chunks("pa", _chunks("pa", 3, salt="v2"))
    assert [c.text.split()[-4] for c in store.chunks_for_paper("pa")] == ["v2"] * 3
    triple = Triple(
        triple_id="t1",
        head="zircon",
        head_type="Mineral",
        relation="CONTAINS",
        tail="Hf",
        tail_type="Element",
        paper_id="pa",
        chunk_id="c",
        sentence="s",
        extractor="rules-v1",
    )
    store.replace_triples("pa", [triple, triple])
    assert store.counts()["triples"] == 1
    assert store.find_paper_by_sha256("pa" * 4)["paper_id"] == "pa"
    # notation survives the round trip through the store
    assert store.get_paper("pa")["sections"][0]["paragraphs"][0] == "87Sr/86Sr = 0.7035 ± 0.0001"
    assert store.delete_paper("pa") == {"papers": 1, "chunks": 3, "triples": 1}
    assert store.counts() == {"papers": 0, "chunks": 0, "triples": 0}
    store.close()


def test_unique_chunk_ids_enforced(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    chunks = _chunks("pb", 2)
    with pytest.raises(Exception, match="duplicate"):
        store.replace_chunks("pb", [chunks[0], chunks[0]])
    store.close()


def _writer(home: str, pid: str, rounds: int, locked: bool) -> None:
    import os

    os.environ["GEO_RAG_HOME"] = home
    store = open_document_store(get_settings())
    if not locked:
        store._lock = None  # the raw litemongo behaviour, to find out whether the lock is needed
    for r in range(rounds):
        store.upsert_paper(_paper(pid))
        store.replace_chunks(pid, _chunks(pid, 20, salt=str(r)))
    store.close()


@pytest.mark.parametrize("locked", [False, True], ids=["raw-litemongo", "with-lock"])
def test_two_processes_writing_at_once(geo_home: Path, locked: bool) -> None:
    """Four processes replace chunk sets of different papers concurrently; count what survives."""
    ctx = mp.get_context("spawn")
    pids = ["w1", "w2", "w3", "w4"]
    procs = [ctx.Process(target=_writer, args=(str(geo_home), pid, 8, locked)) for pid in pids]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0, 0, 0]
    store = open_document_store(get_settings())
    counts = store.counts()
    assert counts == {"papers": 4, "chunks": 80, "triples": 0}, counts
    for pid in pids:
        assert all(c.text.split()[-4] == "7" for c in store.chunks_for_paper(pid))
    store.close()
