"""GeoRAG runtime: answer geochemistry questions from the materialized stores. Never imports Dagster.

The public Python API::

    from geo_rag_runtime import RagService, get_settings

    service = RagService(get_settings())          # opens the stores lazily, read-only
    answer = service.ask("What is meltPT?")       # HybridRAG; mode="baseline" for vector only
    print(answer.answer, [c.source_file for c in answer.citations])

    from geo_rag_runtime import ask                # one call, one process-wide service
    ask("Which isotope systems does inverse isochron regression apply to?").model_dump()

Names are resolved lazily, so ``import geo_rag_runtime`` stays cheap (the CLI starts fast).
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from geo_rag_runtime.errors import (
        ConfigurationError,
        GeoRagError,
        InputError,
        QueryError,
        ServiceError,
        StoreError,
    )
    from geo_rag_runtime.models import Answer, Citation
    from geo_rag_runtime.service import RagService
    from geo_rag_runtime.settings import Settings, get_settings

__version__ = "0.1.0"

__all__ = [
    "Answer",
    "Citation",
    "ConfigurationError",
    "GeoRagError",
    "InputError",
    "QueryError",
    "RagService",
    "ServiceError",
    "Settings",
    "StoreError",
    "ask",
    "get_settings",
]

_WHERE = {
    "Answer": "geo_rag_runtime.models",
    "Citation": "geo_rag_runtime.models",
    "ConfigurationError": "geo_rag_runtime.errors",
    "GeoRagError": "geo_rag_runtime.errors",
    "InputError": "geo_rag_runtime.errors",
    "QueryError": "geo_rag_runtime.errors",
    "ServiceError": "geo_rag_runtime.errors",
    "StoreError": "geo_rag_runtime.errors",
    "RagService": "geo_rag_runtime.service",
    "Settings": "geo_rag_runtime.settings",
    "get_settings": "geo_rag_runtime.settings",
}

_service: RagService | None = None
_service_lock = threading.Lock()


def __getattr__(name: str) -> Any:
    """Import a public name on first use (PEP 562)."""
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'geo_rag_runtime' has no attribute {name!r}")
    import importlib

    return getattr(importlib.import_module(module), name)


def ask(question: str, **options: Any) -> Answer:
    """Answer ``question`` with a service shared by this process (settings from the environment).

    ``options`` are those of :meth:`RagService.ask`: ``mode``, ``top_k``, ``category``.
    """
    global _service
    from geo_rag_runtime.service import RagService

    with _service_lock:
        if _service is None:
            _service = RagService()
    return _service.ask(question, **options)
