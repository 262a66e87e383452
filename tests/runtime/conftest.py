"""Session fixtures of the runtime tests: one real knowledge base and one shared RagService."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.runtime.knowledge_base import KnowledgeBase, build_knowledge_base


@pytest.fixture(scope="session")
def knowledge_base(tmp_path_factory: pytest.TempPathFactory) -> KnowledgeBase:
    """Built once per test session (about 50 chunks of two sample papers)."""
    return build_knowledge_base(tmp_path_factory.mktemp("georag-kb"))


@pytest.fixture(scope="session")
def service(knowledge_base: KnowledgeBase) -> Iterator[Any]:
    """One shared service without LLM, as `geo-rag ask` runs on the embedded defaults."""
    from geo_rag_runtime.service import RagService

    rag = RagService(knowledge_base.settings())
    yield rag
    rag.close()
