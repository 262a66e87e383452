"""Any OpenAI-compatible embeddings API, through the official ``openai`` client.

OpenAI-compatible APIs have their own input limit (8191 tokens for ``text-embedding-ada-002`` and
``text-embedding-3-*``) and some servers truncate silently instead of failing. Their BPE tokenizer
(tiktoken) downloads its tables at run time and cannot be used here, but every byte-level BPE token
covers at least one UTF-8 byte: a text of at most ``max_input_tokens`` bytes can never exceed the
limit. Longer texts are split into windows of at most that many bytes at whitespace and averaged the
same way as the local model's windows (weighted by length). For 512-token chunks this never triggers.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from geo_rag_runtime.embeddings.base import Embedder, check_texts, l2_normalize, weighted_mean
from geo_rag_runtime.errors import (
    ConfigurationError,
    ServiceError,
    ServiceUnavailableError,
)
from geo_rag_runtime.settings import Settings

if TYPE_CHECKING:
    import httpx

__all__ = ["DEFAULT_API_INPUT_LIMIT", "OPENAI_INPUT_LIMITS", "OpenAIEmbedder"]

# Known input limits (tokens) of OpenAI embedding models; others default to the smallest of these.
OPENAI_INPUT_LIMITS: dict[str, int] = {
    "text-embedding-ada-002": 8191,
    "text-embedding-3-small": 8191,
    "text-embedding-3-large": 8191,
}
DEFAULT_API_INPUT_LIMIT = 8191


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
                out[row] = weighted_mean(vectors[first : first + len(weights)], weights)
        return out
