"""The HTTP API (FastAPI TestClient) on the real knowledge base."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from geo_rag_runtime.models import ANSWER_SCHEMA_VERSION, Answer
from geo_rag_runtime.query.generation import parse_markers
from geo_rag_runtime.server import create_app
from geo_rag_runtime.service import RagService
from tests.runtime.knowledge_base import (
    CONTRACT_KEYS,
    EXTRA_KEYS,
    MAGNETITE,
    KnowledgeBase,
    assert_contract,
    by_marker,
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


def test_the_http_answer_is_the_typed_contract(client: TestClient, knowledge_base: KnowledgeBase) -> None:
    """A real answer validates against the response model, its items are in marker order, and every
    citation marker in its text names an item of ``contexts``."""
    body = client.post("/ask", json={"question": MAGNETITE, "top_k": 3}).json()
    answer = Answer.model_validate(body)
    assert body["schema_version"] == ANSWER_SCHEMA_VERSION == answer.schema_version
    assert_contract(answer, knowledge_base)
    kinds = {item["kind"] for item in body["contexts"]}
    assert "passage" in kinds and "fact" in kinds, kinds
    markers = parse_markers(body["answer"])
    assert markers and set(markers) <= set(by_marker(body))
    cited = {c["chunk_id"] for c in body["citations"]}
    for marker in markers:  # a cited passage's chunk is among the citations
        item = by_marker(body)[marker]
        if item["kind"] == "passage":
            assert item["chunk_id"] in cited


def test_the_streamed_answer_event_is_the_same_object(client: TestClient) -> None:
    """Without an LLM nothing drafts: the stream is one ``answer`` event, the body of ``POST /ask``."""
    response = client.post("/ask", json={"question": MAGNETITE, "top_k": 3, "stream": True})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = [block.splitlines() for block in response.text.strip().split("\n\n")]
    assert [lines[0] for lines in events] == ["event: answer"]
    streamed = json.loads(events[0][1].removeprefix("data: "))
    Answer.model_validate(streamed)
    served = client.post("/ask", json={"question": MAGNETITE, "top_k": 3}).json()
    streamed.pop("timings_ms"), served.pop("timings_ms")
    assert streamed == served


def test_openapi_describes_the_answer_and_its_context_kinds(client: TestClient) -> None:
    schema = client.get("/openapi.json").json()
    responses = schema["paths"]["/ask"]["post"]["responses"]
    content = responses["200"]["content"]
    assert content["application/json"]["schema"] == {"$ref": "#/components/schemas/Answer"}
    assert "text/event-stream" in content
    for status in ("401", "413", "422", "500", "502", "503"):
        assert responses[status]["content"]["application/json"]["schema"] == {
            "$ref": "#/components/schemas/ErrorBody"
        }
    components = schema["components"]["schemas"]
    answer = components["Answer"]
    assert set(answer["required"]) == set(Answer.model_fields)
    assert answer["properties"]["schema_version"]["const"] == ANSWER_SCHEMA_VERSION
    items = answer["properties"]["contexts"]["items"]
    assert items["discriminator"] == {
        "propertyName": "kind",
        "mapping": {
            "passage": "#/components/schemas/PassageContext",
            "fact": "#/components/schemas/FactContext",
            "value": "#/components/schemas/ValueContext",
        },
    }
    expected = {
        "PassageContext": {"kind", "marker", "text", "chunk_id", "paper_id", "source_file", "title",
                           "section", "page_start", "page_end", "score", "retriever", "chunk_ids"},
        "FactContext": {"kind", "marker", "text", "head", "head_type", "relation", "tail", "tail_type",
                        "sentence", "score", "retriever", "provenance"},
        "ValueContext": {"kind", "marker", "text", "analyte", "value", "value_max", "unit", "uncertainty",
                         "uncertainty_level", "qualifier", "printed", "sample", "rock_unit", "material", "method",
                         "source_type", "section", "score", "retriever", "provenance"},
        "FactSource": {"paper_id", "chunk_id", "source_file", "title", "page_start", "page_end", "sentence",
                       "extractor", "confidence", "triple_id"},
        "ValueSource": {"paper_id", "chunk_id", "source_file", "title", "page_start", "page_end",
                        "measurement_id", "table_label", "row", "column", "char_start", "char_end"},
    }  # fmt: skip
    for name, fields in expected.items():
        assert set(components[name]["properties"]) == fields, name
        assert set(components[name]["required"]) == fields, name  # always present, null where unknown
    for name, kind in (("PassageContext", "passage"), ("FactContext", "fact"), ("ValueContext", "value")):
        assert components[name]["properties"]["kind"]["const"] == kind
    fact_sources = components["FactContext"]["properties"]["provenance"]["items"]
    assert fact_sources == {"$ref": "#/components/schemas/FactSource"}


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
