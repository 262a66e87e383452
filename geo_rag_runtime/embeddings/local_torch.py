"""The packaged MiniLM (or any sentence-transformers model on disk) on torch, on the CPU.

The reference backend: the ONNX export (``local_onnx``) is checked against its vectors. It loads
torch and sentence-transformers (seconds), so a question is embedded with it only when there is no
verified export or ``GEO_RAG_EMBEDDING_RUNTIME=torch``; ingest uses it to embed the chunks.
"""

from __future__ import annotations

import functools
import os
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from geo_rag_runtime.embeddings.base import (
    LOCAL_MODEL_NAME,
    WINDOW_OVERLAP,
    Embedder,
    check_texts,
    embed_windowed,
    local_model_path,
    token_windows,
)
from geo_rag_runtime.errors import ConfigurationError
from geo_rag_runtime.settings import Settings

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

__all__ = ["SentenceTransformerEmbedder"]


@functools.lru_cache(maxsize=4)
def _load_sentence_transformer(path: str, device: str) -> SentenceTransformer:
    """Load once per process: the model takes seconds to load and is read-only afterwards."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device=device, local_files_only=True)


class SentenceTransformerEmbedder(Embedder):
    """MiniLM (or any sentence-transformers model on disk) on the CPU, windowed for long texts."""

    def __init__(
        self,
        model_path: str | None = None,
        *,
        model_name: str = LOCAL_MODEL_NAME,
        batch_size: int = 32,
        window_overlap: int = WINDOW_OVERLAP,
        device: str = "cpu",
    ) -> None:
        self._path = model_path or local_model_path()
        self._model_name = model_name
        self.batch_size = batch_size
        self.window_overlap = window_overlap
        self._device = device
        self._lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings) -> SentenceTransformerEmbedder:
        return cls(batch_size=settings.embedding_batch_size)

    @property
    def model(self) -> SentenceTransformer:
        return _load_sentence_transformer(self._path, self._device)

    @property
    def model_name(self) -> str:
        return self._model_name

    @property
    def provider(self) -> str:
        return "sentence-transformers"

    @property
    def dim(self) -> int:
        dimension = self.model.get_embedding_dimension()
        if dimension is None:  # only for models without a pooling layer, which are no sentence encoders
            raise ConfigurationError(f"the model at {self._path} does not report an embedding dimension")
        return int(dimension)

    @property
    def max_window_tokens(self) -> int:
        """Word pieces of text per model call, not counting the special tokens."""
        model = self.model
        length = model.max_seq_length
        if length is None:
            raise ConfigurationError(f"the model at {self._path} does not declare max_seq_length")
        return int(length) - int(model.tokenizer.num_special_tokens_to_add(pair=False))

    @property
    def identity(self) -> dict[str, Any]:
        identity = super().identity
        identity["max_window_tokens"] = self.max_window_tokens
        return identity

    def count_tokens(self, text: str) -> int:
        """Word pieces of ``text`` without special tokens (the unit of the window limit)."""
        return len(self.model.tokenizer(text, add_special_tokens=False, verbose=False)["input_ids"])

    def windows(self, text: str) -> list[tuple[str, int]]:
        """Split ``text`` into (verbatim slice, word pieces) windows that each fit the model."""
        encoding = self.model.tokenizer(
            text, add_special_tokens=False, return_offsets_mapping=True, verbose=False
        )
        return token_windows(
            text,
            list(encoding["offset_mapping"]),
            list(encoding.word_ids()),
            self.count_tokens,
            self.max_window_tokens,
            self.window_overlap,
        )

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        return embed_windowed(items, self.windows, self._run)

    def _run(self, pieces: list[str]) -> np.ndarray:
        with self._lock:  # torch modules are not meant to be called from several threads at once
            vectors: np.ndarray = self.model.encode(
                pieces,
                batch_size=self.batch_size,
                convert_to_numpy=True,
                normalize_embeddings=True,
                show_progress_bar=False,
            )
        return vectors
