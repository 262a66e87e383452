"""What every strategy is: ``retrieve`` (stage "vector") then ``refine`` (stage "fusion").

``refine`` is separate because compression and source choice need the graph facts, which the
pipeline fetches between the two steps; the pipeline times each step on its own.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime.errors import ServiceError
from geo_rag_runtime.models import QueryType, RetrievedItem
from geo_rag_runtime.prompts import Prompt
from geo_rag_runtime.query.question import Question
from geo_rag_runtime.query.tools import RetrievalTools
from geo_rag_runtime.stores.protocols import ChatModel

__all__ = ["Strategy", "StrategyRun", "llm_strings"]

_MAX_LLM_TEXT = 400


@dataclass
class StrategyRun:
    """What a strategy retrieved and how; ``label`` becomes ``Answer.strategy``."""

    category: QueryType
    label: str
    chunks: list[RetrievedItem]
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)  # rephrasings, expansion terms, sources
    prompts: list[str] = field(default_factory=list)  # ids of the prompt templates sent to the LLM


class Strategy(ABC):
    """A retrieval strategy for one query type."""

    name: str
    category: QueryType

    @abstractmethod
    def retrieve(self, question: Question, tools: RetrievalTools, top_k: int) -> StrategyRun:
        """Retrieve ranked chunks for the question (stage "vector")."""

    def refine(
        self,
        question: Question,
        run: StrategyRun,
        facts: list[RetrievedItem],
        tools: RetrievalTools,
        top_k: int,
    ) -> tuple[list[RetrievedItem], list[RetrievedItem]]:
        """Post-retrieval step (stage "fusion"): by default the chunks and facts as they are."""
        return run.chunks[:top_k], facts


def llm_strings(llm: ChatModel, prompt: Prompt, question: str, key: str, limit: int) -> list[str]:
    """A validated list of short strings from the LLM (ServiceError when unusable)."""
    schema = {
        "type": "object",
        "properties": {key: {"type": "array", "items": {"type": "string"}, "maxItems": limit}},
        "required": [key],
    }
    system, user = prompt.render(question=question)
    value = llm.complete_json(system, user, json_schema=schema, max_tokens=300)
    items = value.get(key)
    if not isinstance(items, list):
        raise ServiceError(f"LLM output has no list {key!r}")
    out: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip() and len(item) <= _MAX_LLM_TEXT:
            text = " ".join(item.split())
            if text.casefold() not in {o.casefold() for o in out}:
                out.append(text)
    if not out:
        raise ServiceError(f"LLM output {key!r} holds no usable strings")
    return out[:limit]
