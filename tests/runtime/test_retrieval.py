"""Retrievers: query preprocessing, filters, overlap merging, RRF, and the issue's acceptance test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from geo_rag_runtime.errors import ConfigurationError, QueryError
from geo_rag_runtime.models import Chunk, RetrievedItem
from geo_rag_runtime.retrieval import (
    KeywordRetriever,
    VectorRetriever,
    build_where,
    collapse_overlaps,
    fuse,
    preprocess_query,
)
from geo_rag_runtime.settings import get_settings
from geo_rag_runtime.stores.sparse import SparseIndex
from geo_rag_runtime.stores.vectors import ChromaVectorStore
from tests.runtime import retrieval_corpus as rc

# --------------------------------------------------------------------------- preprocessing and filters


def test_preprocessing_keeps_notation() -> None:
    question = "  • What do 87Sr/86Sr, δ18O (‰), εNd(t), U(IV), La/Yb and SiO2 wt.% ± 2σ show?\u200b\x00 "
    assert preprocess_query(question) == (
        "What do 87Sr/86Sr, δ18O (‰), εNd(t), U(IV), La/Yb and SiO2 wt.% ± 2σ show?"
    )
    assert preprocess_query('"**Zircon** eruption ages"') == "Zircon eruption ages"
    assert preprocess_query("## Eu/Eu* anomaly, Mg# 65 and *italic*") == "Eu/Eu* anomaly, Mg# 65 and *italic*"
    with pytest.raises(QueryError, match="empty"):
        preprocess_query(" \n• \t")
    with pytest.raises(QueryError, match="at most 10"):
        preprocess_query("zircon eruption ages", max_chars=10)


def test_filters_become_where_clauses_from_values() -> None:
    assert build_where(None) is None and build_where({}) is None
    assert build_where({"paper_id": "p1"}) == {"paper_id": {"$eq": "p1"}}
    assert build_where({"section": ["Results", "Methods", "Results"]}) == {
        "section": {"$in": ["Methods", "Results"]}
    }
    assert build_where({"source_file": {"$ne": "a.pdf"}, "paper_id": {"$nin": ["p2"]}}) == {
        "$and": [{"paper_id": {"$nin": ["p2"]}}, {"source_file": {"$ne": "a.pdf"}}]
    }
    hostile = '{"$ne": ""}) OR 1=1 --'
    assert build_where({"paper_id": hostile}) == {"paper_id": {"$eq": hostile}}  # a value stays a value
    for bad in (
        {"text": "x"},
        {"$or": [{"paper_id": "p"}]},
        {"paper_id": 3},
        {"paper_id": []},
        {"paper_id": ["p", 3]},
        {"paper_id": {"$gt": "p"}},
        {"paper_id": {"$eq": ["p"]}},
        {"paper_id": {"$in": "p"}},
    ):
        with pytest.raises(QueryError):
            build_where(bad)


# --------------------------------------------------------------------------- merging and fusion

PAPER_TEXT = " ".join(f"w{i:03d}" for i in range(300))  # 1,200 characters, one "paper"


def _window(start: int, end: int, score: float, paper: str = "p1", retriever: str = "dense") -> RetrievedItem:
    return RetrievedItem(
        text=PAPER_TEXT[start:end],
        score=score,
        retriever=retriever,
        chunk_id=f"{paper}-{start}",
        paper_id=paper,
        source_file=f"{paper}.pdf",
        provenance=[
            {"chunk_id": f"{paper}-{start}", "paper_id": paper, "char_start": start, "char_end": end}
        ],
    )


def test_overlapping_windows_are_stitched() -> None:
    items = [
        _window(400, 800, 0.9),
        _window(0, 500, 0.8),
        _window(700, 1100, 0.7),
        _window(0, 300, 0.6, "p2"),
    ]
    merged = collapse_overlaps(items)
    assert len(merged) == 2
    first = merged[0]
    assert first.text == PAPER_TEXT[0:1100] and first.chunk_id == "p1-400" and first.score == 0.9
    assert [entry["chunk_id"] for entry in first.provenance] == ["p1-400", "p1-0", "p1-700"]
    assert [entry["score"] for entry in first.provenance] == [0.9, 0.8, 0.7]
    assert merged[1].chunk_id == "p2-0"
    capped = collapse_overlaps(items, max_merged=2)
    assert capped[0].text == PAPER_TEXT[0:800] and [i.chunk_id for i in capped] == [
        "p1-400",
        "p1-700",
        "p2-0",
    ]
    assert collapse_overlaps(items, top_k=1) == merged[:1]


def test_duplicates_and_unstitchable_near_duplicates_are_dropped() -> None:
    exact = _window(0, 400, 0.9)
    same_text_other_id = exact.model_copy(update={"chunk_id": "copy", "score": 0.5, "provenance": []})
    # a window whose text is not the verbatim slice (e.g. a heading was prepended): cannot be stitched
    altered = _window(100, 500, 0.8).model_copy(update={"text": "Results\n" + PAPER_TEXT[100:500]})
    slight = _window(350, 750, 0.7).model_copy(update={"text": "Discussion\n" + PAPER_TEXT[350:750]})
    out = collapse_overlaps([exact, exact, same_text_other_id, altered, slight])
    # "altered" shares 300 of 400 characters with the best window: a near-duplicate, dropped;
    # "slight" shares only 50: kept as its own passage
    assert [i.chunk_id for i in out] == ["p1-0", "p1-350"]
    assert out[0].text == PAPER_TEXT[0:400]


def test_reciprocal_rank_fusion_by_hand() -> None:
    a, b, c, d = (_window(i * 100, i * 100 + 50, 1.0) for i in range(4))
    dense, sparse = [a, b, c], [b, c, d]
    fused = fuse(dense, sparse, k=60)
    expected = {
        "p1-0": 1 / 61,
        "p1-100": 1 / 62 + 1 / 61,
        "p1-200": 1 / 63 + 1 / 62,
        "p1-300": 1 / 63,
    }
    assert [i.chunk_id for i in fused] == ["p1-100", "p1-200", "p1-0", "p1-300"]
    assert {i.chunk_id: i.score for i in fused} == pytest.approx(expected)
    assert {i.retriever for i in fused} == {"fused"}
    weighted = fuse(dense, sparse, k=0, weights=[3.0, 1.0], top_k=2)
    # a: 3/1 = 3; b: 3/2 + 1/1 = 2.5; c: 3/3 + 1/2 = 1.5; d: 1/3
    assert [(i.chunk_id, round(i.score, 6)) for i in weighted] == [("p1-0", 3.0), ("p1-100", 2.5)]
    with pytest.raises(ValueError, match="weights"):
        fuse(dense, sparse, weights=[1.0])
    assert fuse() == [] and fuse([], []) == []


def test_fusion_treats_a_merged_passage_and_its_windows_as_one() -> None:
    merged = collapse_overlaps([_window(0, 500, 0.9), _window(400, 900, 0.8)])[0]
    sparse_hit = _window(400, 900, 7.5, retriever="sparse").model_copy(update={"title": "T"})
    other = _window(1000, 1200, 3.0, retriever="sparse")
    fused = fuse([merged], [other, sparse_hit], k=60)
    assert [i.chunk_id for i in fused] == ["p1-0", "p1-1000"]
    top = fused[0]
    assert top.score == pytest.approx(1 / 61 + 1 / 62)
    assert top.text == PAPER_TEXT[0:900] and top.title == "T"  # the stitched text, metadata filled in
    assert {entry["chunk_id"] for entry in top.provenance} == {"p1-0", "p1-400"}
    facts = [RetrievedItem(kind="fact", text="Zircon CONTAINS U", provenance=[{"triple_id": "t1"}])]
    assert fuse(facts, facts)[0].provenance == [{"triple_id": "t1"}]


# --------------------------------------------------------------------------- acceptance on real papers

QUESTIONS = [
    (
        "How can igneous rocks be classified into the tholeiitic and calc-alkaline magma series?",
        rc.PEASE,
    ),
    ("How well do zircon crystallization ages estimate the eruption age of a volcanic rock?", rc.KELLER),
    (
        "How does an inverse isochron separate the radiogenic from the inherited (common) component?",
        rc.ISOCHRON,
    ),
]


@pytest.fixture(scope="module")
def indexed(sample_papers: Path, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Chroma and BM25 over three real papers (built once for the module)."""
    home = tmp_path_factory.mktemp("home")
    settings = get_settings(home=home, chroma_host=None)
    store = ChromaVectorStore(settings)
    index = SparseIndex(settings)
    paper_of: dict[str, str] = {}
    for name in rc.SMALL_SET:
        chunks: tuple[Chunk, ...] = rc.paper_chunks(sample_papers / name)
        store.upsert_chunks(list(chunks), rc.paper_embeddings(sample_papers / name), rc.embedder().identity)
        index.upsert_paper(chunks[0].paper_id, chunks)
        paper_of[name] = chunks[0].paper_id
    yield {"store": store, "index": index, "paper_of": paper_of}
    store.close()


@pytest.mark.parametrize(("question", "paper"), QUESTIONS)
def test_the_paper_that_answers_is_in_the_top_5(indexed: dict, question: str, paper: str) -> None:
    expected = indexed["paper_of"][paper]
    dense = VectorRetriever(indexed["store"], rc.embedder(), top_k=5).retrieve(question)
    sparse = KeywordRetriever(indexed["index"], top_k=5).retrieve(question)
    fused = fuse(dense, sparse, top_k=5)
    for name, items in (("dense", dense), ("sparse", sparse), ("fused", fused)):
        assert 0 < len(items) <= 5
        assert expected in [i.paper_id for i in items], f"{name}: {[i.source_file for i in items]}"
        assert len({i.chunk_id for i in items}) == len(items)
    assert dense[0].paper_id == expected and fused[0].paper_id == expected
    assert [i.score for i in dense] == sorted((i.score for i in dense), reverse=True)
    assert all(i.retriever == "dense" for i in dense) and all(i.retriever == "sparse" for i in sparse)


def test_merged_dense_passages_are_verbatim_paper_text(indexed: dict, sample_papers: Path) -> None:
    chunks = {c.chunk_id: c for name in rc.SMALL_SET for c in rc.paper_chunks(sample_papers / name)}
    items = VectorRetriever(indexed["store"], rc.embedder(), top_k=10).retrieve(QUESTIONS[0][0])
    for item in items:
        windows = [chunks[entry["chunk_id"]] for entry in item.provenance]
        start, end = min(w.char_start for w in windows), max(w.char_end for w in windows)
        for window in windows:
            assert item.text[window.char_start - start : window.char_end - start] == window.text
        assert len(item.text) == end - start


def test_filters_apply_to_both_retrievers(indexed: dict) -> None:
    keller = indexed["paper_of"][rc.KELLER]
    question = QUESTIONS[0][0]  # about another paper: the filter must still hold
    dense = VectorRetriever(indexed["store"], rc.embedder(), top_k=5, filters={"paper_id": keller})
    sparse = KeywordRetriever(indexed["index"], top_k=5, filters={"source_file": [rc.KELLER]})
    for items in (dense.retrieve(question), sparse.retrieve(question)):
        assert items and {i.paper_id for i in items} == {keller}
    others = KeywordRetriever(indexed["index"], top_k=5).retrieve(
        question, filters={"paper_id": {"$ne": indexed["paper_of"][rc.PEASE]}}
    )
    assert others and indexed["paper_of"][rc.PEASE] not in {i.paper_id for i in others}


def test_retriever_refuses_another_models_vectors(indexed: dict) -> None:
    class OtherModel:
        identity = {"provider": "openai", "model": "text-embedding-3-small", "dim": 1536}

        def embed_query(self, text: str) -> np.ndarray:  # pragma: no cover - never reached
            raise AssertionError("the model check comes first")

    with pytest.raises(ConfigurationError, match="text-embedding-3-small"):
        VectorRetriever(indexed["store"], OtherModel(), top_k=5).retrieve("zircon")  # type: ignore[arg-type]
