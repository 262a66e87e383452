"""RAGAS adapters: our MiniLM as a RAGAS embedding, the judge LLM, and the disk cache under the judge.

RAGAS is imported lazily (slow import; telemetry and hub downloads must be switched off before it is
imported, ``_ragas_env``). The judge goes through ``openai.AsyncOpenAI`` at temperature 0 with a seed
and :data:`JUDGE_MAX_TOKENS`, over an HTTP client whose transport (:class:`CachingTransport`) answers
repeated requests from disk, so a rerun with the same inputs sends no request and gives the same numbers.
"""

import functools
import hashlib
import json
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import numpy as np

from geo_assets.evaluation.metric_specs import JUDGE_MAX_TOKENS, NO_JUDGE_REASON

LOCAL_JUDGE_TIMEOUT_S = 600.0

# --------------------------------------------------------------------------- embeddings


def _ragas_env() -> None:
    """RAGAS telemetry off and no hub downloads; must run before ragas is imported."""
    os.environ.setdefault("RAGAS_DO_NOT_TRACK", "true")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


class _LocalEmbeddingsMixin:
    """Vectors of the packaged MiniLM (windowed, never truncated), memoized per text."""

    def __init__(self, embedder: Any | None = None) -> None:
        super().__init__()
        if embedder is None:
            from geo_rag_runtime.embeddings import SentenceTransformerEmbedder

            embedder = SentenceTransformerEmbedder()
        self.embedder = embedder
        self._vectors: dict[str, list[float]] = {}

    def prefill(self, texts: Iterable[str]) -> None:
        """Embed many texts in batches (sorted, so a rerun sees the same batches)."""
        todo = sorted({t for t in texts if t and t.strip() and t not in self._vectors})
        if todo:
            matrix = np.asarray(self.embedder.embed_documents(todo), dtype=np.float64)
            for text, row in zip(todo, matrix, strict=True):
                self._vectors[text] = row.tolist()

    def embed_text(self, text: str, **kwargs: Any) -> list[float]:
        if text not in self._vectors:
            self.prefill([text])
        return self._vectors[text]

    async def aembed_text(self, text: str, **kwargs: Any) -> list[float]:
        return self.embed_text(text)


@functools.lru_cache(maxsize=1)
def _local_embeddings_class() -> type:
    """Built on first use: ragas is imported lazily (slow import, and env flags must come first)."""
    _ragas_env()
    from ragas.embeddings.base import BaseRagasEmbedding

    return type("LocalEmbeddings", (_LocalEmbeddingsMixin, BaseRagasEmbedding), {})


def LocalEmbeddings(embedder: Any | None = None) -> Any:  # noqa: N802 - a factory named like the class
    """A RAGAS ``BaseRagasEmbedding`` over our MiniLM embedder (default: the packaged weights)."""
    return _local_embeddings_class()(embedder)


# --------------------------------------------------------------------------- judge


class CachingTransport(httpx.AsyncBaseTransport):
    """Answers a request from disk when the same request was answered before (HTTP 200 only).

    The key is the sha256 of the method, the URL and the canonical JSON body (keys sorted), so the
    same prompt to the same model with the same parameters hits; anything else goes to ``inner``.
    """

    def __init__(self, cache_dir: str | Path, inner: httpx.AsyncBaseTransport | None = None) -> None:
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.inner = inner or httpx.AsyncHTTPTransport()
        self.hits = 0
        self.misses = 0

    @staticmethod
    def key(request: httpx.Request, body: bytes) -> str:
        try:
            canonical = json.dumps(
                json.loads(body), sort_keys=True, ensure_ascii=False, separators=(",", ":")
            )
        except (json.JSONDecodeError, UnicodeDecodeError):
            canonical = body.decode("latin-1")
        material = f"{request.method} {request.url}\n{canonical}"
        return hashlib.sha256(material.encode("utf-8")).hexdigest()

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = await request.aread()
        key = self.key(request, body)
        path = self.cache_dir / key[:2] / f"{key}.json"
        if path.is_file():
            self.hits += 1
            return httpx.Response(
                200, headers={"content-type": "application/json"}, content=path.read_bytes(), request=request
            )
        self.misses += 1
        response = await self.inner.handle_async_request(request)
        if response.status_code != 200:
            return response
        content = await response.aread()
        await response.aclose()
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
        with os.fdopen(handle, "wb") as out:
            out.write(content)
        os.replace(tmp, path)
        return httpx.Response(
            200, headers={"content-type": "application/json"}, content=content, request=request
        )

    async def aclose(self) -> None:
        await self.inner.aclose()


@dataclass(frozen=True)
class JudgeTarget:
    """Which model judges, where it listens, and whether it is this home's local llama.cpp server."""

    model: str
    base_url: str | None
    api_key: str | None
    local: bool

    @property
    def name(self) -> str:
        """What run identities and asset metadata record."""
        return f"{self.model} (local llama.cpp server)" if self.local else self.model


NO_JUDGE_METRICS_REASON = "no judged metric asked for (GEO_RAG_JUDGE_METRICS=[])"


def resolve_judge(settings: Any) -> JudgeTarget | str:
    """The judge, or the reason there is none (the ``reason`` of every judge metric).

    ``GEO_RAG_JUDGE_MODEL`` on the configured endpoint wins; without it, the local server of this
    home judges when it runs (``geo-rag llm start``; off with ``GEO_RAG_LOCAL_LLM=false``).
    ``GEO_RAG_JUDGE_METRICS=[]`` asks for no judged metric: answers by the running local model,
    scored without its judge (which takes about an hour here).
    """
    if settings.judge_metrics is not None and not settings.judge_metrics:
        return NO_JUDGE_METRICS_REASON
    if settings.judge_model:
        if not (settings.openai_base_url or settings.openai_api_key):
            return "judge model set but no endpoint: set OPENAI_BASE_URL or OPENAI_API_KEY"
        return JudgeTarget(settings.judge_model, settings.openai_base_url, settings.openai_api_key, False)
    if settings.local_llm and not settings.openai_base_url:
        from geo_rag_runtime import local_llm

        state = local_llm.endpoint(settings)
        if state is not None:
            return JudgeTarget(state.model, state.base_url, None, True)
        return NO_JUDGE_REASON + " or start the local model (geo-rag llm start)"
    return NO_JUDGE_REASON


def judge_unavailable_reason(settings: Any) -> str | None:
    """None when a judge is available, else why not."""
    target = resolve_judge(settings)
    return target if isinstance(target, str) else None


def build_judge_llm(
    settings: Any,
    cache_dir: str | Path,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    target: JudgeTarget | None = None,
) -> tuple[Any, CachingTransport]:
    """The RAGAS judge (instructor over ``openai.AsyncOpenAI``) and its caching transport.

    ``target`` defaults to the configured judge (``GEO_RAG_JUDGE_MODEL`` on ``OPENAI_BASE_URL``).
    """
    _ragas_env()
    import openai
    from ragas.llms import llm_factory

    if target is None:
        target = JudgeTarget(
            str(settings.judge_model), settings.openai_base_url, settings.openai_api_key, False
        )
    caching = CachingTransport(cache_dir, inner=transport)
    # the local server answers one request at a time at ~90 prompt tokens/s: a judge prompt with five
    # passages takes about a minute, so the API timeout for answers would cut it off
    timeout = max(settings.llm_timeout_s, LOCAL_JUDGE_TIMEOUT_S) if target.local else settings.llm_timeout_s
    client = openai.AsyncOpenAI(
        api_key=target.api_key or "not-needed",
        base_url=target.base_url,
        timeout=timeout,
        max_retries=settings.llm_retries,
        http_client=httpx.AsyncClient(transport=caching, timeout=timeout),
    )
    llm = llm_factory(
        target.model,
        client=client,
        temperature=0.0,
        max_tokens=JUDGE_MAX_TOKENS,
        seed=settings.llm_seed,
    )
    return llm, caching
