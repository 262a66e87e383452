"""The ONNX export of MiniLM: made at ingest, checked against torch, used only when verified.

Real weights both ways: the knowledge base's home holds the export ``geo-rag ingest`` makes."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import numpy as np
import pytest

from geo_rag_runtime.embeddings import (
    MAX_ABS_DIFF,
    OnnxEmbedder,
    SentenceTransformerEmbedder,
    export_folder,
    get_embedder,
    load_verified,
    local_model_path,
)
from geo_rag_runtime.errors import ConfigurationError
from tests.runtime.knowledge_base import KnowledgeBase

TEXTS = [
    "87Sr/86Sr = 0.70350 ± 0.00002 (2σ); εNd +6.3; δ18O 5.3‰",
    "SiO2 48–52 wt.% and La/Yb in U(IV)-bearing zircon",
    "Der Basalt enthält Olivin.",
]


@pytest.fixture(scope="module")
def onnx(knowledge_base: KnowledgeBase) -> OnnxEmbedder:
    embedder = load_verified(knowledge_base.settings(), local_model_path())
    assert embedder is not None, "the knowledge base's ingest made no verified export"
    return embedder


def test_the_export_was_verified_against_torch(knowledge_base: KnowledgeBase) -> None:
    manifest = json.loads((export_folder(knowledge_base.settings()) / "manifest.json").read_text())
    assert manifest["verified"] and manifest["same_windows"]
    assert manifest["max_abs_diff"] <= MAX_ABS_DIFF
    assert manifest["weights"]["weights_bytes"] > 0


def test_same_vectors_windows_and_identity_as_torch(
    onnx: OnnxEmbedder, knowledge_base: KnowledgeBase
) -> None:
    torch_model = SentenceTransformerEmbedder()
    long_text = " ".join(c.text for c in list(knowledge_base.chunks.values())[:2])  # ~1,000 tokens
    texts = [*TEXTS, long_text]
    assert len(onnx.windows(long_text)) > 1
    assert onnx.windows(long_text) == torch_model.windows(long_text)
    difference = np.abs(onnx.embed_documents(texts) - torch_model.embed_documents(texts)).max()
    assert difference <= MAX_ABS_DIFF
    assert onnx.identity == torch_model.identity  # one vector space: the stores accept both
    assert onnx.runtime == "onnxruntime"


def test_threads_share_one_session(onnx: OnnxEmbedder) -> None:
    expected = onnx.embed_documents(TEXTS)
    results: list[np.ndarray] = []

    def work() -> None:
        for _ in range(5):
            results.append(onnx.embed_documents(TEXTS))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 20
    assert all(np.array_equal(r, expected) for r in results)


def test_choice_of_runtime(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    settings = knowledge_base.settings()
    assert isinstance(get_embedder(settings), OnnxEmbedder)
    torch_only = settings.model_copy(update={"embedding_runtime": "torch"})
    assert isinstance(get_embedder(torch_only), SentenceTransformerEmbedder)
    empty = knowledge_base.settings(home=tmp_path / "empty")
    assert isinstance(get_embedder(empty), SentenceTransformerEmbedder)  # auto: no export → torch
    with pytest.raises(ConfigurationError, match="no verified export"):
        get_embedder(empty.model_copy(update={"embedding_runtime": "onnx"}))


def test_an_export_of_other_weights_is_never_used(knowledge_base: KnowledgeBase, tmp_path: Path) -> None:
    copy = knowledge_base.settings(home=tmp_path / "home")
    shutil.copytree(export_folder(knowledge_base.settings()), export_folder(copy))
    assert load_verified(copy, local_model_path()) is not None
    manifest_path = export_folder(copy) / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["weights"]["weights_bytes"] += 1  # as if the weights package had changed
    manifest_path.write_text(json.dumps(manifest))
    assert load_verified(copy, local_model_path()) is None
    manifest_path.unlink()  # an export whose check never finished
    assert load_verified(copy, local_model_path()) is None
