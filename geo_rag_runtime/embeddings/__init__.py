"""Text embedders: the packaged MiniLM (default) and any OpenAI-compatible embeddings API.

Every embedder returns float32, L2-normalized vectors and embeds a text of any length completely
(long texts are cut into windows and their vectors averaged: ``base`` says how).

One module per backend, and one for what they share:

* ``base`` — the ``Embedder`` interface, normalization, input checks, the windowing of long texts.
* ``local_torch`` — the packaged MiniLM on torch/sentence-transformers (``SentenceTransformerEmbedder``).
* ``local_onnx`` — the same MiniLM from the home's verified ONNX export, without torch (``OnnxEmbedder``).
* ``openai_api`` — an OpenAI-compatible ``/embeddings`` endpoint (``OpenAIEmbedder``).
* ``factory`` — which of them a process uses (``get_embedder``, ``local_embedder``).

Import the public names from this package (``from geo_rag_runtime.embeddings import get_embedder``);
the submodules are how the code is laid out, not a separate interface.
"""

from __future__ import annotations

from geo_rag_runtime.embeddings.base import (
    LOCAL_MODEL_NAME,
    WINDOW_OVERLAP,
    Embedder,
    check_texts,
    embed_windowed,
    l2_normalize,
    local_model_path,
    token_windows,
)
from geo_rag_runtime.embeddings.factory import get_embedder, local_embedder
from geo_rag_runtime.embeddings.local_onnx import (
    MAX_ABS_DIFF,
    OnnxEmbedder,
    export_folder,
    load_exported,
    load_verified,
    weights_identity,
)
from geo_rag_runtime.embeddings.local_torch import SentenceTransformerEmbedder
from geo_rag_runtime.embeddings.openai_api import (
    DEFAULT_API_INPUT_LIMIT,
    OPENAI_INPUT_LIMITS,
    OpenAIEmbedder,
)

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
    # the single module this package was also exported these; they stay importable from here
    "DEFAULT_API_INPUT_LIMIT",
    "OPENAI_INPUT_LIMITS",
    "WINDOW_OVERLAP",
    "check_texts",
    "embed_windowed",
    "load_exported",
    "local_model_path",
    "token_windows",
]
