"""A running server answers with a retrained router without a restart, and an evaluation counts the
answers whose strategy raised (and fell back to dense similarity) instead of scoring them silently."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from geo_rag_runtime.router import model as qc
from tests.runtime.knowledge_base import MAGNETITE, ZIRCON, KnowledgeBase
from tests.runtime.test_classifier import _fit


def test_the_server_uses_a_retrained_router_without_a_restart(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    from fastapi.testclient import TestClient

    from geo_rag_runtime.server import create_app

    settings = knowledge_base.copy_without(tmp_path / "home").model_copy(update={"generator": "extractive"})
    qc.clear_classifier_cache()
    with TestClient(create_app(settings)) as client:
        first = client.post("/ask", json={"question": MAGNETITE}).json()
        trained = first["classification"]["model_version"]
        assert trained and client.get("/health").json()["classifier"]["model_version"] == trained

        # `geo-rag ingest` (or the query_classifier asset) retrains while the server runs
        qc.write_artifact(_fit(), qc.default_artifact_dir(settings), {"model_version": "qc-retrained"})
        second = client.post("/ask", json={"question": MAGNETITE}).json()
        assert second["classification"]["model_version"] == "qc-retrained"
        assert client.get("/health").json()["classifier"]["model_version"] == "qc-retrained"


def test_an_evaluation_counts_and_reports_strategy_fallbacks(
    knowledge_base: KnowledgeBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from geo_assets.evaluation import metrics as em
    from geo_assets.evaluation.dataset import EvalQuestion
    from geo_assets.evaluation.runner import run_evaluation
    from geo_rag_runtime.query.strategies import strategy_for
    from geo_rag_runtime.service import RagService

    broken = strategy_for("implicit_reasoning")

    def bug(*args: object, **kwargs: object) -> object:  # a defect in one strategy's retrieval
        raise KeyError("a bug in the strategy")

    monkeypatch.setattr(type(broken), "retrieve", bug)
    settings = knowledge_base.settings(generator="extractive")
    service = RagService(settings, llm=None)
    questions = [
        EvalQuestion.model_validate(
            {
                "id": f"q{i}",
                "question": text,
                "query_type": "implicit_reasoning",
                "reference_answer": "magnetite crystallisation removes iron",
                "reference_passages": [{"source_file": paper, "text": "magnetite"}],
                "reference_entities": ["magnetite"],
                "papers": [paper],
            }
        )
        for i, (text, paper) in enumerate(
            zip((MAGNETITE, ZIRCON), sorted(knowledge_base.paper_ids), strict=True)
        )
    ]
    run = run_evaluation(
        questions,
        dataset_version="t",
        settings=settings,
        out_dir=tmp_path / "evaluation",
        answer_fn=lambda q, mode: service.ask(q, mode=mode, category="implicit_reasoning"),  # type: ignore[arg-type]
        suite=em.MetricSuite(),
    )
    service.close()
    assert run.fallbacks == {"HybridRAG": {broken.name: 2}}  # the baseline's similarity never falls back
    assert all(r.fallback_from == broken.name for r in run.answers if r.mode == "hybrid")
    assert run.summary_markdown.startswith("**Fallbacks: 2 answer(s)")
    assert broken.name in (run.folder / "summary.md").read_text()
    assert json.loads((run.folder / "run.json").read_text())["fallbacks"] == {"HybridRAG": {broken.name: 2}}
