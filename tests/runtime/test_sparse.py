"""SparseIndex: BM25 math, persistence, per-paper updates, filters and several processes."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from geo_rag_runtime.contract import chunk_id
from geo_rag_runtime.errors import InputError
from geo_rag_runtime.models import Chunk
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.sparse import SparseIndex
from geo_rag_runtime.text.keyword_terms import normalize_tokens
from tests.runtime import retrieval_corpus as rc

REPO = Path(__file__).resolve().parents[2]


def _chunk(paper_id: str, ordinal: int, text: str, section: str = "Results") -> Chunk:
    return Chunk(
        chunk_id=chunk_id(paper_id, ordinal, text),
        paper_id=paper_id,
        source_file=f"{paper_id}.pdf",
        title=f"Title of {paper_id}",
        section=section,
        ordinal=ordinal,
        char_start=ordinal * 100,
        char_end=ordinal * 100 + len(text),
        token_count=len(text.split()),
        text=text,
        tokens=normalize_tokens(text),
    )


@pytest.fixture(scope="module")
def real(sample_papers: Path) -> dict[str, list[Chunk]]:
    return {name: list(rc.paper_chunks(sample_papers / name)) for name in (rc.PEASE, rc.KELLER)}


def test_scores_follow_lucene_bm25(geo_home: Path) -> None:
    docs = [
        _chunk("pa", 0, "Zircon U-Pb ages of zircon from the rhyolite."),
        _chunk("pa", 1, "Initial 87Sr/86Sr ratios of the basalt are low."),
        _chunk("pb", 0, "Zircon saturation in a cooling magma chamber with zircon zircon growth."),
    ]
    index = SparseIndex(get_settings())
    index.upsert_paper("pa", docs[:2])
    index.upsert_paper("pb", docs[2:])
    hits = dict(index.search(normalize_tokens("zircon 87Sr/86Sr"), top_k=5))
    lengths = [len(d.tokens) for d in docs]
    average = sum(lengths) / len(lengths)

    def term(token: str, doc: Chunk) -> float:
        df = sum(token in d.tokens for d in docs)
        idf = math.log(1 + (len(docs) - df + 0.5) / (df + 0.5))
        tf = doc.tokens.count(token)
        return idf * tf / (tf + 1.5 * (1 - 0.75 + 0.75 * len(doc.tokens) / average))

    for doc in docs:
        expected = term("zircon", doc) + term("87sr/86sr", doc)
        assert hits[doc.chunk_id] == pytest.approx(expected, rel=1e-5)
    assert "87sr/86sr" in docs[1].tokens  # notation survives as one token on both sides


def test_persistence_round_trip_and_records(geo_home: Path, real: dict[str, list[Chunk]]) -> None:
    index = SparseIndex(get_settings())
    for chunks in real.values():
        index.upsert_paper(chunks[0].paper_id, chunks)
    query = normalize_tokens("tholeiitic calc-alkaline magma series FeOT/MgO")
    first = index.search(query, top_k=8)
    assert len(first) == 8
    reopened = SparseIndex(get_settings())
    assert reopened.search(query, top_k=8) == first
    assert reopened.count() == sum(len(c) for c in real.values())
    best = reopened.records([first[0][0]])[0]
    source = next(c for chunks in real.values() for c in chunks if c.chunk_id == first[0][0])
    assert best == {
        "chunk_id": source.chunk_id,
        "paper_id": source.paper_id,
        "source_file": source.source_file,
        "title": source.title,
        "section": source.section,
        "ordinal": source.ordinal,
        "char_start": source.char_start,
        "char_end": source.char_end,
        "page_start": source.page_start,
        "page_end": source.page_end,
        "text": source.text,
    }
    assert source.page_start is not None  # the embedded parser's coordinates reached the chunk
    assert source.source_file == rc.PEASE
    assert reopened.records(["no-such-chunk"]) == []
    assert index.last_build_s is not None  # the build is timed (scripts/bench_retrieval.py reports it)


def test_per_paper_update_and_delete(geo_home: Path, real: dict[str, list[Chunk]]) -> None:
    pease, keller = real[rc.PEASE], real[rc.KELLER]
    index = SparseIndex(get_settings())
    index.upsert_paper(pease[0].paper_id, pease)
    index.upsert_paper(keller[0].paper_id, keller)
    assert index.paper_ids() == sorted([pease[0].paper_id, keller[0].paper_id])
    index.upsert_paper(pease[0].paper_id, pease[:4])  # re-chunked: replaces, never appends
    assert index.count_paper(pease[0].paper_id) == 4
    assert index.count() == 4 + len(keller)
    query = normalize_tokens("zircon eruption age")
    assert any(cid.startswith(keller[0].paper_id) for cid, _ in index.search(query, top_k=5))
    assert index.delete_paper(keller[0].paper_id) == len(keller)
    assert index.delete_paper(keller[0].paper_id) == 0
    assert all(cid.startswith(pease[0].paper_id) for cid, _ in index.search(query, top_k=50))
    index.upsert_paper(pease[0].paper_id, [])  # no chunks: the paper goes
    assert index.count() == 0 and index.search(query, top_k=5) == []
    assert list((index.root / "index").iterdir()) == []  # old generations are removed


def test_filters_and_edge_cases(geo_home: Path, real: dict[str, list[Chunk]]) -> None:
    pease, keller = real[rc.PEASE], real[rc.KELLER]
    index = SparseIndex(get_settings())
    index.upsert_paper(pease[0].paper_id, pease)
    index.upsert_paper(keller[0].paper_id, keller)
    query = normalize_tokens("zircon magma age basalt")
    only = index.search(query, top_k=50, paper_ids=[pease[0].paper_id])
    assert only and all(cid.startswith(pease[0].paper_id) for cid, _ in only)
    source, section = keller[3].source_file, keller[3].section
    wanted = {c.chunk_id for c in keller if c.section == section}
    hits = index.search(
        query, top_k=50, record_filter=lambda r: r["source_file"] == source and r["section"] == section
    )
    assert hits and {cid for cid, _ in hits} <= wanted
    assert index.search(normalize_tokens("qwertyuiop"), top_k=5) == []
    assert index.search([], top_k=5) == []
    assert len(index.search(query, top_k=1000)) <= index.count()  # top_k larger than the corpus
    with pytest.raises(InputError, match="belongs to"):
        index.upsert_paper("someone-else", pease[:1])


_WRITER = """
import json, sys
from geo_rag_runtime.models import Chunk
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.sparse import SparseIndex
chunks = [Chunk(**c) for c in json.load(open(sys.argv[1]))]
index = SparseIndex(get_settings())
for end in range(1, len(chunks) + 1):  # many rebuilds, interleaving with the other process
    index.upsert_paper(chunks[0].paper_id, chunks[:end])
"""


@pytest.mark.slow  # spawns processes
def test_two_processes_update_without_losing_papers(
    geo_home: Path, tmp_path: Path, real: dict[str, list[Chunk]]
) -> None:
    reader = SparseIndex(get_settings())
    assert reader.count() == 0
    script = tmp_path / "writer.py"
    script.write_text(_WRITER)
    env = {**os.environ, "GEO_RAG_HOME": str(geo_home), "PYTHONPATH": str(REPO)}
    procs = []
    for number, chunks in enumerate(real.values()):
        data = tmp_path / f"paper{number}.json"
        data.write_text(json.dumps([c.model_dump() for c in chunks[:12]]))
        procs.append(subprocess.Popen([sys.executable, str(script), str(data)], env=env))
    assert [proc.wait(timeout=180) for proc in procs] == [0, 0]
    assert reader.count() == 24  # the same reader object sees the new generation
    assert sorted(reader.paper_ids()) == sorted(chunks[0].paper_id for chunks in real.values())
