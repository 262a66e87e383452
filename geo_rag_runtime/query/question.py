"""The question, cleaned once: the text every stage reads, the form the retrievers search with,
and the vocabulary entities it names (recognized once, used by strategies and graph facts)."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from geo_rag_runtime.errors import QueryError

__all__ = ["Question", "clean_question", "prepare_question"]

_KEEP_CONTROL = {"\t": " ", "\n": " ", "\r": " "}


@dataclass(frozen=True)
class Question:
    """``text``: cleaned (shown in the answer, read by strategies and generators); ``search_text``:
    the same without markdown, bullets and surrounding quotes (what the retrievers embed and search);
    ``entities``: the vocabulary entities in ``text``, in order."""

    text: str
    search_text: str
    entities: tuple[Any, ...] = field(default_factory=tuple)


def clean_question(question: Any, max_chars: int) -> str:
    """The question without control characters and surplus whitespace; QueryError if unusable.

    Any language is accepted: a German or Chinese question is answered from what the (English)
    corpus yields for it.
    """
    if not isinstance(question, str):
        raise QueryError("the question must be text")
    if len(question) > 10 * max_chars:  # do not even normalize megabytes
        raise QueryError(
            f"the question has {len(question)} characters; at most {max_chars} are allowed "
            "(GEO_RAG_MAX_QUESTION_CHARS)"
        )
    text = unicodedata.normalize("NFC", question)
    text = "".join(
        _KEEP_CONTROL.get(ch, "") if unicodedata.category(ch) in {"Cc", "Cf", "Cs", "Co"} else ch
        for ch in text
    )
    text = " ".join(text.split())
    if not text:
        raise QueryError("the question is empty")
    if len(text) > max_chars:
        raise QueryError(
            f"the question has {len(text)} characters; at most {max_chars} are allowed "
            "(GEO_RAG_MAX_QUESTION_CHARS)"
        )
    return text


def prepare_question(
    text: str, max_chars: int, recognize: Callable[[str], Sequence[Any]] | None = None
) -> Question:
    """The cleaned question (from :func:`clean_question`) with its search form and its entities."""
    from geo_rag_runtime.retrieval.vector import preprocess_query

    entities = tuple(recognize(text)) if recognize is not None else ()
    return Question(text=text, search_text=preprocess_query(text, max_chars), entities=entities)
