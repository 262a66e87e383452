"""A corrupt or half-written store file: a clear error that names the fix, and the rest still answers.

Each test corrupts one store of a copy of the session's knowledge base the way a crash or a full
disk leaves it (garbage over the file, or a file cut short) and asks a question."""

from __future__ import annotations

from pathlib import Path

import pytest

from geo_rag_runtime.errors import StoreError
from tests.runtime.knowledge_base import KnowledgeBase, graph_items, passages

QUESTION = "How does magnetite crystallisation affect iron enrichment in calc-alkaline magmas?"
FIX = "geo-rag ingest --force"


def _garble(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(b"\x00garbage after a crash\x00" * 64 + data[: len(data) // 3])


def test_corrupt_graph_file_degrades_to_passages_and_names_the_fix(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.copy_without(tmp_path / "home")
    (graph_file,) = [p for p in (settings.home / "graph").iterdir() if not p.name.endswith(".lock")]
    _garble(graph_file)
    rag = RagService(settings)
    answer = rag.ask(QUESTION, category="implicit_reasoning")
    assert passages(answer) and answer.citations
    assert graph_items(answer) == []
    health = rag.health()
    assert health["status"] == "degraded"
    assert str(graph_file) in health["graph"]["error"] and FIX in health["graph"]["error"]


def test_half_written_keyword_index_degrades_to_dense_and_names_the_fix(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.copy_without(tmp_path / "home")
    generation = (settings.home / "sparse" / "CURRENT").read_text().strip()
    records = next((settings.home / "sparse" / "index" / generation).glob("*.json"))
    records.write_text(records.read_text()[:200])  # cut short
    rag = RagService(settings)
    answer = rag.ask(QUESTION)
    assert passages(answer) and answer.citations
    assert any("keyword" in note or "sparse" in note for note in answer.notes), answer.notes
    error = rag.health()["keyword_index"]["error"]
    assert "unreadable" in error and FIX in error


def test_corrupt_vector_store_is_a_clear_error_naming_the_fix(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.copy_without(tmp_path / "home")
    _garble(settings.home / "chroma" / "chroma.sqlite3")
    with pytest.raises(StoreError) as caught:
        RagService(settings).ask(QUESTION)
    assert "vector store" in str(caught.value) and FIX in str(caught.value)


def test_corrupt_document_store_file_keeps_the_passages_and_names_the_file_and_fix(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.stores.opening import store_counts

    settings = knowledge_base.copy_without(tmp_path / "home")
    (rows_file,) = (settings.home / "documents").rglob("measurements")
    _garble(rows_file)
    answer = RagService(settings).ask(
        "What eruption ages are reported from the zircon ages?", category="explicit_fact"
    )
    assert passages(answer) and answer.citations  # the passages still answer
    (note,) = [n for n in answer.notes if n.startswith("reported values unavailable")]
    assert str(rows_file) in note and FIX in note
    status = store_counts(settings)["documents"]["error"]  # what `geo-rag status` prints
    assert str(rows_file) in status and FIX in status
