"""A real knowledge base for the runtime tests, built once per session by the ingest pipeline's own
functions (no Dagster): PDF → TEI → Paper → CleanedPaper → chunks → MiniLM vectors in Chroma + BM25
index → rule triples → LadybugDB graph → measurement rows in the document store, plus a query
classifier trained on the synthetic queries and the embedder's verified ONNX export.
Two sample papers keep it small (about 50 chunks). Fixtures live in conftest.py; helpers here.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from geo_rag_runtime.models import ANSWER_SCHEMA_VERSION, QUERY_TYPES, Answer, Chunk, answer_json
from geo_rag_runtime.query.generation import parse_markers
from geo_rag_runtime.settings import Settings

REPO = Path(__file__).resolve().parents[2]
PAPERS = (
    "VermeeschPease2021_GPL_TholeiiticCalcAlkaline_CCBY.pdf",
    "Keller2018_GPL_ZirconEruptionAge_CCBY.pdf",
)
CONTRACT_KEYS = {
    "schema_version",
    "question",
    "category",
    "strategy",
    "answer",
    "generator",
    "citations",
    "contexts",
    "timings_ms",
}
EXTRA_KEYS = {"mode", "notes", "classification", "prompts"}
STAGE_KEYS = {"classification", "vector", "graph", "fusion", "generation", "total"}


# --------------------------------------------------------------------------- the knowledge base


@dataclass
class KnowledgeBase:
    home: Path
    chunks: dict[str, Chunk]  # chunk_id -> chunk
    paper_ids: dict[str, str]  # source_file -> paper_id
    facts: int

    def settings(self, home: Path | None = None, **overrides: Any) -> Settings:
        """Settings for this home with no external service configured (whatever the environment)."""
        values: dict[str, Any] = {
            "home": home or self.home,
            "llm_model": None,
            "openai_api_key": None,
            "openai_base_url": None,
            "chroma_host": None,
            "neo4j_uri": None,
            "mongodb_uri": None,
            "grobid_url": None,
            "api_token": None,
            "local_llm": False,
        }
        values.update(overrides)
        return Settings(**values)

    def copy_without(self, target: Path, *folders: str) -> Settings:
        """A copy of the home lacking some stores (degradation tests must not touch the shared one).

        Model weights (the local model's 1.1 GB, the ONNX export's 90 MB; the code only ever replaces
        them whole) are hard-linked, not copied: a dozen copies filled a CI machine's disk.
        """
        shutil.copytree(
            self.home, target, ignore=shutil.ignore_patterns("*.lock"), copy_function=_copy_or_link
        )
        for folder in folders:
            shutil.rmtree(target / folder)
        return self.settings(home=target)


def _copy_or_link(source: str, target: str) -> object:
    """copy2, but model weights are linked where the file system allows it (write none in place)."""
    if source.endswith((".gguf", ".onnx")):
        try:
            os.link(source, target)
            return target
        except OSError:
            pass
    return shutil.copy2(source, target)


def _build(root: Path) -> KnowledgeBase:
    from geo_assets.graph.extraction import extract_triples_with
    from geo_assets.ingest.cleaned_paper import clean_paper
    from geo_assets.ingest.onnx_export import export_onnx
    from geo_assets.ingest.pipeline import chunks_from_pdf
    from geo_assets.measurements.extract import paper_measurements
    from geo_assets.queries.synthetic_queries import dataset_version, generate_synthetic_queries
    from geo_rag_runtime.embeddings import get_embedder
    from geo_rag_runtime.router.model import default_artifact_dir, write_artifact
    from geo_rag_runtime.router.training import SHIPPED_MODEL, build_pipeline, candidate_models
    from geo_rag_runtime.stores.documents import open_document_store
    from geo_rag_runtime.stores.graph import get_graph_store
    from geo_rag_runtime.stores.sparse import SparseIndex
    from geo_rag_runtime.stores.vectors import ChromaVectorStore

    kb = KnowledgeBase(home=root / "home", chunks={}, paper_ids={}, facts=0)
    settings = kb.settings()
    embedder = get_embedder(settings)
    vectors = ChromaVectorStore(settings)
    sparse = SparseIndex(settings)
    graph = get_graph_store(settings)
    graph.ensure_schema()
    documents = open_document_store(settings)
    for name in PAPERS:
        pdf = REPO / "data" / "papers" / name
        paper, chunks = chunks_from_pdf(pdf, settings)
        paper_id = paper.paper_id
        vectors.upsert_chunks(chunks, embedder.embed_documents([c.text for c in chunks]), embedder.identity)
        sparse.upsert_paper(paper_id, chunks)
        triples = extract_triples_with(chunks, llm=None)
        graph.load({"paper_id": paper_id, "title": paper.title, "source_file": name}, chunks, triples)
        documents.replace_measurements(
            paper_id, paper_measurements(clean_paper(paper), chunks, paper.captions)
        )
        kb.chunks.update({c.chunk_id: c for c in chunks})
        kb.paper_ids[name] = paper_id
    kb.facts = int(graph.counts()["facts"])
    graph.close()
    vectors.close()
    documents.close()
    export_onnx(settings)  # as `geo-rag ingest` does: questions then embed through ONNX Runtime
    queries = generate_synthetic_queries({}, n_per_type=120, seed=13)
    model = build_pipeline(candidate_models(13)[SHIPPED_MODEL]).fit(
        queries["query"].astype(str).tolist(), queries["label"].to_numpy()
    )
    write_artifact(
        model,
        default_artifact_dir(settings),
        {"model": SHIPPED_MODEL, "training_data_version": dataset_version(queries)},
    )
    return kb


def build_knowledge_base(root: Path) -> KnowledgeBase:
    """The session's knowledge base under ``root`` (the conftest fixture builds it once)."""
    return _build(root)


# --------------------------------------------------------------------------- LLM doubles


def chat_completion(content: str, model: str = "mock-llm") -> dict[str, Any]:
    """A chat completion shaped as the OpenAI API returns it."""
    return {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1700000000,
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 10, "completion_tokens": 10, "total_tokens": 20},
    }


def mock_llm(settings: Settings, handler: Callable[[httpx.Request], httpx.Response]) -> Any:
    """The real LLMClient talking to an in-process mock endpoint."""
    from geo_rag_runtime.llm import LLMClient

    configured = settings.model_copy(
        update={
            "llm_model": "mock-llm",
            "openai_base_url": "http://llm.test/v1",
            "llm_retries": 0,
            "llm_timeout_s": 5,
        }
    )
    return LLMClient(configured, http_client=httpx.Client(transport=httpx.MockTransport(handler)))


def working_llm_handler(calls: list[dict[str, Any]]) -> Callable[[httpx.Request], httpx.Response]:
    """Answers JSON requests by their schema and answer requests with a cited sentence."""

    def handler(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        calls.append(body)
        response_format = body.get("response_format") or {}
        schema = response_format.get("schema") or response_format.get("json_schema", {}).get("schema", {})
        wanted = set(schema.get("properties", {}))
        if "rephrasings" in wanted:
            content = json.dumps({"rephrasings": ["zircon eruption age estimate", "youngest zircon age"]})
        elif "keywords" in wanted:
            content = json.dumps({"keywords": ["FeOT", "magnetite", "oxidation"]})
        elif "keep" in wanted:
            content = json.dumps({"keep": [{"passage": 0, "sentences": [0]}]})
        elif "chunks" in wanted:
            content = json.dumps({"chunks": [0], "facts": []})
        elif "answerable" in wanted:  # grounded answer, step 1: choose the evidence
            content = json.dumps({"answerable": True, "evidence": [1]})
        elif "Task: answer the question" in body["messages"][1]["content"]:  # step 2: write from it
            evidence = body["messages"][1]["content"].split("[1] ", 1)[1].split("\n", 1)[0]
            content = f"{evidence} [V3]"  # a marker of the model's own: never trusted
        else:
            content = "Calc-alkaline magmas lose iron early because magnetite crystallises [V0]."
        return httpx.Response(200, json=chat_completion(content))

    return handler


def failing_handler(request: httpx.Request) -> httpx.Response:
    return httpx.Response(500, json={"error": {"message": "boom", "type": "server_error"}})


def timeout_handler(request: httpx.Request) -> httpx.Response:
    raise httpx.ReadTimeout("timed out", request=request)


# --------------------------------------------------------------------------- helpers


def contexts(answer: Answer | dict[str, Any]) -> list[dict[str, Any]]:
    """The context items of an answer (or of its JSON) as JSON objects, in marker order."""
    payload = json.loads(answer.model_dump_json()) if isinstance(answer, Answer) else answer
    return list(payload["contexts"])


def passages(answer: Answer | dict[str, Any]) -> list[dict[str, Any]]:
    """The passages ([V0], [V1] …) of an answer."""
    return [item for item in contexts(answer) if item["kind"] == "passage"]


def graph_items(answer: Answer | dict[str, Any]) -> list[dict[str, Any]]:
    """The graph facts and reported values ([G0], [G1] …) of an answer."""
    return [item for item in contexts(answer) if item["kind"] in ("fact", "value")]


def by_marker(answer: Answer | dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {item["marker"]: item for item in contexts(answer)}


def assert_contract(answer: Answer, kb: KnowledgeBase) -> dict[str, Any]:
    """The answer's JSON holds the contract: every key, typed context items in marker order (V0 … then
    G0 …) that read back as the same model, and citations of real chunks."""
    payload = json.loads(answer_json(answer))
    assert set(payload) == CONTRACT_KEYS | EXTRA_KEYS
    assert payload["schema_version"] == ANSWER_SCHEMA_VERSION
    assert payload["category"] in QUERY_TYPES
    assert Answer.model_validate(payload).contexts == answer.contexts  # the JSON reads back as typed
    assert set(payload["timings_ms"]) == STAGE_KEYS
    assert all(value >= 0 for value in payload["timings_ms"].values())
    kinds = [item["kind"] for item in payload["contexts"]]
    assert kinds == sorted(kinds, key=lambda kind: kind != "passage"), "passages come first"
    assert [item["marker"] for item in passages(payload)] == [f"V{i}" for i in range(len(passages(payload)))]
    graph = graph_items(payload)
    assert [item["marker"] for item in graph] == [f"G{i}" for i in range(len(graph))]
    for item in passages(payload):
        assert item["text"] and item["chunk_id"] and item["source_file"] in kb.paper_ids
        assert item["chunk_id"] in item["chunk_ids"] and set(item["chunk_ids"]) <= set(kb.chunks)
    for item in graph:
        assert item["text"] and item["provenance"]
        assert all(p["chunk_id"] in kb.chunks for p in item["provenance"])
        if item["kind"] == "fact":
            assert item["head"] and item["relation"] and item["tail"]
        else:
            assert item["analyte"] and item["provenance"][0]["measurement_id"]
    markers = by_marker(payload)
    assert all(marker in markers for marker in parse_markers(payload["answer"])), "a marker names no item"
    for citation in payload["citations"]:
        assert set(citation) == {"paper_id", "chunk_id", "source_file", "title", "page_start", "page_end"}
        chunk = kb.chunks[citation["chunk_id"]]  # a real chunk of the knowledge base
        assert citation["paper_id"] == chunk.paper_id
        assert citation["source_file"] == chunk.source_file
        if citation["page_start"] is not None:  # the pages of the cited text (a stitched passage may span
            # several overlapping windows of the paper): they include the named chunk's own pages
            assert chunk.page_start is not None and chunk.page_end is not None
            assert 1 <= citation["page_start"] <= citation["page_end"]
            assert citation["page_start"] <= chunk.page_end and citation["page_end"] >= chunk.page_start
    return payload


MAGNETITE = "How does magnetite crystallisation affect iron enrichment in calc-alkaline magmas?"
ZIRCON = "How is the eruption age estimated from a population of zircon ages?"
