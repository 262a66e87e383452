"""A question asked while an ingest rewrites a paper is answered from the papers last completed.

The ``chunks`` stage marks a paper building before it rewrites any store and ``published_paper``
clears the mark once every store holds it (tests/assets cover that through Dagster); here a copy of
the session's knowledge base gets the mark exactly as ``chunks`` writes it, and every answer —
passages, graph facts, reported values, citations, in both modes — must leave that paper out until
it is published again."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from geo_rag_runtime.models import Answer
from geo_rag_runtime.stores import publication
from tests.runtime.knowledge_base import KnowledgeBase, graph_items, passages

KELLER = "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf"
QUESTION = "What eruption ages are reported from the zircon ages?"


def _papers(answer: Answer) -> set[str]:
    """Every paper an answer uses: passages, fact and value provenance, citations."""
    payload: dict[str, Any] = json.loads(answer.model_dump_json())
    used = {str(item.get("paper_id")) for item in passages(payload)}
    for item in graph_items(payload):
        used |= {str(p.get("paper_id")) for p in item["provenance"]}
    return used | {c["paper_id"] for c in payload["citations"]}


def test_a_paper_being_rebuilt_is_left_out_until_published(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.copy_without(tmp_path / "home").model_copy(update={"generator": "extractive"})
    keller = knowledge_base.paper_ids[KELLER]
    rag = RagService(settings, llm=None)
    before = rag.ask(QUESTION, category="explicit_fact")
    assert keller in _papers(before)  # the paper the question is about

    publication.mark_building(settings.home_dir, keller, "run-1")  # what `chunks` does first
    assert rag.health()["building"] == [keller]
    for mode in ("hybrid", "baseline"):
        during = rag.ask(QUESTION, mode=mode, category="explicit_fact")
        assert passages(during), mode  # the other papers still answer
        assert keller not in _papers(during), mode
    expansion = rag.ask("Why do zircon ages spread before an eruption?", category="interpretable_rationale")
    assert keller not in _papers(expansion)

    publication.mark_published(settings.home_dir, keller)  # what `published_paper` does last
    assert rag.health()["building"] == []
    after = rag.ask(QUESTION, category="explicit_fact")
    assert keller in _papers(after)
    assert after.answer == before.answer
    rag.close()


def test_markers_are_atomic_files_and_hostile_ids_stay_inside_the_folder(tmp_path: Path) -> None:
    publication.mark_building(tmp_path, "p0123456789abcdef", "run-1")
    publication.mark_building(tmp_path, "../../etc/passwd", "run-2")
    folder = tmp_path / publication.BUILDING_DIR
    assert sorted(p.parent for p in tmp_path.rglob("*.json")) == [folder, folder]
    assert not list(folder.glob(".*.tmp"))  # written aside, then renamed into place
    found = publication.building_papers(tmp_path)
    assert set(found) == {"p0123456789abcdef", "../../etc/passwd"}
    assert found["p0123456789abcdef"]["run_id"] == "run-1"
    (folder / "garbage.json").write_text("{not json")  # unreadable: ignored, never an error
    publication.mark_published(tmp_path, "../../etc/passwd")
    publication.mark_published(tmp_path, "never-marked")
    assert set(publication.building_papers(tmp_path)) == {"p0123456789abcdef"}
    assert publication.building_papers(tmp_path / "absent") == {}
