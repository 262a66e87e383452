"""The document store on the embedded litemongo backend: upserts, idempotence, retirement, and
whether two processes writing at once lose documents."""

from __future__ import annotations

import multiprocessing as mp
from pathlib import Path
from typing import Any

import pytest

from geo_rag_runtime.models import Triple
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.documents import open_document_store
from tests.runtime.document_builders import make_chunks, make_paper, make_triple


def test_upserts_are_idempotent_and_retire_cleanly(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    assert store.backend == "litemongo"
    store.upsert_paper(make_paper("pa"))
    store.upsert_paper(make_paper("pa"))
    store.replace_chunks("pa", make_chunks("pa", 5))
    store.replace_chunks("pa", make_chunks("pa", 5))
    assert store.counts() == {"papers": 1, "chunks": 5, "triples": 0, "measurements": 0}
    # a re-chunked paper keeps exactly its new chunks
    store.replace_chunks("pa", make_chunks("pa", 3, salt="v2"))
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
    assert store.delete_paper("pa") == {"papers": 1, "chunks": 3, "triples": 1, "measurements": 0}
    assert store.counts() == {"papers": 0, "chunks": 0, "triples": 0, "measurements": 0}
    store.close()


def test_unique_chunk_ids_enforced(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    chunks = make_chunks("pb", 2)
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
        store.upsert_paper(make_paper(pid))
        store.replace_chunks(pid, make_chunks(pid, 20, salt=str(r)))
    store.close()


@pytest.mark.parametrize("locked", [False, True], ids=["raw-litemongo", "with-lock"])
@pytest.mark.slow  # spawns processes
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
    assert counts == {"papers": 4, "chunks": 80, "triples": 0, "measurements": 0}, counts
    for pid in pids:
        assert all(c.text.split()[-4] == "7" for c in store.chunks_for_paper(pid))
    store.close()


class _CountingLock:
    """Stands in for the inter-process write lock and counts how often a write method took it."""

    def __init__(self) -> None:
        self.entered = 0

    def __enter__(self) -> None:
        self.entered += 1

    def __exit__(self, *exc: object) -> None:
        return None


def test_find_paper_by_partition(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store.upsert_paper(make_paper("pa"), partition_key="pa.pdf", source_path="/papers/pa.pdf")
    store.upsert_paper(make_paper("pb"))
    doc = store.find_paper_by_partition("pa.pdf")
    assert doc is not None and doc["paper_id"] == "pa" and doc["source_path"] == "/papers/pa.pdf"
    assert doc["sections"][0]["heading"] == "Intro"  # the whole document, not a projection
    assert store.find_paper_by_partition("pb.pdf") is None  # stored without a partition key
    assert store.find_paper_by_partition("nope.pdf") is None
    store.close()


def test_paper_sha256_for_partition(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store.upsert_paper(make_paper("pa"), partition_key="pa.pdf")
    assert store.paper_sha256_for_partition("pa.pdf") == "pa" * 4
    assert store.paper_sha256_for_partition("other.pdf") is None
    store.close()


def assert_triple_entities_contract(store: Any) -> None:
    """What every document backend does with a paper's triples (litemongo here, a MongoDB wire
    server in tests/stores): entities streamed head then tail in store order, a smaller second set
    replaces the first, deleting the paper leaves none."""
    store.replace_triples(
        "pa",
        [
            make_triple("t1", "zircon", "Mineral", "Hf", "Element"),
            make_triple("t2", "basalt", "Rock", "Hf", "Element"),
        ],
    )
    assert list(store.triple_entities()) == [
        ("Mineral", "zircon"),
        ("Element", "Hf"),
        ("Rock", "basalt"),
        ("Element", "Hf"),
    ]
    # a smaller second set: the triple no longer extracted goes
    assert store.replace_triples("pa", [make_triple("t2", "basalt", "Rock", "Hf", "Element")]) == {
        "upserted": 1,
        "deleted_stale": 1,
    }
    assert [t.triple_id for t in store.triples_for_paper("pa")] == ["t2"]
    store.delete_paper("pa")
    assert list(store.triple_entities()) == []


def test_triple_entities(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    assert_triple_entities_contract(store)
    store.close()


def test_register_source(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store._lock = lock = _CountingLock()  # type: ignore[assignment]
    store.register_source("a.pdf", "/papers/a.pdf")
    store.register_source("a.pdf", "/elsewhere/a.pdf")  # re-pointing the key replaces the entry
    assert lock.entered == 2
    assert store.sources() == {"a.pdf": "/elsewhere/a.pdf"}
    store.close()


def test_source_path(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store.register_source("a.pdf", "/papers/a.pdf")
    assert store.source_path("a.pdf") == "/papers/a.pdf"
    assert store.source_path("b.pdf") is None
    store.close()


def test_source_key_for_path(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store.register_source("a.pdf", "/papers/a.pdf")
    store.register_source("a-1f2e3d.pdf", "/other/a.pdf")
    assert store.source_key_for_path("/other/a.pdf") == "a-1f2e3d.pdf"
    assert store.source_key_for_path("/papers/a.pdf") == "a.pdf"
    assert store.source_key_for_path("/papers/a.pdf/") is None  # compared exactly as stored
    store.close()


def test_sources(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    assert store.sources() == {}
    store.register_source("a.pdf", "/papers/a.pdf")
    store.register_source("b.pdf", "/papers/b.pdf")
    assert store.sources() == {"a.pdf": "/papers/a.pdf", "b.pdf": "/papers/b.pdf"}
    store.close()


def test_delete_source(geo_home: Path) -> None:
    store = open_document_store(get_settings())
    store.register_source("a.pdf", "/papers/a.pdf")
    store.register_source("b.pdf", "/papers/b.pdf")
    store._lock = lock = _CountingLock()  # type: ignore[assignment]
    assert store.delete_source("a.pdf") == 1
    assert store.delete_source("a.pdf") == 0
    assert lock.entered == 2
    assert store.sources() == {"b.pdf": "/papers/b.pdf"}
    store.close()
