"""Embedders: the local MiniLM without truncation, and the OpenAI client against a mocked HTTP API."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

import httpx
import numpy as np
import pytest

from geo_rag_runtime.embeddings import (
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    get_embedder,
    l2_normalize,
)
from geo_rag_runtime.errors import ConfigurationError, InputError, ServiceError, ServiceUnavailableError
from geo_rag_runtime.settings import get_settings
from tests.runtime import retrieval_corpus as rc

NOTATION = [
    "Initial 87Sr/86Sr ratios of 0.7035 and εNd(t) of +4.2 indicate a depleted mantle source.",
    "δ18O values of zircon range from 5.1‰ to 6.3‰; U(IV) is immobile under reducing conditions.",
    "(La/Yb)N ratios and SiO2 of 52 wt.% with 120 ppm Sr characterize the basaltic andesites.",
]


@pytest.fixture(scope="module")
def local() -> SentenceTransformerEmbedder:
    return rc.embedder()


@pytest.fixture(scope="module")
def long_texts(sample_papers: Path) -> tuple[str, str]:
    """Two real chunks of different papers, each longer than MiniLM's window."""
    pease = next(c.text for c in rc.paper_chunks(sample_papers / rc.PEASE) if c.token_count > 400)
    keller = next(c.text for c in rc.paper_chunks(sample_papers / rc.KELLER) if c.token_count > 400)
    return pease, keller


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b)))


# --------------------------------------------------------------------------- local MiniLM


def test_short_texts_are_embedded_exactly_as_sentence_transformers(
    local: SentenceTransformerEmbedder,
) -> None:
    ours = local.embed_documents(NOTATION)
    reference = local.model.encode(NOTATION, normalize_embeddings=True, convert_to_numpy=True)
    assert ours.dtype == np.float32 and ours.shape == (3, 384)
    np.testing.assert_allclose(ours, reference, atol=1e-6)
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)
    np.testing.assert_allclose(local.embed_query(NOTATION[1]), ours[1], atol=1e-6)


@pytest.mark.slow  # embeds whole papers
def test_long_text_windows_fit_and_cover_everything(
    local: SentenceTransformerEmbedder, long_texts: tuple[str, str]
) -> None:
    text = long_texts[0] + "\n\n" + long_texts[1]
    assert local.count_tokens(text) > 2 * local.max_window_tokens
    windows = local.windows(text)
    assert len(windows) >= 3
    cursor, covered_to = 0, 0
    for piece, pieces in windows:
        assert pieces <= local.max_window_tokens == 254
        assert local.count_tokens(piece) == pieces
        start = text.find(piece, cursor)
        assert start >= 0, "every window is a verbatim slice of the text"
        assert start <= covered_to, "windows overlap or touch: no text is skipped"
        covered_to = max(covered_to, start + len(piece))
        cursor = start + 1
    assert windows[0][0] == text[: len(windows[0][0])]
    assert covered_to == len(text.rstrip())


def test_long_text_is_not_truncated(local: SentenceTransformerEmbedder, long_texts: tuple[str, str]) -> None:
    head, tail = long_texts
    text = head + "\n\n" + tail
    ours = local.embed_documents([text])[0]
    truncated = local.model.encode([text], normalize_embeddings=True)[0]  # sentence-transformers alone
    first_window = local.model.encode([local.windows(text)[0][0]], normalize_embeddings=True)[0]
    tail_only = local.embed_documents([tail])[0]
    assert _cos(truncated, first_window) > 0.99  # what truncation reads: the first 254 pieces only
    assert _cos(ours, truncated) < 0.97
    # the second paper's text, beyond the truncation point, shapes the embedding
    assert _cos(ours, tail_only) > _cos(truncated, tail_only) + 0.1
    assert abs(float(np.linalg.norm(ours)) - 1.0) < 1e-5


def test_mixed_batch_equals_one_by_one(
    local: SentenceTransformerEmbedder, long_texts: tuple[str, str]
) -> None:
    texts = [NOTATION[0], long_texts[0], NOTATION[2], long_texts[1]]
    together = local.embed_documents(texts)
    alone = np.stack([local.embed_documents([t])[0] for t in texts])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_model_is_loaded_once_and_identity_is_recorded(local: SentenceTransformerEmbedder) -> None:
    other = SentenceTransformerEmbedder(batch_size=4)
    assert other.model is local.model
    assert local.identity == {
        "provider": "sentence-transformers",
        "model": "sentence-transformers/all-MiniLM-L6-v2",
        "dim": 384,
        "normalized": True,
        "max_window_tokens": 254,
    }


def test_empty_text_is_refused_and_surrogates_are_replaced(local: SentenceTransformerEmbedder) -> None:
    with pytest.raises(InputError, match="position 1"):
        local.embed_documents(["zircon", "   "])
    with pytest.raises(TypeError):
        local.embed_documents("zircon")  # type: ignore[arg-type]
    assert local.embed_documents([]).shape == (0, 384)
    broken = "Uranium \ud835 isotopes"  # pypdf leaves lone surrogates for math letters
    np.testing.assert_allclose(
        local.embed_documents([broken])[0], local.embed_documents(["Uranium \ufffd isotopes"])[0], atol=1e-6
    )


def test_factory_picks_local_or_api(geo_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert isinstance(get_embedder(get_settings()), SentenceTransformerEmbedder)
    monkeypatch.setenv("GEO_RAG_EMBEDDING_MODEL", "text-embedding-3-small")
    with pytest.raises(ConfigurationError, match="OPENAI_API_KEY"):
        get_embedder(get_settings())
    monkeypatch.setenv("OPENAI_BASE_URL", "http://localhost:8080/v1")
    api = get_embedder(get_settings())
    assert isinstance(api, OpenAIEmbedder) and api.model_name == "text-embedding-3-small"
    assert api.max_input_tokens == 8191


# --------------------------------------------------------------------------- OpenAI-compatible API


def _vector(text: str, dim: int) -> np.ndarray:
    seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
    return np.random.default_rng(seed).normal(size=dim)


class FakeEmbeddingsAPI:
    """Answers POST /v1/embeddings like the OpenAI API (data out of order, as the API allows)."""

    def __init__(self, dim: int = 1536, dim_for_call: Callable[[int], int] | None = None) -> None:
        self.dim = dim
        self.dim_for_call = dim_for_call
        self.requests: list[dict] = []
        self.headers: list[httpx.Headers] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        assert request.method == "POST" and request.url.path.endswith("/embeddings")
        body = json.loads(request.content)
        self.requests.append(body)
        self.headers.append(request.headers)
        dim = self.dim_for_call(len(self.requests)) if self.dim_for_call else self.dim
        data = [
            {"object": "embedding", "index": i, "embedding": _vector(text, dim).tolist()}
            for i, text in enumerate(body["input"])
        ]
        tokens = sum(len(text.split()) for text in body["input"])
        return httpx.Response(
            200,
            json={
                "object": "list",
                "data": list(reversed(data)),
                "model": body["model"],
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )


def _api(handler: Callable[[httpx.Request], httpx.Response], **kwargs: object) -> OpenAIEmbedder:
    options: dict = {"api_key": "sk-test", "base_url": "https://api.example.test/v1", "max_retries": 0}
    options.update(kwargs)
    return OpenAIEmbedder(
        "text-embedding-ada-002", http_client=httpx.Client(transport=httpx.MockTransport(handler)), **options
    )


def test_api_batches_requests_and_keeps_order() -> None:
    fake = FakeEmbeddingsAPI()
    embedder = _api(fake, batch_size=32)
    texts = [f"sample {i}: 87Sr/86Sr = 0.70{i:02d}" for i in range(70)]
    vectors = embedder.embed_documents(texts)
    assert [len(r["input"]) for r in fake.requests] == [32, 32, 6]
    assert all(
        r["model"] == "text-embedding-ada-002" and r["encoding_format"] == "float" for r in fake.requests
    )
    assert fake.headers[0]["authorization"] == "Bearer sk-test"
    assert vectors.shape == (70, 1536) and vectors.dtype == np.float32
    expected = l2_normalize(np.stack([_vector(t, 1536) for t in texts]))
    np.testing.assert_allclose(vectors, expected, atol=1e-6)
    assert embedder.identity == {
        "provider": "openai",
        "model": "text-embedding-ada-002",
        "dim": 1536,
        "normalized": True,
    }
    assert len(fake.requests) == 3  # the dimension came from the responses, no probe


def test_api_dimension_is_discovered_and_checked() -> None:
    fake = FakeEmbeddingsAPI(dim=8)
    assert _api(fake).dim == 8 and len(fake.requests) == 1  # one probe request
    changing = FakeEmbeddingsAPI(dim_for_call=lambda call: 8 if call == 1 else 16)
    embedder = _api(changing, batch_size=2)
    with pytest.raises(ServiceError, match="changed dimension from 8 to 16"):
        embedder.embed_documents(["a", "b", "c"])


def test_api_splits_texts_over_its_input_limit() -> None:
    fake = FakeEmbeddingsAPI(dim=16)
    embedder = _api(fake, max_input_tokens=100)
    long_text = " ".join(f"εNd{i}" for i in range(60))  # 60 words, about 370 UTF-8 bytes
    vector = embedder.embed_documents(["short text", long_text])
    sent = [text for r in fake.requests for text in r["input"]]
    assert sent[0] == "short text" and len(sent) > 4
    assert all(len(text.encode("utf-8")) <= 100 for text in sent)
    assert set(" ".join(sent[1:]).split()) == set(long_text.split())  # nothing dropped
    pieces = sent[1:]
    weights = np.array([len(p) for p in pieces], dtype=np.float32)[:, None]
    expected = l2_normalize((l2_normalize(np.stack([_vector(p, 16) for p in pieces])) * weights).sum(0))
    np.testing.assert_allclose(vector[1], expected, atol=1e-6)


def _status(code: int, message: str) -> Callable[[httpx.Request], httpx.Response]:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            code,
            json={
                "error": {"message": message, "type": "invalid_request_error", "param": None, "code": None}
            },
        )

    return handler


@pytest.mark.parametrize(
    ("code", "error", "words"),
    [
        (401, ConfigurationError, "OPENAI_API_KEY"),
        (404, ConfigurationError, "GEO_RAG_EMBEDDING_MODEL"),
        (400, ServiceError, "HTTP 400"),
        (429, ServiceUnavailableError, "HTTP 429"),
        (503, ServiceUnavailableError, "HTTP 503"),
    ],
)
def test_api_errors_are_clear(code: int, error: type[Exception], words: str) -> None:
    with pytest.raises(error, match=words):
        _api(_status(code, "nope")).embed_documents(["zircon"])


def test_api_timeout_is_retried_then_reported() -> None:
    calls: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(request)
        raise httpx.ReadTimeout("read timed out", request=request)

    with pytest.raises(ServiceUnavailableError, match="timed out"):
        _api(handler, max_retries=1, timeout_s=0.5).embed_documents(["zircon"])
    assert len(calls) == 2


def test_api_refuses_empty_input_before_sending() -> None:
    fake = FakeEmbeddingsAPI()
    with pytest.raises(InputError):
        _api(fake).embed_documents(["zircon", ""])
    assert fake.requests == []
