"""The HTTP API (FastAPI TestClient) on the real knowledge base."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from geo_rag_runtime.server import create_app
from geo_rag_runtime.service import RagService
from tests.runtime.knowledge_base import (
    CONTRACT_KEYS,
    EXTRA_KEYS,
    MAGNETITE,
    KnowledgeBase,
    graph_items,
    passages,
)


@pytest.fixture()
def client(knowledge_base: KnowledgeBase, service: RagService) -> Iterator[TestClient]:
    with TestClient(create_app(knowledge_base.settings(), service=service)) as test_client:
        yield test_client


def assert_error(response: Any, status: int, error: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    body = response.json()
    assert body["error"] == error and body["message"]
    assert "Traceback" not in response.text
    return body


def test_health_reports_stores_and_counts(client: TestClient, knowledge_base: KnowledgeBase) -> None:
    response = client.get("/health")
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok"
    assert body["vectors"] == {"available": True, "count": len(knowledge_base.chunks)}
    assert body["keyword_index"]["count"] == len(knowledge_base.chunks)
    assert body["graph"]["available"] and body["graph"]["facts"] == knowledge_base.facts
    assert body["classifier"]["available"] and body["llm"] == {"available": False, "generator": "extractive"}


def test_ask_returns_the_cli_json(
    client: TestClient, knowledge_base: KnowledgeBase, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    response = client.post("/ask", json={"question": MAGNETITE, "mode": "hybrid", "top_k": 3})
    assert response.status_code == 200 and response.headers["content-type"] == "application/json"
    served = response.json()
    assert set(served) == CONTRACT_KEYS | EXTRA_KEYS
    from geo_rag_runtime import cli

    monkeypatch.setenv("GEO_RAG_HOME", str(knowledge_base.home))
    for variable in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "GEO_RAG_LLM_MODEL", "NEO4J_URI", "CHROMA_HOST"):
        monkeypatch.delenv(variable, raising=False)
    assert cli.main(["ask", MAGNETITE, "--top-k", "3", "--json"]) == 0
    printed = json.loads(capsys.readouterr().out)
    served.pop("timings_ms"), printed.pop("timings_ms")
    assert served == printed
    assert list(served) == list(printed)  # the same serializer: the same keys in the same order


def test_baseline_mode_over_http(client: TestClient) -> None:
    body = client.post("/ask", json={"question": MAGNETITE, "mode": "baseline"}).json()
    assert body["strategy"] == "baseline_dense" and graph_items(body) == [] and passages(body)


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({}, "question"),
        ({"question": "x" * 2001}, "question"),
        ({"question": "zircon?", "top_k": 0}, "top_k"),
        ({"question": "zircon?", "top_k": 51}, "top_k"),
        ({"question": "zircon?", "mode": "fast"}, "mode"),
        ({"question": "zircon?", "debug": True}, "debug"),
        ({"question": ["zircon?"]}, "question"),
    ],
)
def test_invalid_requests_get_structured_422(client: TestClient, payload: dict[str, Any], field: str) -> None:
    body = assert_error(client.post("/ask", json=payload), 422, "ValidationError")
    assert any(field in detail["loc"] for detail in body["details"])
    assert "x" * 100 not in json.dumps(body)  # the input is not echoed back


def test_blank_question_is_a_query_error(client: TestClient) -> None:
    body = assert_error(client.post("/ask", json={"question": " \u0000 "}), 422, "QueryError")
    assert "empty" in body["message"]


def test_malformed_json_is_422(client: TestClient) -> None:
    response = client.post("/ask", content=b'{"question": ', headers={"content-type": "application/json"})
    assert_error(response, 422, "ValidationError")


def test_oversized_body_is_413(client: TestClient) -> None:
    response = client.post("/ask", content=json.dumps({"question": "z" * 200_000}))
    assert_error(response, 413, "PayloadTooLarge")


def test_token_guards_ask(knowledge_base: KnowledgeBase, service: RagService) -> None:
    app = create_app(knowledge_base.settings(api_token="s3cret-token"), service=service)
    with TestClient(app) as guarded:
        missing = guarded.post("/ask", json={"question": MAGNETITE})
        assert_error(missing, 401, "Unauthorized")
        assert missing.headers["www-authenticate"] == "Bearer"
        wrong = guarded.post("/ask", json={"question": MAGNETITE}, headers={"Authorization": "Bearer nope"})
        assert_error(wrong, 401, "Unauthorized")
        ok = guarded.post(
            "/ask", json={"question": MAGNETITE}, headers={"Authorization": "Bearer s3cret-token"}
        )
        assert ok.status_code == 200 and ok.json()["citations"]
        assert guarded.get("/health").json() == {"status": "ok"}  # no store details without the token
        detailed = guarded.get("/health", headers={"Authorization": "Bearer s3cret-token"}).json()
        assert detailed["vectors"]["available"]


def test_unexpected_errors_are_500_without_internals(knowledge_base: KnowledgeBase) -> None:
    class Broken(RagService):
        def ask(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("secret detail at /srv/internal/path.py line 42")

    with TestClient(
        create_app(knowledge_base.settings(), service=Broken(knowledge_base.settings()))
    ) as broken:
        response = broken.post("/ask", json={"question": MAGNETITE})
    body = assert_error(response, 500, "InternalServerError")
    assert "secret" not in response.text and "/srv" not in response.text
    assert set(body) == {"error", "message"}


def test_missing_stores_are_503(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    settings = knowledge_base.settings(home=tmp_path / "empty")
    with TestClient(create_app(settings)) as empty:
        health = empty.get("/health")
        assert health.status_code == 503 and health.json()["status"] == "unavailable"
        body = assert_error(empty.post("/ask", json={"question": MAGNETITE}), 503, "StoreError")
        assert "geo-rag ingest" in body["message"]
